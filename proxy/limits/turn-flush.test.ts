import { describe, expect, it } from 'vitest';
import { TurnFlush } from './turn-flush.ts';

describe('TurnFlush', () => {
  it('runs every flush scheduled in one round once, together, after the current callbacks', async () => {
    const turn = new TurnFlush();
    const ran: string[] = [];
    const a = () => ran.push('a');
    const b = () => ran.push('b');
    turn.schedule(a);
    turn.schedule(b);
    turn.schedule(a);
    expect(ran).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['a', 'b']);
    turn.schedule(b);
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['a', 'b', 'b']);
  });

  it('lets deferred flushes wait for the next scheduled one, or for their delay', async () => {
    const turn = new TurnFlush();
    const ran: string[] = [];
    turn.defer(() => ran.push('settle'), 50);
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual([]);
    turn.schedule(() => ran.push('reserve'));
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['settle', 'reserve']);
    turn.defer(() => ran.push('late'), 5);
    await new Promise((r) => setTimeout(r, 30));
    expect(ran).toEqual(['settle', 'reserve', 'late']);
  });
});
