/**
 * Records the compression corpus's agent sessions (issue 13): each pinned agent runs the file hunt through the
 * gateway after a tour of this repository's own translator sources (some read twice, as agents do; a short tour
 * and a long one, for sessions past 50 k tokens), a debugging loop over a copy of the translators with planted
 * bugs (debug-loop-policy.ts: test runs, reads, searches and fixes until the suite passes), and the long tour's reads
 * followed by that loop (a session of 89 tool calls, the length agents reach before they compact), with a key that
 * keeps call bodies; the last request the agent sent, which carries the whole session in the agent's own wire
 * style (system prompt, tools, re-sent history), is written to test/fixtures/agent-sessions/. Skipped unless
 * `npm run agents:record-sessions` (SVC_RECORD_AGENT_SESSIONS=1) asks for it; the files are committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOutputText, toolPairIds } from '../../bench/compression/check-session.ts';
import type { StyleName } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import { agentVersion, CODING_AGENTS, type CodingAgent } from './coding-agents.ts';
import { DEBUG_LOOP, DEBUG_TASK, debugLoopPolicy, FAILED_ASSERTIONS, PLANTED_BUGS, type DebugStep } from './debug-loop-policy.ts';
import { fileHuntPolicy } from './file-hunt-policy.ts';
import {
  AGENT_TASK, answerWith, launchAgent, makeDebugWorkspace, makeWorkspace, REPO, runAgent, startAgentGateway, type AgentGateway,
} from './run-agent.ts';

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

/**
 * A longer task, for sessions past 50 k tokens as the compression targets ask: a tour of 28 translator sources of
 * 130 to 260 lines, then 12 of them again (agents re-read what they are about to change).
 */
const LONG_SOURCES = [
  'translators/messages/encode-messages-request.ts', 'translators/generative/generative-stream-decoder.ts',
  'translators/generative/generative-stream-encoder.ts', 'translators/responses/encode-responses-request.ts',
  'translators/chat/types.ts', 'translators/messages/types.ts', 'translators/chat/chat-stream-decoder.ts',
  'translators/generative/encode-generative-request.ts', 'translators/generative/generative-parts.ts',
  'translators/messages/messages-stream-encoder.ts', 'translators/generative/decode-generative-request.ts',
  'translators/styles.ts', 'translators/chat/chat-stream-encoder.ts', 'translators/responses/decode-responses-request.ts',
  'translators/messages/decode-messages-request.ts', 'translators/messages/messages-stream-decoder.ts',
  'translators/chat/decode-chat-request.ts', 'translators/generative/types.ts', 'translators/responses/responses-stream-decoder.ts',
  'translators/responses/types.ts', 'translators/chat/encode-chat-request.ts', 'translators/responses/responses-stream-encoder.ts',
  'translators/chat/chat-errors.ts', 'translators/messages/messages-errors.ts', 'translators/chat/decode-chat-response.ts',
  'translators/chat/chat-usage.ts', 'translators/messages/messages-usage.ts', 'translators/messages/deferred-tools.ts',
];
const LONG_TOUR = [...LONG_SOURCES, ...[4, 14, 1, 20, 9, 16, 5, 12, 0, 18, 7, 21].map((i) => LONG_SOURCES[i])];

/** The recorded tasks: the fixture's name suffix, the sources copied into the workspace, the reads, the time allowed. */
const TASKS = [
  { name: 'tour', suffix: '', sources: SOURCES, tour: TOUR, timeoutMs: 120_000 },
  { name: 'long tour', suffix: '-long', sources: LONG_SOURCES, tour: LONG_TOUR, timeoutMs: 600_000 },
];

/** Where each agent is recorded: its own style where the gateway environment has it (no responses upstream). */
const UPSTREAM: Record<CodingAgent['style'], { model: string; smallModel: string }> = {
  messages: { model: 'claude-sonnet-4-6', smallModel: 'claude-haiku-4-5' },
  responses: { model: 'gpt-4o-mini', smallModel: 'gpt-4o-mini' },
  generative: { model: 'gemini-2.5-flash', smallModel: 'gemini-2.5-flash' },
  chat: { model: 'gpt-4o-mini', smallModel: 'gpt-4o-mini' },
};

/** The debugging loop runs the test suite 15 times: minutes per agent. */
const DEBUG_TIMEOUT_MS = 1_200_000;

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

