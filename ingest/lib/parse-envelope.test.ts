import { describe, expect, it } from 'vitest';
import { parseEnvelope, type Envelope } from './parse-envelope.ts';

const b = (s: string) => Buffer.from(s, 'utf8');
const payloads = (e: Envelope) => e.items.map((i) => i.payload.toString('utf8'));
const types = (e: Envelope) => e.items.map((i) => i.headers.type);

function refusal(body: string | Buffer, maxEventBytes?: number): string {
  try {
    parseEnvelope(typeof body === 'string' ? b(body) : body, { maxEventBytes });
  } catch (e) {
    const err = e as { status: number; code: string };
    return `${err.status} ${err.code}`;
  }
  return 'parsed';
}

const ID = '9ec79c33ec9942ab8353589fcb2e04dc';

describe('parseEnvelope: framing', () => {
  it('parses the example from the protocol documentation', () => {
    const env = parseEnvelope(b(
      `{"event_id":"${ID}","dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42"}\n` +
        '{"type":"attachment","length":10,"content_type":"text/plain","filename":"hello.txt"}\n' +
        '\ufeffHello\r\n\n' +
        '{"type":"event","length":41,"content_type":"application/json","filename":"application.log"}\n' +
        '{"message":"hello world","level":"error"}\n',
    ));
    expect(env.headers.event_id).toBe(ID);
    expect(types(env)).toEqual(['attachment', 'event']);
    expect(env.items[1].payload.toString()).toBe('{"message":"hello world","level":"error"}');
    expect(env.items[0].headers).toMatchObject({ length: 10, content_type: 'text/plain', filename: 'hello.txt' });
  });

  it('counts length in bytes, not characters', () => {
    const payload = '{"m":"héllo ✓"}';
    const env = parseEnvelope(b(`{}\n{"type":"event","length":${Buffer.byteLength(payload)}}\n${payload}\n`));
    expect(payloads(env)).toEqual([payload]);
  });

  it('reads payloads without length up to the next newline or the end', () => {
    const env = parseEnvelope(b('{}\n{"type":"session"}\n{"sid":"a"}\n{"type":"event"}\n{"message":"x"}'));
    expect(types(env)).toEqual(['session', 'event']);
    expect(payloads(env)).toEqual(['{"sid":"a"}', '{"message":"x"}']);
  });

  it('treats only \\n as a newline: a \\r belongs to the payload', () => {
    const env = parseEnvelope(b('{}\r\n{"type":"attachment"}\r\nab\r\n{"type":"attachment","length":3}\nxy\r\n'));
    expect(payloads(env)).toEqual(['ab\r', 'xy\r']);
  });

  it('lets a payload with length contain newlines', () => {
    const env = parseEnvelope(b('{}\n{"type":"attachment","length":6}\na\nb\n\nc\n{"type":"log"}\n{}'));
    expect(payloads(env)).toEqual(['a\nb\n\nc', '{}']);
  });

  it('accepts zero-length items, with or without length', () => {
    const env = parseEnvelope(b('{}\n{"type":"attachment","length":0}\n\n{"type":"attachment"}\n\n{"type":"event","length":2}\n{}'));
    expect(payloads(env)).toEqual(['', '', '{}']);
  });

  it('accepts a last item header with no newline and no payload', () => {
    expect(payloads(parseEnvelope(b('{}\n{"type":"attachment","length":0}')))).toEqual(['']);
    expect(payloads(parseEnvelope(b('{}\n{"type":"attachment"}')))).toEqual(['']);
  });

  it('makes the final newline optional', () => {
    expect(payloads(parseEnvelope(b('{}\n{"type":"event","length":2}\n{}')))).toEqual(['{}']);
    expect(payloads(parseEnvelope(b('{}\n{"type":"event","length":2}\n{}\n')))).toEqual(['{}']);
  });

  it('accepts an envelope with a header and no items', () => {
    expect(parseEnvelope(b('{}')).items).toEqual([]);
    expect(parseEnvelope(b('{}\n')).items).toEqual([]);
    expect(parseEnvelope(b(`{"event_id":"${ID}"}\n`)).headers.event_id).toBe(ID);
  });

  it('skips blank lines where an item header is expected', () => {
    const env = parseEnvelope(b('{}\n\n{"type":"event"}\n{}\n\r\n  \n'));
    expect(types(env)).toEqual(['event']);
  });

  it('returns views into the body, not copies', () => {
    const body = b('{}\n{"type":"event","length":2}\n{}');
    const env = parseEnvelope(body);
    expect(env.items[0].payload.buffer).toBe(body.buffer);
  });
});

