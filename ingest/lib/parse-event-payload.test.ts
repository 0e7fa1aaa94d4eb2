import { describe, expect, it } from 'vitest';
import { parseEventPayload } from './parse-event-payload.ts';

describe('parseEventPayload', () => {
  it('parses a JSON object, UTF-8 included', () => {
    expect(parseEventPayload(Buffer.from('{"message":"héllo ✓"}'))).toEqual({ message: 'héllo ✓' });
  });

  it.each([['not json'], ['[1]'], ['null'], ['"x"'], [''], ['{"a":']])('refuses %j with 400 invalid_event', (body) => {
    expect(() => parseEventPayload(Buffer.from(body))).toThrow(expect.objectContaining({ code: 'invalid_event', status: 400 }));
  });
});
