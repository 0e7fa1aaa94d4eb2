import { describe, expect, it } from 'vitest';
import type { Conversation } from '../model.ts';
import { decodeGenerativeRequest } from './decode-generative-request.ts';
import { encodeGenerativeRequest, generativeAcceptsCallIds } from './encode-generative-request.ts';
import { SKIP_THOUGHT_SIGNATURE } from './generative-parts.ts';

function conv(over: Partial<Conversation>): Conversation {
  return { model: 'm', system: [], turns: [], tools: [], sampling: {}, stream: false, extras: {}, warnings: [], ...over };
}

describe('encodeGenerativeRequest', () => {
  it('encodes a chat-like transcript: system, model role, merged tool turns in call order, names from calls', () => {
    const req = encodeGenerativeRequest(conv({
      model: 'gemini-3-pro-preview',
      system: [{ type: 'text', text: 'Be brief.' }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather?' }, { type: 'image', source: { kind: 'url', url: 'data:image/png;base64,AAA' } }] },
        { role: 'assistant', parts: [
          { type: 'text', text: '' },
          { type: 'tool_call', id: 'call_a', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'call_b', name: 'get_t', arguments: {}, argumentsText: '{}' },
        ] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_b', content: [{ type: 'text', text: '12:00' }], isError: false }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_a', content: [{ type: 'text', text: '{"temp":3}' }], isError: false }] },
        { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
      ],
    }));
    expect(req.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(req.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'AAA' } }] },
      { role: 'model', parts: [
        { functionCall: { id: 'call_a', name: 'get_w', args: { city: 'Oslo' } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
        { functionCall: { id: 'call_b', name: 'get_t', args: {} } },
      ] },
      { role: 'user', parts: [
        { functionResponse: { id: 'call_a', name: 'get_w', response: { temp: 3 } } },
        { functionResponse: { id: 'call_b', name: 'get_t', response: { output: '12:00' } } },
        { text: 'Answer in French.' },
      ] },
    ]);
  });

  it('sends image URLs as fileData, drops foreign thinking, replays Gemini signatures', () => {
    const req = encodeGenerativeRequest(conv({
      turns: [
        { role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png?x=1' } }] },
        { role: 'assistant', parts: [
          { type: 'thinking', text: 'mine', signature: 'anthropic-sig', origin: 'messages' },
          { type: 'redacted_thinking', data: 'x' },
          { type: 'thinking', text: 'gem', origin: 'generative' },
          { type: 'text', text: 'Hi' },
          { type: 'thinking', text: '', signature: 'g-sig', origin: 'generative' },
        ] },
      ],
    }));
    expect(req.contents[0].parts).toEqual([{ fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png?x=1' } }]);
    expect(req.contents[1].parts).toEqual([{ text: 'gem', thought: true }, { text: 'Hi', thoughtSignature: 'g-sig' }]);
  });

  it('encodes tools (subset → parameters, full schema → parametersJsonSchema), choice, sampling and reasoning', () => {
    const req = encodeGenerativeRequest(conv({
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      tools: [
        { name: 'a', description: 'A', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
        { name: 'b', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } },
        { name: 'c', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: 'required',
      sampling: { maxTokens: 100, temperature: 0.5, topP: 0.8, topK: 3, stop: ['X'] },
      responseFormat: { type: 'json_schema', name: 'r', schema: { type: 'object' } },
      reasoning: { effort: 'low' },
    }));
    expect(req.tools).toEqual([{ functionDeclarations: [
      { name: 'a', description: 'A', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'b', parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } },
      { name: 'c' },
    ] }]);
    expect(req.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(req.generationConfig).toEqual({
      maxOutputTokens: 100, temperature: 0.5, topP: 0.8, topK: 3, stopSequences: ['X'],
      responseMimeType: 'application/json', responseJsonSchema: { type: 'object' },
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
    });
  });

  it('sends call ids to Gemini 3 and later only', () => {
    const turns: Conversation['turns'] = [
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: {}, argumentsText: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'ok' }], isError: false }] },
    ];
    const old = encodeGenerativeRequest(conv({ model: 'gemini-2.5-flash', turns }));
    expect(old.contents.flatMap((c) => c.parts ?? [])).toEqual([
      { functionCall: { name: 'f', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
      { functionResponse: { name: 'f', response: { output: 'ok' } } },
    ]);
    const next = encodeGenerativeRequest(conv({ model: 'gemini-3.1-pro-preview', turns }));
    expect(next.contents.flatMap((c) => c.parts ?? [])).toMatchObject([{ functionCall: { id: 'call_1' } }, { functionResponse: { id: 'call_1' } }]);
    expect(generativeAcceptsCallIds('models/gemini-3-flash')).toBe(true);
    expect(generativeAcceptsCallIds('gemini-flash-latest')).toBe(false);
  });

  it('turns reasoning off with a zero budget and leaves made-up ids out', () => {
    const req = encodeGenerativeRequest(conv({
      model: 'gemini-3-pro',
      turns: [
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'gcall_t0_0', name: 'f', arguments: {}, argumentsText: '{}', signature: 's', origin: 'generative' }] },
        { role: 'user', parts: [{ type: 'tool_result', callId: 'gcall_t0_0', name: 'f', content: [{ type: 'text', text: 'bad' }], isError: true }] },
      ],
      reasoning: { effort: 'none' },
    }));
    expect(req.contents[0].parts).toEqual([{ functionCall: { name: 'f', args: {} }, thoughtSignature: 's' }]);
    expect(req.contents[1].parts).toEqual([{ functionResponse: { name: 'f', response: { error: 'bad' } } }]);
    expect(req.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it('does not take the signature placeholder back as a signature', () => {
    const conv = decodeGenerativeRequest({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }] }] }, 'm');
    expect(conv.turns[0].parts[0]).not.toHaveProperty('signature');
  });

  it('round-trips a generative request through the internal model', () => {
    const original = {
      systemInstruction: { parts: [{ text: 'S' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'AA' } }] },
        { role: 'model', parts: [{ text: 'th', thought: true, thoughtSignature: 'ts' }, { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'cs' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'ok' } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { maxOutputTokens: 10, stopSequences: ['Z'] },
    };
    expect(encodeGenerativeRequest(decodeGenerativeRequest(original, 'm'))).toEqual(original);
  });
});
