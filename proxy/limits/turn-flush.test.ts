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
});
