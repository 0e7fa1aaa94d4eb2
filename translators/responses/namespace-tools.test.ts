import { describe, expect, it } from 'vitest';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesRequest } from './encode-responses-request.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { flatToolName, ToolFlattener } from './namespace-tools.ts';
import { ResponsesStreamEncoder } from './responses-stream-encoder.ts';

const fn = (name: string) => ({ type: 'function', name, description: `${name} it`, parameters: { type: 'object', properties: { id: { type: 'string' } } } });
// As Codex CLI sends its sub-agent tools.
const MULTI_AGENT = { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: ['spawn_agent', 'send_input', 'wait', 'close_agent', 'resume_agent'].map(fn) };

describe('flattening namespace tools', () => {
  it('keeps the characters and length every style accepts', () => {
    expect(flatToolName('multi_agent_v1', 'spawn_agent')).toBe('multi_agent_v1__spawn_agent');
    expect(flatToolName('crm.v2', 'find user')).toBe('crm_v2__find_user');
    expect(flatToolName('1ns', 'x')).toBe('_1ns__x');
    expect(flatToolName('n'.repeat(50), 'f'.repeat(50))).toHaveLength(64);
  });

  it('renames a collision with a suffix, reversibly, and gives the same pair the same name', () => {
    const f = new ToolFlattener(['a__b']);
    expect(f.name('a', 'b')).toBe('a__b_2');
    expect(f.name('a.', 'b')).toBe('a___b');
    expect(f.name('a', 'b')).toBe('a__b_2');
    const long = new ToolFlattener([]);
    const first = long.name('n'.repeat(40), `${'f'.repeat(30)}1`);
    const second = long.name('n'.repeat(40), `${'f'.repeat(30)}2`);
    expect(first).toHaveLength(64);
    expect(second).toBe(`${first.slice(0, 62)}_2`);
    expect(long.renames[second]).toEqual({ name: `${'f'.repeat(30)}2`, namespace: 'n'.repeat(40) });
  });
});

describe('namespace tools through the responses translators', () => {
  const body = {
    model: 'm',
    tools: [fn('shell'), MULTI_AGENT, fn('multi_agent_v1__wait')],
    input: [
      { type: 'message', role: 'user', content: 'start a helper' },
      { type: 'function_call', call_id: 'call_1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"id":"a"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'started' },
    ],
  };

  it('offers each function under its flat name, without a built-in warning, and renames earlier calls alike', () => {
    const conv = decodeResponsesRequest(body);
    expect(conv.tools.map((t) => t.name)).toEqual([
      'shell', 'multi_agent_v1__spawn_agent', 'multi_agent_v1__send_input', 'multi_agent_v1__wait_2', 'multi_agent_v1__close_agent',
      'multi_agent_v1__resume_agent', 'multi_agent_v1__wait',
    ]);
    expect(conv.tools[1]).toMatchObject({ description: 'spawn_agent it', parameters: { type: 'object' } });
    expect(conv.warnings).toEqual([]);
    expect(conv.turns[1].parts[0]).toMatchObject({ type: 'tool_call', name: 'multi_agent_v1__spawn_agent' });
    expect(conv.turns[2].parts[0]).toMatchObject({ type: 'tool_result', name: 'multi_agent_v1__spawn_agent' });
    expect(conv.toolRenames?.['multi_agent_v1__wait_2']).toEqual({ name: 'wait', namespace: 'multi_agent_v1' });
    expect(conv.toolRenames?.['multi_agent_v1__wait']).toBeUndefined();
  });

  it('maps calls back into their namespace in whole and streamed answers', () => {
    const request = decodeResponsesRequest(body);
    const reply = encodeResponsesResponse({
      id: 'r1', model: 'm', stopReason: 'tool_use', usage: { source: 'unknown' },
      parts: [
        { type: 'tool_call', id: 'call_2', name: 'multi_agent_v1__wait_2', arguments: {}, argumentsText: '{}' },
        { type: 'tool_call', id: 'call_3', name: 'multi_agent_v1__wait', arguments: {}, argumentsText: '{}' },
      ],
    }, { request });
    expect(reply.output).toMatchObject([
      { type: 'function_call', name: 'wait', namespace: 'multi_agent_v1', call_id: 'call_2' },
      { type: 'function_call', name: 'multi_agent_v1__wait', call_id: 'call_3' },
    ]);
    expect(reply.output[1]).not.toHaveProperty('namespace');
    const enc = new ResponsesStreamEncoder({ request });
    const out = [
      { type: 'start', id: 's', model: 'm' }, { type: 'part_start', index: 0, part: { kind: 'tool_call', id: 'call_4', name: 'multi_agent_v1__spawn_agent' } },
      { type: 'tool_args_delta', index: 0, json: '{}' }, { type: 'part_end', index: 0 }, { type: 'stop', reason: 'tool_use' },
    ].flatMap((e) => enc.push(e as Parameters<ResponsesStreamEncoder['push']>[0]));
    const items = out.filter((e) => e.type === 'response.output_item.added' || e.type === 'response.output_item.done').map((e) => (e as { item: unknown }).item);
    expect(items).toMatchObject([{ name: 'spawn_agent', namespace: 'multi_agent_v1' }, { name: 'spawn_agent', namespace: 'multi_agent_v1' }]);
  });

  it('sends a responses upstream the namespace whole and earlier calls with their namespace', () => {
    const req = encodeResponsesRequest(decodeResponsesRequest(body));
    expect(req.tools?.map((t) => `${t.type}:${String(t.name)}`)).toEqual(['function:shell', 'function:multi_agent_v1__wait', 'namespace:multi_agent_v1']);
    expect(req.input).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' }));
  });

  it('drops a custom tool inside a namespace with a warning', () => {
    const conv = decodeResponsesRequest({ model: 'm', input: 'x', tools: [{ type: 'namespace', name: 'ns', tools: [fn('f'), { type: 'custom', name: 'patch' }] }] });
    expect(conv.tools.map((t) => t.name)).toEqual(['ns__f']);
    expect(conv.warnings).toEqual(['The custom tool patch of namespace ns was dropped: only a responses-style upstream can run it.']);
  });
});
