/**
 * Claude Code, Codex CLI, Gemini CLI and Qwen Code (the pinned devDependencies) work through the gateway with compression `on`
 * (issue 13): each runs a file tour of this repository's translator sources (some files read twice, as agents do)
 * and then the two-step file hunt, with thresholds low enough that the compressor takes steps during the run. The
 * agent still finishes with the secret word (the last turns, where the hunt happens, are never touched), the
 * upstream receives every tool result paired with its call in every request, the compressed history stays a prefix
 * of the next request's except at the compressor's steps, and the usage records say what was compressed. The
 * agents' own histories are theirs: only what goes upstream is compressed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressionOf } from '../../proxy/compression/compression-service.ts';
import { getStyle } from '../../translators/styles.ts';
import type { StyleName, Turn } from '../../translators/model.ts';
import { toolPairIds } from '../../bench/compression/check-session.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { CODING_AGENTS, type CodingAgent } from './coding-agents.ts';
import { fileHuntPolicy, FINAL_PREFIX } from './file-hunt-policy.ts';
import { answerWith, launchAgent, makeWorkspace, runAgent, startAgentGateway, type AgentGateway } from './run-agent.ts';

/** Translator sources of 60 to 260 lines, then three of them again. */
const SOURCES = [
  'translators/chat/chat-stream-decoder.ts', 'translators/messages/messages-stream-encoder.ts', 'translators/chat/types.ts',
  'translators/messages/types.ts', 'translators/chat/decode-chat-request.ts', 'translators/messages/decode-messages-request.ts',
  'translators/generative/generative-stream-decoder.ts', 'translators/chat/encode-chat-request.ts',
];
const TOUR = [...SOURCES, SOURCES[2], SOURCES[1], SOURCES[5]];

/** Where each agent is served: its own style where the fakes have it; Codex CLI's responses style translated to chat. */
const UPSTREAM: Record<CodingAgent['style'], { style: StyleName; model: string; smallModel: string }> = {
  messages: { style: 'messages', model: 'claude-sonnet-4-6', smallModel: 'claude-haiku-4-5' },
  responses: { style: 'chat', model: 'gpt-4o-mini', smallModel: 'gpt-4o-mini' },
  generative: { style: 'generative', model: 'gemini-2.5-flash', smallModel: 'gemini-2.5-flash' },
  chat: { style: 'chat', model: 'gpt-4o', smallModel: 'gpt-4o' },
};

/**
 * Low thresholds, so that a session of about 20 k tokens is compressed: the first step from 3 k tokens, the lossy
 * cut from the first step on, for outputs past 600 tokens (a source file of about 60 lines).
 */
const RULE = { min_tokens: 3_000, lossy_at_tokens: 3_000, huge_output_tokens: 600 };

const RUN_LIMIT_MS = 150_000;

let env: AgentGateway;
beforeAll(async () => {
  env = await startAgentGateway();
  const res = await env.g.s.api('PUT', '/api/v1/settings/compression', {
    mode: 'on', rules: Object.values(UPSTREAM).map((u) => ({ pattern: u.model, ...RULE })),
  });
  expect(res.statusCode, res.body).toBe(200);
  await compressionOf(env.g.s.ctx).settings.loaded();
}, 120_000);
afterAll(async () => env?.close());

function fakeOf(style: StyleName): FakeUpstream {
  return style === 'chat' ? env.g.chat : style === 'messages' ? env.g.messages : env.g.generative;
}

/** The turns of each generation request the fake received, decoded in its own style (the conversation's, not side calls). */
function upstreamTurns(fake: FakeUpstream, style: StyleName, model: string): Turn[][] {
  return fake.calls
    .filter((c) => c.method === 'POST' && !/count/i.test(c.path) && c.body !== undefined && (style === 'generative' ? c.path.includes(model) : (c.body as { model?: string }).model === model))
    .map((c) => getStyle(style).decodeRequest(c.body).turns)
    .filter((turns) => turns.some((t) => t.parts.some((p) => p.type === 'tool_result')));
}

