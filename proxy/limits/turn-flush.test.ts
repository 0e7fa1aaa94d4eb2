import { describe, expect, it } from 'vitest';
import { TurnBatch, TurnFlush } from './turn-flush.ts';

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

  it('hands a batch its items together at the end of the round, or at once when full', async () => {
    const sent: number[][] = [];
    const batch = new TurnBatch<number>(new TurnFlush(), 3, (b) => sent.push(b));
    batch.add(1);
    batch.add(2);
    expect(sent).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([[1, 2]]);
    batch.add(3);
    batch.add(4);
    batch.add(5);
    expect(sent).toEqual([[1, 2], [3, 4, 5]]);
    batch.add(6);
    batch.flush();
    expect(sent).toEqual([[1, 2], [3, 4, 5], [6]]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(3);
  });
});
