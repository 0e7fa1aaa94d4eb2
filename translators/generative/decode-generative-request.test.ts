import { describe, expect, it } from 'vitest';
import { isTranslationError } from '../translation-error.ts';
import { decodeGenerativeCountTokensRequest, decodeGenerativeRequest } from './decode-generative-request.ts';

const body = {
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBOR' } }] },
    { role: 'model', parts: [
      { text: 'thinking…', thought: true },
      { functionCall: { name: 'get_w', args: { city: 'Oslo' } }, thoughtSignature: 'sig-1' },
      { functionCall: { name: 'get_w', args: { city: 'Paris' } } },
    ] },
    { role: 'user', parts: [
      { functionResponse: { name: 'get_w', response: { output: '3C' } } },
      { functionResponse: { name: 'get_w', response: { temp: 12 } } },
    ] },
  ],
  tools: [{ functionDeclarations: [{ name: 'get_w', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'] } }] }],
  toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_w'] } },
  generationConfig: {
    maxOutputTokens: 1024, temperature: 0.7, topP: 0.9, topK: 40, stopSequences: ['END'],
    responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { a: { type: 'INTEGER' } } },
    thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
  },
};

describe('decodeGenerativeRequest', () => {
  it('decodes system, roles, parts, tools, tool choice and sampling', () => {
    const conv = decodeGenerativeRequest(body, 'models/gemini-2.5-pro', { stream: true });
    expect(conv.model).toBe('gemini-2.5-pro');
    expect(conv.stream).toBe(true);
    expect(conv.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(conv.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(conv.turns[0].parts[1]).toEqual({ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } });
    expect(conv.turns[1].parts[0]).toEqual({ type: 'thinking', text: 'thinking…', origin: 'generative' });
    expect(conv.turns[1].parts[1]).toMatchObject({ type: 'tool_call', id: 'gcall_t1_0', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}', signature: 'sig-1', origin: 'generative' });
    expect(conv.tools[0]).toEqual({ name: 'get_w', description: 'Weather', parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'] } });
    expect(conv.toolChoice).toEqual({ name: 'get_w' });
    expect(conv.sampling).toEqual({ maxTokens: 1024, temperature: 0.7, topP: 0.9, topK: 40, stop: ['END'] });
    expect(conv.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'integer' } } } });
    expect(conv.reasoning).toEqual({ budgetTokens: 2048, summary: 'auto' });
  });

  it('pairs results without ids with the calls of the previous model turn, by name and order', () => {
    const conv = decodeGenerativeRequest(body, 'm');
    const results = conv.turns[2].parts;
    expect(results[0]).toEqual({ type: 'tool_result', callId: 'gcall_t1_0', name: 'get_w', content: [{ type: 'text', text: '3C' }], isError: false });
    expect(results[1]).toMatchObject({ callId: 'gcall_t1_1', content: [{ type: 'text', text: '{"temp":12}' }] });
  });

  it('keeps ids Gemini sent and decodes error responses', () => {
    const conv = decodeGenerativeRequest({ contents: [
      { role: 'model', parts: [{ functionCall: { id: 'abc', name: 'f', args: {} } }] },
      { role: 'function', parts: [{ functionResponse: { id: 'abc', name: 'f', response: { error: 'boom' } } }] },
    ] }, 'm');
    expect(conv.turns[0].parts[0]).toMatchObject({ id: 'abc' });
    expect(conv.turns[1]).toEqual({ role: 'user', parts: [{ type: 'tool_result', callId: 'abc', name: 'f', content: [{ type: 'text', text: 'boom' }], isError: true }] });
  });

  it('accepts snake_case field names without touching arguments', () => {
    const conv = decodeGenerativeRequest({
      system_instruction: { parts: [{ text: 'S' }] },
      contents: [{ role: 'model', parts: [{ function_call: { name: 'f', args: { user_id: 1 } } }] }],
      generation_config: { max_output_tokens: 5, thinking_config: { thinking_budget: 0 } },
    }, 'm');
    expect(conv.system[0].text).toBe('S');
    expect(conv.turns[0].parts[0]).toMatchObject({ arguments: { user_id: 1 } });
    expect(conv.sampling.maxTokens).toBe(5);
    expect(conv.reasoning).toEqual({ effort: 'none' });
  });

  it('turns a text-part signature into an empty thinking part and fileData into URL or file sources', () => {
    const conv = decodeGenerativeRequest({ contents: [
      { role: 'user', parts: [
        { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } },
        { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/x' } },
      ] },
      { role: 'model', parts: [{ text: 'Hi', thoughtSignature: 'S' }] },
    ] }, 'm');
    expect(conv.turns[0].parts).toEqual([
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg', mediaType: 'image/jpeg' } },
      { type: 'document', source: { kind: 'file', fileId: 'https://generativelanguage.googleapis.com/v1beta/files/x', mediaType: 'application/pdf' } },
    ]);
    expect(conv.turns[1].parts).toEqual([{ type: 'text', text: 'Hi' }, { type: 'thinking', text: '', signature: 'S', origin: 'generative' }]);
  });

  it('maps tool modes, thinking levels, built-in tools and warns about what it drops', () => {
    const conv = decodeGenerativeRequest({
      contents: [{ parts: [{ text: 'x' }, { executableCode: { code: '1' } }] }],
      tools: [{ googleSearch: {} }],
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
      generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' }, candidateCount: 2 },
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
    }, 'm');
    expect(conv.toolChoice).toBe('none');
    expect(conv.reasoning).toEqual({ effort: 'high' });
    expect(conv.candidates).toBe(2);
    expect(conv.extras.generative).toEqual({ builtinTools: [{ googleSearch: {} }], safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }] });
    expect(conv.warnings.length).toBe(2);
  });

  it('refuses a body without contents', () => {
    let err: unknown;
    try {
      decodeGenerativeRequest({ prompt: 'x' }, 'm');
    } catch (e) {
      err = e;
    }
    expect(isTranslationError(err)).toBe(true);
  });

  it('decodes both countTokens body forms', () => {
    const a = decodeGenerativeCountTokensRequest({ contents: [{ role: 'user', parts: [{ text: 'a' }] }] }, 'm');
    const b = decodeGenerativeCountTokensRequest({ generateContentRequest: { model: 'models/m', contents: [{ role: 'user', parts: [{ text: 'a' }] }], systemInstruction: { parts: [{ text: 's' }] } } }, 'm');
    expect(a.turns).toEqual(b.turns);
    expect(b.system).toEqual([{ type: 'text', text: 's' }]);
  });
});
