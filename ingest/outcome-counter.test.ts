import { describe, expect, it } from 'vitest';
import { OutcomeCounter, hourOf } from './outcome-counter.ts';

const T = Date.UTC(2026, 0, 15, 12, 34, 56);

describe('OutcomeCounter', () => {
  it('sums equal keys, separates reasons, categories and hours, and sorts what it hands out', () => {
    const c = new OutcomeCounter();
    c.add(2, T, { outcome: 'accepted' }, 'error');
    c.add(2, T + 1000, { outcome: 'accepted' }, 'error');
    c.add(1, T, { outcome: 'filtered', reason: 'unsupported_item_type:session' }, 'session', 3);
    c.add(1, T + 3_600_000, { outcome: 'invalid', reason: 'invalid_event' }, 'error');
    c.addClientDiscard(1, T, 'ratelimit_backoff', 'error', 4);
    c.add(1, T, { outcome: 'accepted' }, 'attachment', 0);
    expect(c.pending(2, 'accepted')).toBe(2);
    const rows = c.take();
    expect(c.size).toBe(0);
    expect(rows.map((r) => [r.projectId, r.hour - hourOf(T), r.outcome, r.reason, r.quantity])).toEqual([
      [1, 0, 'client_discard', 'ratelimit_backoff', 4],
      [1, 0, 'filtered', 'unsupported_item_type:session', 3],
      [1, 3_600_000, 'invalid', 'invalid_event', 1],
      [2, 0, 'accepted', '', 2],
    ]);
  });

  it('takes back counts of a failed flush without losing or doubling them', () => {
    const c = new OutcomeCounter();
    c.add(1, T, { outcome: 'accepted' }, 'error', 5);
    const taken = c.take();
    c.add(1, T, { outcome: 'accepted' }, 'error', 2);
    c.putBack(taken);
    expect(c.take()).toEqual([{ projectId: 1, hour: hourOf(T), outcome: 'accepted', reason: '', category: 'error', quantity: 7 }]);
  });
});