describe('parseEnvelope: refusals', () => {
  it.each([
    ['an empty body', ''],
    ['a header that is not JSON', 'hello\n'],
    ['a header that is not an object', '[1]\n'],
    ['a null header', 'null\n'],
    ['an item header that is not JSON', '{}\n{"type":"event"\n{}'],
    ['an item header that is not an object', '{}\n"event"\n{}'],
    ['an item header missing type', '{}\n{"length":2}\n{}'],
    ['an item with an empty type', '{}\n{"type":""}\n{}'],
    ['an item with a type that is not a string', '{}\n{"type":1}\n{}'],
    ['a length followed by something else than a newline', '{}\n{"type":"event","length":2}\n{}x\n'],
    ['a length past the end', '{}\n{"type":"event","length":20}\n{}\n'],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}\n'],
    ['a fractional length', '{}\n{"type":"event","length":1.5}\n{}\n'],
    ['a string length', '{}\n{"type":"event","length":"2"}\n{}\n'],
    ['two event items', '{}\n{"type":"event"}\n{}\n{"type":"event"}\n{}\n'],
  ])('refuses %s with 400 invalid_envelope', (_name, body) => {
    expect(refusal(body)).toBe('400 invalid_envelope');
  });

  it('refuses a malformed envelope event_id with 400 invalid_event_id', () => {
    expect(refusal('{"event_id":"nope"}\n')).toBe('400 invalid_event_id');
  });

  it('refuses an oversized event item with 413 event_too_large', () => {
    expect(refusal(`{}\n{"type":"event"}\n{"m":"${'x'.repeat(100)}"}`, 50)).toBe('413 event_too_large');
    // Other item types are not held to the event limit (they are dropped later anyway).
    expect(refusal(`{}\n{"type":"attachment"}\n${'x'.repeat(100)}`, 50)).toBe('parsed');
  });

  it('says which item is malformed', () => {
    try {
      parseEnvelope(b('{}\n{"type":"session"}\n{}\n{"length":1}\nx'));
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'invalid_envelope', details: { item: 1 } });
      expect((e as Error).message).toMatch(/no type/);
    }
  });
});

describe('parseEnvelope: headers', () => {
  it('normalises the envelope event_id and keeps dsn, sdk, sent_at and trace', () => {
    const env = parseEnvelope(b(JSON.stringify({
      event_id: '9EC79C33-EC99-42AB-8353-589FCB2E04DC',
      dsn: 'https://pk@example.com/1',
      sdk: { name: 'sentry.javascript.node', version: '8.0.0', integrations: ['x'] },
      sent_at: '2024-05-06T07:08:09.123Z',
      trace: { trace_id: 'a'.repeat(32), public_key: 'pk', sample_rate: '1' },
    })));
    expect(env.headers).toEqual({
      event_id: ID,
      dsn: 'https://pk@example.com/1',
      sdk: { name: 'sentry.javascript.node', version: '8.0.0', integrations: ['x'] },
      sent_at: '2024-05-06T07:08:09.123Z',
      trace: { trace_id: 'a'.repeat(32), public_key: 'pk', sample_rate: '1' },
    });
  });

  it('keeps unknown envelope headers unchanged', () => {
    const env = parseEnvelope(b('{"future_header":{"a":[1,2]},"x":null}\n'));
    expect(env.headers).toEqual({ future_header: { a: [1, 2] }, x: null });
  });

  it('drops bad optional headers instead of failing', () => {
    const env = parseEnvelope(b(JSON.stringify({
      sent_at: 'last tuesday', trace: { trace_id: 12 }, sdk: 'node', dsn: 7, other: 'kept',
    }) + '\n{"type":"event"}\n{}'));
    expect(env.headers).toEqual({ other: 'kept' });
    expect(env.items).toHaveLength(1);
    expect(parseEnvelope(b('{"trace":"abc","event_id":null}')).headers).toEqual({});
  });

  it('keeps known and unknown item headers; drops bad optional ones', () => {
    const env = parseEnvelope(b('{}\n{"type":"attachment","length":1,"filename":"a.txt","attachment_type":"event.attachment","item_count":3,"custom":true}\nx\n{"type":"sessions","filename":5,"item_count":-1,"content_type":null,"length":null}\n{}'));
    expect(env.items[0].headers).toEqual({ type: 'attachment', length: 1, filename: 'a.txt', attachment_type: 'event.attachment', item_count: 3, custom: true });
    expect(env.items[1].headers).toEqual({ type: 'sessions' });
  });

  it('keeps unknown item types (classification happens later)', () => {
    expect(types(parseEnvelope(b('{}\n{"type":"something_new"}\n{}')))).toEqual(['something_new']);
  });
});
