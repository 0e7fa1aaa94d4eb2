/**
 * The recorded sessions of Claude Code, Codex CLI, Gemini CLI and Qwen Code (test/fixtures/agent-sessions: each
 * agent's last request of a scripted task, a tour of 13 or 40 file reads and a two-step hunt, a debugging loop of
 * 49 steps or the 40 reads followed by that loop, byte for byte as it sent it, with its system prompt, tools and
 * options) replayed through the gateway to
 * every upstream style: each upstream receives every tool result paired with its call and every marked span, in its
 * own wire format, and the streamed answer completes. The agents themselves run in test/agents (slow tier).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedSessions } from '../../bench/compression/recorded-sessions.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

const UPSTREAMS = [['chat', 'gpt-4o-mini'], ['messages', 'claude-sonnet-4-6'], ['generative', 'gemini-2.5-flash']] as const;

/** How each agent's style reaches the gateway, as the agent calls it. */
function send(style: string, model: string, request: Record<string, unknown>): Promise<Response> {
  const json = { 'content-type': 'application/json' };
  if (style === 'messages') {
    return fetch(`${g.s.url}/v1/messages`, { method: 'POST', headers: { ...json, 'x-api-key': g.key, 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ ...request, model }) });
  }
  if (style === 'chat') {
    return fetch(`${g.s.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, authorization: `Bearer ${g.key}` }, body: JSON.stringify({ ...request, model }) });
  }
  if (style === 'responses') {
    return fetch(`${g.s.url}/v1/responses`, { method: 'POST', headers: { ...json, authorization: `Bearer ${g.key}` }, body: JSON.stringify({ ...request, model }) });
  }
  return fetch(`${g.s.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, { method: 'POST', headers: { ...json, 'x-goog-api-key': g.key }, body: JSON.stringify(request) });
}

function fakeOf(style: string): FakeUpstream {
  return style === 'chat' ? g.chat : style === 'messages' ? g.messages : g.generative;
}

describe.each(recordedSessions().map((s) => [s.name, s.label, s] as const))('%s, recorded request of the %s', (_n, _label, session) => {
  it.each(UPSTREAMS)('reaches a %s upstream with every tool result, and the answer completes', async (style, model) => {
    const fake = fakeOf(style);
    fake.reset();
    const res = await send(session.style, model, session.request as Record<string, unknown>);
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).toBe(200);
    expect(text).toContain('Echo:');
    const call = fake.calls.at(-1);
    expect(call).toBeDefined();
    const info = fake.wire.inspect(call!.method, call!.path, call!.query, call!.body);
    expect(info?.toolResults).toHaveLength(session.toolCalls);
    // A file tour's secret is in its last result; a debugging loop's failed assertions are in its earlier test logs.
    if (session.task === 'file tour') expect(info?.toolResults?.at(-1)).toContain(session.spans[0]);
    for (const span of session.spans) expect(info?.toolResults?.some((r) => r.includes(span)), span).toBe(true);
    expect(info?.lastIsToolResult).toBe(true);
  });
});
