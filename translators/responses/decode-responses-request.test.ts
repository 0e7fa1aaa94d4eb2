import { describe, expect, it } from 'vitest';
import { isTranslationError } from '../translation-error.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';

describe('decodeResponsesRequest', () => {
  it('decodes a string input and leading developer messages as instructions', () => {
    const conv = decodeResponsesRequest({ model: 'gpt-5', instructions: 'A', input: 'Hi', stream: true });
    expect(conv).toMatchObject({ model: 'gpt-5', system: [{ type: 'text', text: 'A' }], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: true });
    const items = decodeResponsesRequest({ model: 'm', input: [
      { role: 'developer', content: 'D' },
      { role: 'user', content: [{ type: 'input_text', text: 'Q' }, { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' }] },
      { role: 'system', content: 'Later' },
    ] });
    expect(items.system).toEqual([{ type: 'text', text: 'D' }]);
    expect(items.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Q' }, { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, filename: 'a.pdf' }] },
      { role: 'system', parts: [{ type: 'text', text: 'Later' }] },
    ]);
  });

  it('groups calls and reasoning into the assistant turn and names results from their calls', () => {
    const conv = decodeResponsesRequest({ model: 'm', input: [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'a' }, { type: 'summary_text', text: 'b' }], encrypted_content: 'enc' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Ok', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"x":1}' },
      { type: 'function_call', call_id: 'c2', name: 'g', arguments: 'not json' },
      { type: 'function_call_output', call_id: 'c2', output: 'done' },
      { type: 'web_search_call', id: 'ws_1' },
    ] });
    expect(conv.turns).toEqual([
      { role: 'assistant', parts: [
        { type: 'thinking', text: 'a\n\nb', signature: 'enc', origin: 'responses', itemId: 'rs_1' },
        { type: 'text', text: 'Ok' },
        { type: 'tool_call', id: 'c1', name: 'f', arguments: { x: 1 }, argumentsText: '{"x":1}' },
        { type: 'tool_call', id: 'c2', name: 'g', arguments: {}, argumentsText: 'not json' },
      ] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'c2', name: 'g', content: [{ type: 'text', text: 'done' }], isError: false }] },
    ]);
    expect(conv.warnings).toHaveLength(1);
  });

  it('decodes tools, choices, sampling, reasoning and format, keeping the rest as extras', () => {
    const conv = decodeResponsesRequest({
      model: 'm', input: [], tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }, { type: 'web_search' }],
      tool_choice: { type: 'function', name: 'f' }, parallel_tool_calls: false, max_output_tokens: 9, temperature: 1, top_p: 0.5,
      reasoning: { effort: 'low', summary: 'detailed' }, text: { format: { type: 'json_object' }, verbosity: 'low' },
      prompt_cache_key: 'k', metadata: { a: 'b' }, previous_response_id: 'resp_x',
    });
    expect(conv.tools).toEqual([{ name: 'f', parameters: { type: 'object' }, strict: true }]);
    expect(conv.toolChoice).toEqual({ name: 'f' });
    expect(conv.parallelToolCalls).toBe(false);
    expect(conv.sampling).toEqual({ maxTokens: 9, temperature: 1, topP: 0.5 });
    expect(conv.reasoning).toEqual({ effort: 'low', summary: 'detailed' });
    expect(conv.responseFormat).toEqual({ type: 'json' });
    expect(conv.sessionKey).toBe('k');
    expect(conv.extras.responses).toEqual({ builtinTools: [{ type: 'web_search' }], verbosity: 'low', metadata: { a: 'b' }, previous_response_id: 'resp_x' });
    expect(conv.warnings).toHaveLength(2);
  });

  it('drops an item_reference with a warning that names it and says how to avoid it', () => {
    const conv = decodeResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, { type: 'item_reference', id: 'msg_abc' }, { role: 'user', content: 'more' }] });
    expect(conv.turns.map((t) => t.role)).toEqual(['user', 'user']);
    expect(conv.warnings).toEqual(['input[1] (item_reference msg_abc) was dropped: no stored response was at hand to resolve it; send the items themselves (store: false).']);
  });

  it('drops built-in tools with a warning and refuses a tool_choice that forces one', () => {
    const conv = decodeResponsesRequest({ model: 'm', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }], tool_choice: 'auto' });
    expect(conv.tools).toEqual([]);
    expect(conv.warnings).toEqual(['The built-in tool file_search was dropped: only a responses-style upstream can run it.']);
    let err: unknown;
    try {
      decodeResponsesRequest({ model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } });
    } catch (e) {
      err = e;
    }
    expect(isTranslationError(err) && err.param).toBe('tool_choice');
    expect((err as Error).message).toContain('web_search');
  });

  it('refuses bodies without model or input', () => {
    for (const body of [null, { input: 'x' }, { model: 'm' }]) {
      let err: unknown;
      try {
        decodeResponsesRequest(body);
      } catch (e) {
        err = e;
      }
      expect(isTranslationError(err)).toBe(true);
    }
  });
});
