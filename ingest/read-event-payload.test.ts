import { describe, expect, it } from 'vitest';
import { peekEnvelopeDsn, readEventPayload } from './read-event-payload.ts';

describe('readEventPayload', () => {
  it('prefers the envelope header id, then the payload id (dashed forms normalised), then a fresh one', () => {
    expect(readEventPayload(Buffer.from('{"event_id":"' + 'b'.repeat(32) + '"}'), 'a'.repeat(32)).eventId).toBe('a'.repeat(32));
    expect(readEventPayload(Buffer.from('{"event_id":"A3B0C0D0-1111-2222-3333-444455556666"}')).eventId).toBe('a3b0c0d0111122223333444455556666');
    expect(readEventPayload(Buffer.from('{"message":"x"}')).eventId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses what is not a JSON object, or an unreadable id', () => {
    expect(() => readEventPayload(Buffer.from('{"a":'))).toThrow(expect.objectContaining({ code: 'invalid_event' }));
    expect(() => readEventPayload(Buffer.from('[]'))).toThrow(expect.objectContaining({ code: 'invalid_event' }));
    expect(() => readEventPayload(Buffer.from('null'))).toThrow(expect.objectContaining({ code: 'invalid_event' }));
    expect(() => readEventPayload(Buffer.from('{"event_id":"nope"}'))).toThrow(expect.objectContaining({ code: 'invalid_event_id' }));
  });
});

describe('peekEnvelopeDsn', () => {
  it('reads the dsn of the header line only', () => {
    expect(peekEnvelopeDsn(Buffer.from('{"dsn":"http://k@h/1"}\n{"type":"event"}\n{}'))).toBe('http://k@h/1');
    expect(peekEnvelopeDsn(Buffer.from('{}\n{"dsn":"http://k@h/1"}'))).toBeUndefined();
    expect(peekEnvelopeDsn(Buffer.from('{"dsn":'))).toBeUndefined();
    expect(peekEnvelopeDsn(Buffer.from('{"dsn":5}'))).toBeUndefined();
  });
});
