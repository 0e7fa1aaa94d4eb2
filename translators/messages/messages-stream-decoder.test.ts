import { describe, expect, it } from 'vitest';
import { readSseFixture, replay } from '../../test/helpers/sse-fixtures.ts';
import { collectStream } from '../collect-stream.ts';
import { MessagesStreamDecoder, readTextDelta } from './messages-stream-decoder.ts';

const run = (name: string) => replay(new MessagesStreamDecoder(), readSseFixture('messages', name));

describe('MessagesStreamDecoder', () => {
  it('decodes text and lets message_delta usage override message_start', () => {
    const events = run('text.sse.txt');
    expect(events[0]).toEqual({ type: 'start', id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-4-5-20250929' });
    const { reply, complete } = collectStream(events);
    expect(complete).toBe(true);
    expect(reply.parts).toEqual([{ type: 'text', text: 'Oslo is 3°C and cloudy.' }]);
    expect(reply.stopReason).toBe('end');
    expect(reply.usage).toEqual({ source: 'reported', inputTokens: 61, cacheWriteTokens: 0, cacheReadTokens: 2048, outputTokens: 12 });
  });

  it('decodes several tool calls, including one without arguments', () => {
    const { reply } = collectStream(run('tool-use.sse.txt'));
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.parts).toEqual([
      { type: 'text', text: 'Checking both cities.' },
      { type: 'tool_call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city": "Oslo"}' },
      { type: 'tool_call', id: 'toolu_01BergenWeather22', name: 'get_weather', arguments: { city: 'Bergen', unit: 'c' }, argumentsText: '{"city": "Bergen", "unit": "c"}' },
      { type: 'tool_call', id: 'toolu_01NoArgsClock333', name: 'get_time', arguments: {}, argumentsText: '' },
    ]);
    expect(reply.usage).toMatchObject({ inputTokens: 472, cacheWriteTokens: 1200, outputTokens: 89 });
  });

  it('keeps thinking with its signature, and redacted thinking, marked as messages-family', () => {
    const { reply } = collectStream(run('thinking.sse.txt'));
    expect(reply.parts[0]).toMatchObject({ type: 'thinking', text: '17 times 3 is 51. Double-check: 10*3=30, 7*3=21.', origin: 'messages' });
    expect(reply.parts[0].type === 'thinking' && reply.parts[0].signature).toMatch(/^EqQBCgIYAhIM/);
    expect(reply.parts[1]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP', origin: 'messages' });
    expect(reply.parts[2]).toEqual({ type: 'text', text: '51' });
    expect(reply.usage).toMatchObject({ outputTokens: 140, reasoningTokens: 120 });
  });

  it('reports the matched stop sequence', () => {
    const { reply } = collectStream(run('stop-sequence.sse.txt'));
    expect(reply.stopReason).toBe('stop_sequence');
    expect(reply.stopSequence).toBe(', 5');
  });

  it('turns an error event after 200 into an error, with 529 for overloaded', () => {
    const events = run('error-midstream.sse.txt');
    expect(events.at(-1)).toEqual({ type: 'error', error: { status: 529, type: 'overloaded', code: 'overloaded_error', message: 'Overloaded' } });
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('ends a stream cut before message_stop with an error', () => {
    const events = run('truncated.sse.txt');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { status: 502, type: 'server' } });
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('accepts a stream that gave its stop reason but lost message_stop', () => {
    const d = new MessagesStreamDecoder();
    d.push({ event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1, output_tokens: 1 } } }) });
    d.push({ event: 'message_delta', data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 5 } }) });
    expect(d.end().at(-1)).toEqual({ type: 'stop', reason: 'max_tokens' });
  });

  it('skips blocks it cannot represent, with their deltas', () => {
    const d = new MessagesStreamDecoder();
    const ev = (o: object) => d.push({ data: JSON.stringify(o) });
    const events = [
      ...ev({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1, output_tokens: 1 } } }),
      ...ev({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
      ...ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      ...ev({ type: 'content_block_stop', index: 0 }),
      ...ev({ type: 'message_stop' }),
    ];
    expect(events.map((e) => e.type)).toEqual(['start', 'usage', 'stop']);
  });
});

describe('readTextDelta (the text-delta fast path)', () => {
  const wire = (index: number, text: string) => JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

  it('reads what JSON.parse reads from the API’s own shape, whatever the text', () => {
    for (const text of ['Hello', '', 'a "quoted" word', 'back\\slash', 'line\nbreak', 'emoji 🦊 ünï', '}}', '","x":"y', '\u2028']) {
      for (const index of [0, 7, 123]) {
        expect(readTextDelta(wire(index, text))).toEqual({ index, text });
        // As the SSE parser hands it over: a slice of the chunk's text.
        const chunk = `event: content_block_delta\ndata: ${wire(index, text)}\n\n`;
        expect(readTextDelta(chunk.slice(chunk.indexOf('{'), chunk.lastIndexOf('}') + 1))).toEqual({ index, text });
      }
    }
  });

  it('leaves every other shape to JSON.parse', () => {
    const others = [
      '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}',
      '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","extra":1}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"more":true}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"}}',
      '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":1}}',
      `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"raw${'\n'}line break"}}`,
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"}}',
    ];
    others.push('', '}', '}}', '{"type":"content_block_delta","index":}}', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text"}}');
    for (const data of others) expect(readTextDelta(data), data).toBeUndefined();
  });

  it('gives the same events as the parsed path', () => {
    const events = (fastShape: boolean) => {
      const d = new MessagesStreamDecoder();
      const data = (text: string) => (fastShape ? JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }) : JSON.stringify({ index: 0, type: 'content_block_delta', delta: { text, type: 'text_delta' } }));
      return [
        { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 3, output_tokens: 1 } } }) },
        { event: 'content_block_start', data: JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) },
        { event: 'content_block_delta', data: data('Hel') },
        { event: 'content_block_delta', data: data('') },
        { event: 'content_block_delta', data: data('lo "x"') },
        { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 5, delta: { type: 'text_delta', text: 'no such block' } }) },
        { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
        { event: 'message_delta', data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }) },
        { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
      ].flatMap((ev) => d.push(ev));
    };
    expect(events(true)).toEqual(events(false));
    expect(events(true).filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text)).toEqual(['Hel', 'lo "x"']);
  });
});
