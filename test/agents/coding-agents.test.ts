/**
 * Claude Code, Codex CLI, Gemini CLI and Qwen Code (the pinned devDependencies), with default settings, complete a
 * two-step tool task through the gateway on every upstream style: the agent's own style passed through, and the two
 * others translated. The fakes play a model that reads `clue.txt` with the agent's tool, then the file it names, then
 * repeats what it read; the secret word, found only in that file, must come out of the agent — so both tool calls
 * went down and both results went back up through the translation. Nothing leaves the machine: the agents run
 * behind a proxy that refuses every connection, and the test checks that none was tried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { CODING_AGENTS, type CodingAgent } from './coding-agents.ts';
import { fileHuntPolicy, FINAL_PREFIX } from './file-hunt-policy.ts';
import { answerWith, launchAgent, makeWorkspace, runAgent, startAgentGateway, type AgentGateway } from './run-agent.ts';

/** One model per upstream style, as the gateway environment serves them. */
const UPSTREAMS = [
  { style: 'chat', model: 'gpt-4o-mini', smallModel: 'gpt-4o-mini' },
  { style: 'messages', model: 'claude-sonnet-4-6', smallModel: 'claude-haiku-4-5' },
  { style: 'generative', model: 'gemini-2.5-flash', smallModel: 'gemini-2.5-flash' },
] as const;

// A run takes seconds; the limit leaves room for a loaded machine.
const RUN_LIMIT_MS = 90_000;

let env: AgentGateway;
beforeAll(async () => {
  env = await startAgentGateway();
}, 120_000);
afterAll(async () => env?.close());

function fakeOf(style: (typeof UPSTREAMS)[number]['style']): FakeUpstream {
  return style === 'chat' ? env.g.chat : style === 'messages' ? env.g.messages : env.g.generative;
}

async function newKey(name: string): Promise<{ key: string; id: string }> {
  const res = await env.g.s.api('POST', '/api/v1/keys', { name }, { 'x-svc-team': 'gw' });
  expect(res.statusCode, res.body).toBe(201);
  return { key: res.json().key as string, id: res.json().id as string };
}

describe.each(CODING_AGENTS.map((a) => [a.name, a] as [string, CodingAgent]))('%s through the gateway', (_name, agent) => {
  it.each(UPSTREAMS.map((u) => [u.style, u] as const))('completes the file hunt on a %s upstream', async (_style, upstream) => {
    const ws = makeWorkspace();
    try {
      const fake = fakeOf(upstream.style);
      answerWith(env, fileHuntPolicy(ws.dir, agent.readers));
      const { key, id } = await newKey(`${agent.name} ${upstream.style}`);
      const launch = launchAgent(agent, ws, { gateway: env.g.s.url, key, model: upstream.model, smallModel: upstream.smallModel });

      const run = await runAgent(launch, ws, env.proxy.url, RUN_LIMIT_MS);

      expect(run.code, `exit ${run.code}\n${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`).toBe(0);
      expect(run.stdout).toContain(FINAL_PREFIX);
      expect(run.stdout).toContain(ws.secret);
      // Both steps reached the upstream in its own wire format, the last one with both results.
      const generates = fake.calls.filter((c) => c.method === 'POST' && !/count/i.test(c.path));
      expect(generates.length).toBeGreaterThanOrEqual(3);
      expect(generates.some((c) => c.raw.includes(ws.secret))).toBe(true);
      expect(env.proxy.targets).toEqual([]);
      // The gateway recorded every call, each served by this upstream in its style.
      const rows = await env.g.usage(generates.length, id);
      expect(rows.length).toBeGreaterThanOrEqual(generates.length);
      const served = rows.filter((r) => r.upstream_style === upstream.style && r.model === upstream.model);
      expect(served.length).toBeGreaterThanOrEqual(3);
      for (const r of rows) expect(r, JSON.stringify(r)).toMatchObject({ client_style: agent.style, status: 200 });
      expect(served.every((r) => r.input_tokens > 0 && r.output_tokens > 0)).toBe(true);
    } finally {
      ws.remove();
    }
  });
});
