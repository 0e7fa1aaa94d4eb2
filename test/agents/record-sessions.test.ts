/**
 * Records the compression corpus's agent sessions (issue 13): each pinned agent runs the file hunt through the
 * gateway after a tour of this repository's own translator sources (some read twice, as agents do), with a key that
 * keeps call bodies; the last request the agent sent, which carries the whole session in the agent's own wire
 * style (system prompt, tools, re-sent history), is written to test/fixtures/agent-sessions/. Skipped unless
 * `npm run agents:record-sessions` (SVC_RECORD_AGENT_SESSIONS=1) asks for it; the files are committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentVersion, CODING_AGENTS, type CodingAgent } from './coding-agents.ts';
import { fileHuntPolicy } from './file-hunt-policy.ts';
import { AGENT_TASK, answerWith, launchAgent, makeWorkspace, REPO, runAgent, startAgentGateway, type AgentGateway } from './run-agent.ts';

const RECORD = process.env.SVC_RECORD_AGENT_SESSIONS === '1';
const OUT = join(import.meta.dirname, '..', 'fixtures', 'agent-sessions');
const SECRET = 'SECRET-5EED1E55';

const SOURCES = [
  'translators/chat/chat-stream-decoder.ts', 'translators/messages/messages-stream-encoder.ts', 'translators/chat/types.ts',
  'translators/messages/types.ts', 'translators/chat/chat-errors.ts', 'translators/messages/messages-errors.ts',
  'translators/chat/decode-chat-response.ts', 'translators/chat/chat-usage.ts', 'translators/messages/messages-usage.ts',
  'translators/messages/deferred-tools.ts',
];
/** The sources, then three of them again. */
const TOUR = [...SOURCES, SOURCES[2], SOURCES[1], SOURCES[7]];

/** Where each agent is recorded: its own style where the gateway environment has it (no responses upstream). */
const UPSTREAM: Record<CodingAgent['style'], { model: string; smallModel: string }> = {
  messages: { model: 'claude-sonnet-4-6', smallModel: 'claude-haiku-4-5' },
  responses: { model: 'gpt-4o-mini', smallModel: 'gpt-4o-mini' },
  generative: { model: 'gemini-2.5-flash', smallModel: 'gemini-2.5-flash' },
};

let env: AgentGateway | undefined;
beforeAll(async () => {
  if (RECORD) env = await startAgentGateway();
}, 120_000);
afterAll(async () => env?.close());

/** What a request says of the recording machine (paths, kernel), replaced by neutral values; the rest is the agent's own. */
function neutral(text: string, root: string): string {
  const slug = (path: string) => path.replace(/[^A-Za-z0-9]/g, '-');
  return text
    .replaceAll(join(REPO, 'node_modules'), '/opt/node/lib/node_modules')
    .replaceAll('/.gemini/tmp/work', '/.gemini/state/project')
    .replaceAll(`${root}/work`, '/home/user/project')
    .replaceAll(slug(`${root}/work`), '-home-user-project')
    .replaceAll(`${root}/home`, '/home/user')
    .replaceAll(root, '/home')
    .replaceAll(release(), '6.8.0');
}

describe.skipIf(!RECORD)('recording agent sessions', () => {
  it.each(CODING_AGENTS.map((a) => [a.name, a] as [string, CodingAgent]))('%s', async (_name, agent) => {
    const ws = makeWorkspace({ secret: SECRET, sources: SOURCES });
    const { g, proxy } = env as AgentGateway;
    try {
      answerWith(env as AgentGateway, fileHuntPolicy(ws.dir, agent.readers, TOUR));
      const k = await g.s.api('POST', '/api/v1/keys', { name: `record ${agent.name}`, log_bodies: '1d' }, { 'x-svc-team': 'gw' });
      expect(k.statusCode, k.body).toBe(201);
      const up = UPSTREAM[agent.style];
      const run = await runAgent(launchAgent(agent, ws, { gateway: g.s.url, key: k.json().key, ...up }), ws, proxy.url, 120_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain(SECRET);
      expect(proxy.targets).toEqual([]);
      const calls = TOUR.length + 3;
      let rows: { request: string }[] = [];
      for (let i = 0; i < 100 && rows.length < calls; i++) {
        rows = (await g.s.db.query<{ request: string }>('SELECT request FROM call_bodies WHERE key_id = $1', [k.json().id])).rows;
        if (rows.length < calls) await new Promise((r) => setTimeout(r, 100));
      }
      // The last request holds the whole session.
      const last = rows.map((r) => r.request).sort((a, b) => b.length - a.length)[0];
      mkdirSync(OUT, { recursive: true });
      writeFileSync(join(OUT, `${agent.id}.json`), `${JSON.stringify({
        agent: agent.name, version: agentVersion(agent), style: agent.style, model: up.model, task: AGENT_TASK, tour: TOUR, spans: [SECRET],
        request: JSON.parse(neutral(last, ws.root)),
      }, null, 1)}\n`);
    } finally {
      ws.remove();
    }
  });
});
