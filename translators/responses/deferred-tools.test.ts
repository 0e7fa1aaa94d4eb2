import { describe, expect, it } from 'vitest';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesRequest } from './encode-responses-request.ts';

const params = { type: 'object', properties: {} };
const TOOLS = [
  { type: 'function', name: 'shell', parameters: params },
  { type: 'function', name: 'lookup', parameters: params, defer_loading: true },
  { type: 'namespace', name: 'crm', description: 'CRM', tools: [
    { type: 'function', name: 'find', parameters: params, defer_loading: true },
    { type: 'function', name: 'list', parameters: params },
  ] },
  { type: 'tool_search' },
];

describe('responses deferred tools', () => {
  it('leaves out deferred functions no search loaded, with one warning', () => {
    const conv = decodeResponsesRequest({ model: 'm', input: 'x', tools: TOOLS });
    expect(conv.tools.map((t) => t.name)).toEqual(['shell', 'crm__list']);
    expect(conv.warnings).toEqual([
      'The built-in tool tool_search was dropped: only a responses-style upstream can run it.',
      '2 deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: lookup, crm.find.',
    ]);
  });

  it('offers those a tool_search_output listed or an earlier call used', () => {
    const conv = decodeResponsesRequest({
      model: 'm', tools: TOOLS,
      input: [
        { role: 'user', content: 'find a customer' },
        { type: 'tool_search_call', id: 'ts_1', call_id: 'c0', execution: 'client', arguments: { query: 'crm' }, status: 'completed' },
        { type: 'tool_search_output', call_id: 'c0', execution: 'client', tools: [{ type: 'namespace', name: 'crm', description: 'CRM', tools: [{ type: 'function', name: 'find', parameters: params }] }] },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'none' },
      ],
    });
    expect(conv.tools.map((t) => t.name)).toEqual(['shell', 'lookup', 'crm__find', 'crm__list']);
    expect(conv.warnings.filter((w) => w.includes('deferred'))).toEqual([]);
  });

  it('keeps them for a responses upstream', () => {
    const req = encodeResponsesRequest(decodeResponsesRequest({ model: 'm', input: 'x', tools: TOOLS }));
    expect(req.tools?.map((t) => `${t.type}:${String(t.name)}`)).toEqual(['function:shell', 'function:lookup', 'namespace:crm', 'tool_search:undefined']);
  });
});
