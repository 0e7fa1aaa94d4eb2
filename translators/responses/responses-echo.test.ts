import { describe, expect, it } from 'vitest';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { responsesEcho } from './responses-echo.ts';
import { ResponsesStreamEncoder } from './responses-stream-encoder.ts';

const params = { type: 'object', properties: {} };
const request = decodeResponsesRequest({
  model: 'm', instructions: 'Be brief.', input: 'hi', temperature: 0.3, top_p: 0.9, tool_choice: 'required', parallel_tool_calls: false,
  metadata: { run: '7' },
  tools: [
    { type: 'function', name: 'shell', parameters: params, strict: false },
    { type: 'namespace', name: 'ns', description: 'Group', tools: [{ type: 'function', name: 'f', parameters: params }] },
    { type: 'web_search' },
  ],
});
const echoed = {
  instructions: 'Be brief.', tool_choice: 'required', parallel_tool_calls: false, temperature: 0.3, top_p: 0.9, metadata: { run: '7' },
  tools: [
    { type: 'function', name: 'shell', parameters: params, strict: false },
    { type: 'namespace', name: 'ns', description: 'Group', tools: [{ type: 'function', name: 'f', parameters: params }] },
    { type: 'web_search' },
  ],
};

describe('the response repeats its request', () => {
  it('in a whole answer, with namespaces whole as the client sent them', () => {
    const res = encodeResponsesResponse({ id: 'r', model: 'm', parts: [{ type: 'text', text: 'x' }], stopReason: 'end', usage: { source: 'unknown' } }, { request });
    expect(res).toMatchObject(echoed);
  });

  it('in every response object of a stream', () => {
    const enc = new ResponsesStreamEncoder({ request });
    const out = [...enc.push({ type: 'start', id: 's', model: 'm' }), ...enc.push({ type: 'stop', reason: 'end' })];
    expect(out.map((e) => (e as { response?: unknown }).response)).toEqual([expect.objectContaining(echoed), expect.objectContaining(echoed), expect.objectContaining(echoed)]);
  });

  it('is null or neutral without a request', () => {
    expect(responsesEcho(undefined)).toEqual({ instructions: null, tools: [], tool_choice: 'auto', parallel_tool_calls: true, temperature: null, top_p: null, metadata: null });
  });
});