describe.skipIf(!RECORD).each(TASKS)('recording agent sessions: $name', ({ suffix, sources, tour, timeoutMs }) => {
  it.each(CODING_AGENTS.map((a) => [a.name, a] as [string, CodingAgent]))('%s', async (_name, agent) => {
    const ws = makeWorkspace({ secret: SECRET, sources });
    const { g, proxy } = env as AgentGateway;
    try {
      answerWith(env as AgentGateway, fileHuntPolicy(ws.dir, agent.readers, tour));
      const k = await g.s.api('POST', '/api/v1/keys', { name: `record ${agent.name}`, log_bodies: '1d' }, { 'x-svc-team': 'gw' });
      expect(k.statusCode, k.body).toBe(201);
      const up = UPSTREAM[agent.style];
      const run = await runAgent(launchAgent(agent, ws, { gateway: g.s.url, key: k.json().key, ...up }), ws, proxy.url, timeoutMs);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain(SECRET);
      expect(proxy.targets).toEqual([]);
      // Call bodies are written after each answer: wait for the request that carries the secret's read, the last of
      // the hunt (a count of rows is not enough: some agents send side requests of their own).
      let rows: { request: string }[] = [];
      const done = () => rows.length >= tour.length + 3 && rows.some((r) => r.request.includes(SECRET));
      for (let i = 0; i < 100 && !done(); i++) {
        rows = (await g.s.db.query<{ request: string }>('SELECT request FROM call_bodies WHERE key_id = $1', [k.json().id])).rows;
        if (!done()) await new Promise((r) => setTimeout(r, 100));
      }
      expect(done()).toBe(true);
      // The last request holds the whole session: the longest of those that carry the secret's read.
      const last = rows.map((r) => r.request).filter((r) => r.includes(SECRET)).sort((a, b) => b.length - a.length)[0];
      mkdirSync(OUT, { recursive: true });
      writeFileSync(join(OUT, `${agent.id}${suffix}.json`), `${JSON.stringify({
        agent: agent.name, version: agentVersion(agent), style: agent.style, model: up.model, task: AGENT_TASK, tour, spans: [SECRET],
        request: JSON.parse(neutral(last, ws.root)),
      }, null, 1)}\n`);
    } finally {
      ws.remove();
    }
  }, timeoutMs + 60_000);
});

/** The tool results a logged request carries (decoded as the gateway decodes it). */
function resultsIn(request: string, style: StyleName): number {
  return toolPairIds(getStyle(style).decodeRequest(JSON.parse(request)).turns).filter((x) => x.startsWith('result:')).length;
}

/**
 * The debugging loops recorded: alone, and after the long tour (an agent that reads its way into the code before it
 * runs the tests: about 90 tool calls, for sessions of the length agents reach before they compact).
 */
const DEBUG_TASKS = [
  { name: 'debugging loop', suffix: '-debug', script: DEBUG_LOOP },
  { name: 'long tour, then debugging loop', suffix: '-long-debug', script: [...LONG_TOUR.map((path): DebugStep => ({ kind: 'read', path })), ...DEBUG_LOOP] },
];

describe.skipIf(!RECORD).each(DEBUG_TASKS)('recording agent sessions: $name', ({ name, suffix, script }) => {
  it.each(CODING_AGENTS.map((a) => [a.name, a] as [string, CodingAgent]))('%s', async (_name, agent) => {
    if (agent.shell === undefined) throw new Error(`${agent.name} has no shell tool`);
    const ws = makeDebugWorkspace();
    const { g, proxy } = env as AgentGateway;
    try {
      answerWith(env as AgentGateway, debugLoopPolicy(ws.dir, agent.shell, agent.readers[0], script));
      const k = await g.s.api('POST', '/api/v1/keys', { name: `record ${agent.name} debug`, log_bodies: '1d' }, { 'x-svc-team': 'gw' });
      expect(k.statusCode, k.body).toBe(201);
      const up = UPSTREAM[agent.style];
      const launch = launchAgent(agent, ws, { gateway: g.s.url, key: k.json().key, ...up, task: DEBUG_TASK, shell: true });
      const run = await runAgent(launch, ws, proxy.url, DEBUG_TIMEOUT_MS);
      expect(run.code, `${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`).toBe(0);
      // The answer quotes each round's first failing assertion, found in the test logs the agent sent up.
      for (const span of FAILED_ASSERTIONS) expect(run.stdout).toContain(span);
      expect(proxy.targets).toEqual([]);
      // Call bodies are written after each answer: wait for the request that carries the last step's result.
      let rows: { request: string }[] = [];
      const last = () => rows.map((r) => r.request).filter((r) => resultsIn(r, agent.style) === script.length).sort((a, b) => b.length - a.length)[0];
      for (let i = 0; i < 100 && last() === undefined; i++) {
        rows = (await g.s.db.query<{ request: string }>('SELECT request FROM call_bodies WHERE key_id = $1', [k.json().id])).rows;
        if (last() === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      const request = last();
      expect(request).toBeDefined();
      const neutralised = neutral(request as string, ws.root);
      expect(neutralised).not.toContain(REPO);
      expect(neutralised).not.toContain(ws.root);
      // The marked spans are the assertions the last request still holds: an agent that drops or masks old outputs
      // itself leaves fewer for the compressor to keep.
      const sent = toolOutputText(getStyle(agent.style).decodeRequest(JSON.parse(neutralised)));
      mkdirSync(OUT, { recursive: true });
      writeFileSync(join(OUT, `${agent.id}${suffix}.json`), `${JSON.stringify({
        agent: agent.name, version: agentVersion(agent), style: agent.style, model: up.model, task: DEBUG_TASK, kind: name,
        steps: script.map((s) => (s.kind === 'shell' ? `$ ${s.command}` : `read ${s.path}`)), bugs: PLANTED_BUGS.map((b) => b.file),
        spans: FAILED_ASSERTIONS.filter((x) => sent.includes(x)), request: JSON.parse(neutralised),
      }, null, 1)}\n`);
    } finally {
      ws.remove();
    }
  }, DEBUG_TIMEOUT_MS + 60_000);
});
