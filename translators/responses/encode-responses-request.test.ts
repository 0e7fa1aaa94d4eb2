import { describe, expect, it } from 'vitest';
import type { Conversation } from '../model.ts';
import { isTranslationError } from '../translation-error.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesRequest } from './encode-responses-request.ts';
import { toCodexRequest } from './to-codex-request.ts';

function conv(over: Partial<Conversation>): Conversation {
  return { model: 'gpt-5', system: [], turns: [], tools: [], sampling: {}, stream: true, extras: {}, warnings: [], ...over };
}

const TRANSCRIPT = conv({
  system: [{ type: 'text', text: 'Be brief.' }],
  turns: [
    { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' }, detail: 'low' }] },
    { role: 'assistant', parts: [
      { type: 'thinking', text: 'Foreign.', signature: 'anthropic', origin: 'messages' },
      { type: 'thinking', text: 'Look it up.', signature: 'gAAAenc', origin: 'responses', itemId: 'rs_1' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'call_a', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
    ] },
    { role: 'user', parts: [{ type: 'tool_result', callId: 'call_a', name: 'get_w', content: [{ type: 'text', text: '3C' }], isError: false }, { type: 'text', text: 'Thanks' }] },
  ],
  tools: [{ name: 'get_w', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  toolChoice: 'auto',
  sampling: { maxTokens: 500, temperature: 1 },
  reasoning: { effort: 'high' },
  sessionKey: 'sess-1',
});

describe('encodeResponsesRequest', () => {
  it('encodes items, instructions, function tools, store:false and encrypted reasoning', () => {
    expect(encodeResponsesRequest(TRANSCRIPT)).toEqual({
      model: 'gpt-5', stream: true, store: false, instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }, { type: 'input_image', image_url: 'data:image/png;base64,AAA', detail: 'low' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look it up.' }], encrypted_content: 'gAAAenc' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'call_a', name: 'get_w', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '3C' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
      tools: [{ type: 'function', name: 'get_w', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
      tool_choice: 'auto',
      max_output_tokens: 500, temperature: 1,
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'sess-1',
    });
  });

  it('round-trips through decodeResponsesRequest (foreign thinking aside)', () => {
    const back = decodeResponsesRequest(encodeResponsesRequest(TRANSCRIPT));
    const expected = structuredClone(TRANSCRIPT);
    expected.turns[1].parts.splice(0, 1);
    expected.turns[2] = { role: 'tool', parts: [expected.turns[2].parts[0]] };
    expected.turns.push({ role: 'user', parts: [{ type: 'text', text: 'Thanks' }] });
    expected.reasoning = { effort: 'high', summary: 'auto' };
    expected.tools[0].strict = false;
    expect({ ...back, extras: {} }).toEqual({ ...expected, extras: {} });
    expect(back.extras).toEqual({});
  });

  it('drops what reasoning models refuse, and what the style has not, with a warning each (sampling-rules.ts)', () => {
    const c = conv({ sampling: { temperature: 0.2, topP: 0.9, seed: 7 }, reasoning: { effort: 'high' } });
    const req = encodeResponsesRequest(c);
    expect(req).not.toHaveProperty('temperature');
    expect(req).not.toHaveProperty('top_p');
    expect(c.warnings).toEqual([
      'seed was dropped: the responses style does not support it.',
      'temperature was dropped: the responses style allows only 1 with reasoning.',
      'top_p was dropped: the responses style does not allow it with reasoning.',
    ]);
    expect(encodeResponsesRequest(conv({ sampling: { temperature: 0.2, topP: 0.9 } }))).toMatchObject({ temperature: 0.2, top_p: 0.9 });
  });

  it('refuses more than one candidate', () => {
    let err: unknown;
    try {
      encodeResponsesRequest(conv({ candidates: 2 }));
    } catch (e) {
      err = e;
    }
    expect(isTranslationError(err)).toBe(true);
  });

  it('sends tool results with images as parts, json_schema as text.format, named tool choice', () => {
    const req = encodeResponsesRequest(conv({
      turns: [{ role: 'tool', parts: [{ type: 'tool_result', callId: 'c', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }], isError: false }] }],
      tools: [{ name: 'f', parameters: { type: 'object' }, strict: true }],
      toolChoice: { name: 'f' },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
    }));
    expect(req.input).toEqual([{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'https://x/y.png' }] }]);
    expect(req.tool_choice).toEqual({ type: 'function', name: 'f' });
    expect(req.tools?.[0]).toMatchObject({ strict: true });
    expect(req.text).toEqual({ format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } });
  });
});

describe('toCodexRequest', () => {
  it('applies the ChatGPT-plan backend rules', () => {
    const req = toCodexRequest({ ...encodeResponsesRequest({ ...TRANSCRIPT, stream: false }), service_tier: 'flex', user: 'u', previous_response_id: 'resp_0' });
    expect(req).not.toHaveProperty('max_output_tokens');
    expect(req).not.toHaveProperty('temperature');
    expect(req).not.toHaveProperty('top_p');
    expect(req).not.toHaveProperty('service_tier');
    expect(req).not.toHaveProperty('user');
    expect(req).not.toHaveProperty('previous_response_id');
    expect(req).toMatchObject({ stream: true, store: false, instructions: '', include: ['reasoning.encrypted_content'] });
    expect(Array.isArray(req.input) && req.input[0]).toEqual({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] });
    expect(Array.isArray(req.input) && req.input.find((i) => i.type === 'reasoning')).not.toHaveProperty('id');
    expect(toCodexRequest({ model: 'm', input: [{ role: 'system', content: 'x' }], service_tier: 'priority' })).toMatchObject({ input: [{ role: 'developer', content: 'x' }], service_tier: 'priority' });
  });
});
