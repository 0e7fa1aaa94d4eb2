import { describe, expect, it } from 'vitest';
import { parseClientReport } from './parse-client-report.ts';

const parse = (doc: unknown) => parseClientReport(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)));

describe('parseClientReport', () => {
  it('reads discarded events and the timestamp', () => {
    expect(parse({
      timestamp: '2024-05-06T07:08:09Z',
      discarded_events: [
        { reason: 'ratelimit_backoff', category: 'error', quantity: 3 },
        { reason: 'queue_overflow', category: 'transaction', quantity: 1 },
      ],
    })).toEqual({
      timestamp: new Date('2024-05-06T07:08:09Z'),
      discarded: [
        { reason: 'ratelimit_backoff', category: 'error', quantity: 3 },
        { reason: 'queue_overflow', category: 'transaction', quantity: 1 },
      ],
    });
  });

  it('sums equal pairs, maps unknown categories and skips unreadable entries', () => {
    expect(parse({
      timestamp: 1714979289,
      discarded_events: [
        { reason: 'sample_rate', category: 'error', quantity: 2 },
        { reason: 'SAMPLE_RATE', category: 'error', quantity: 5 },
        { reason: 'before_send', category: 'teleport', quantity: 1 },
        { reason: 'x'.repeat(100), category: 'error', quantity: 1 },
        { reason: 'network_error', category: 'error', quantity: 0 },
        { reason: 'network_error', category: 'error', quantity: 1.5 },
        { reason: 'network_error', category: 'error', quantity: '4' },
        { category: 'error', quantity: 1 },
        null,
        'nonsense',
      ],
    })?.discarded).toEqual([
      { reason: 'sample_rate', category: 'error', quantity: 7 },
      { reason: 'before_send', category: 'unknown', quantity: 1 },
    ]);
  });

  it('gives an empty report for a report without discarded events, and undefined for non-JSON', () => {
    expect(parse({})).toEqual({ discarded: [] });
    expect(parse({ discarded_events: 'all of them', timestamp: 'soon' })).toEqual({ discarded: [] });
    expect(parse('not json')).toBeUndefined();
    expect(parse('[1,2]')).toBeUndefined();
  });
});
