/**
 * A request body in the shape Claude Code sends with default settings (system blocks with cache markers, a system
 * message inside `messages`, `eager_input_streaming` on a tool, the deferred placeholder, `output_config` effort,
 * adaptive thinking, `context_management`, `metadata.user_id`), replayed through the gateway to chat and generative
 * upstreams: a streamed tool round trip completes, with a system message between a tool call and its result moved
 * after the result for a chat upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

const TOOLS = [
  { name: 'DeferredToolPlaceholder', defer_loading: true },
  { name: 'Bash', description: 'Run a shell command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' }, eager_input_streaming: true },
];

function body(model: string, messages: unknown[]): string {
  return JSON.stringify({
    model, max_tokens: 32000, stream: true, tools: TOOLS,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'Work in the current directory.', cache_control: { type: 'ephemeral' } },
    ],
    messages,
    thinking: { type: 'adaptive' }, output_config: { effort: 'high' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    metadata: { user_id: 'user_abc_account_def_session_123' },
  });
}

async function stream(model: string, messages: unknown[]): Promise<string[]> {
  const res = await fetch(`${g.s.url}/v1/messages`, {
    method: 'POST', body: body(model, messages),
    headers: { 'x-api-key': g.key, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14', 'content-type': 'application/json' },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return [...(await res.text()).matchAll(/^data: (.+)$/gm)].map((m) => m[1]);
}

describe.each([['chat upstream', 'gpt-4o-mini'], ['generative upstream', 'gemini-2.5-flash']])('Claude Code request forms, %s', (_n, model) => {
  it('completes a streamed tool round trip', async () => {
    const first = [{ role: 'user', content: [{ type: 'text', text: 'list the files', cache_control: { type: 'ephemeral' } }] }];
    const events = (await stream(model, first)).map((d) => JSON.parse(d) as { type: string; content_block?: { type: string; name?: string; id?: string }; delta?: { stop_reason?: string } });
    const use = events.find((e) => e.type === 'content_block_start' && e.content_block?.type === 'tool_use')?.content_block;
    expect(use?.name).toBe('Bash');
    expect(events.find((e) => e.type === 'message_delta')?.delta?.stop_reason).toBe('tool_use');
    const second = [
      ...first,
      { role: 'assistant', content: [{ type: 'tool_use', id: use?.id, name: 'Bash', input: { command: 'ls' } }] },
      { role: 'system', content: 'The user switched to plan mode.' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id, content: 'a.txt\nb.txt' }] },
    ];
    const again = (await stream(model, second)).map((d) => JSON.parse(d) as { type: string; delta?: { type: string; text?: string } });
    expect(again.at(-1)?.type).toBe('message_stop');
    if (!model.startsWith('gpt')) {
      expect(again.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta?.text).join('')).toBe('Echo: list the files');
    } else {
      // (The chat fake calls a tool again when the last message is not a tool result, as it now is not.)
      // The chat API needs the tool message right after the assistant's tool_calls: the system message follows it.
      const sent = g.chat.calls.at(-1)?.body as { messages: { role: string }[] };
      expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'system']);
    }
  });
});