/** Each tool call is answered by a result with its id, in the next turn that holds results, in order. */
function pairsIntact(turns: readonly Turn[]): boolean {
  const ids = toolPairIds(turns);
  const calls = ids.filter((i) => i.startsWith('call:')).map((i) => i.slice(5));
  const results = ids.filter((i) => i.startsWith('result:')).map((i) => i.slice(7));
  return calls.length === results.length && calls.every((id, i) => results[i] === id);
}

/** Turns compared without cache markers: agents move their breakpoints to the newest turn, and the cached prefix stays. */
const unmarked = (t: Turn) => JSON.stringify(t, (k, v: unknown) => (k === 'cache' ? undefined : v));
const same = (a: Turn, b: Turn) => unmarked(a) === unmarked(b);

/** The compressor's level for each call of the key to the model, oldest first, once `n` rows are written. */
async function recordedLevels(keyId: string, model: string, n: number): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await env.g.s.db.query<{ level: number }>('SELECT level FROM compression_records WHERE key_id = $1 AND model = $2 ORDER BY at, record_id', [keyId, model]);
    if (r.rows.length >= n || Date.now() > deadline) return r.rows.map((x) => x.level);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe.each(CODING_AGENTS.map((a) => [a.name, a] as [string, CodingAgent]))('%s with compression on', (_name, agent) => {
  it('finishes the task, and every request upstream keeps its tool pairs', async () => {
    const ws = makeWorkspace({ sources: SOURCES });
    try {
      const up = UPSTREAM[agent.style];
      const fake = fakeOf(up.style);
      answerWith(env, fileHuntPolicy(ws.dir, agent.readers, TOUR));
      const k = await env.g.s.api('POST', '/api/v1/keys', { name: `compressed ${agent.name}` }, { 'x-svc-team': 'gw' });
      expect(k.statusCode, k.body).toBe(201);

      const run = await runAgent(launchAgent(agent, ws, { gateway: env.g.s.url, key: k.json().key, ...up }), ws, env.proxy.url, RUN_LIMIT_MS);

      expect(run.code, `exit ${run.code}\n${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`).toBe(0);
      expect(run.stdout).toContain(FINAL_PREFIX);
      expect(run.stdout).toContain(ws.secret);
      expect(env.proxy.targets).toEqual([]);

      // Every request of the conversation reached the upstream with each result after its call; the last one with
      // every read of the tour, the clue and the secret.
      const requests = upstreamTurns(fake, up.style, up.model);
      expect(requests.length).toBeGreaterThanOrEqual(TOUR.length);
      for (const turns of requests) expect(pairsIntact(turns)).toBe(true);
      const last = requests.reduce((a, b) => (b.length > a.length ? b : a));
      expect(toolPairIds(last).filter((i) => i.startsWith('result:'))).toHaveLength(TOUR.length + 2);

      // The compressor took steps: some request went up smaller than the agent sent it, and the usage records say so.
      const rows = (await env.g.s.db.query<{ before: number; after: number }>(
        `SELECT compression_tokens_before AS before, compression_tokens_after AS after FROM usage_records
          WHERE key_id = $1 AND compression_mode = 'on'`, [k.json().id])).rows;
      expect(rows.some((r) => r.after < r.before)).toBe(true);

      // Prefix-stable: a request's history starts with the one before it (cache markers aside), except where the
      // compressor's level changed (a step, recorded in compression_records), and each step breaks it once at most.
      const levels = await recordedLevels(k.json().id, up.model, requests.length);
      const steps = levels.filter((l, i) => l !== (i === 0 ? -1 : levels[i - 1])).length;
      let breaks = 0;
      for (let i = 1; i < requests.length; i++) {
        const [prev, next] = [requests[i - 1], requests[i]];
        if (next.length < prev.length || !prev.every((t, j) => same(t, next[j]))) breaks++;
      }
      expect(steps).toBeGreaterThanOrEqual(1);
      expect(breaks).toBeGreaterThanOrEqual(1);
      expect(breaks).toBeLessThanOrEqual(steps);
    } finally {
      ws.remove();
    }
  }, RUN_LIMIT_MS + 60_000);
});
