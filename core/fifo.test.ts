import { describe, expect, it } from 'vitest';
import { Fifo } from './fifo.ts';

describe('Fifo', () => {
  it('gives items back in the order they came, across compactions', () => {
    const q = new Fifo<number>();
    const seen: number[] = [];
    let next = 0;
    // Pushes outrun shifts, then shifts catch up: the head crosses the compaction threshold many times.
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 700; i++) q.push(next++);
      for (let i = 0; i < 500; i++) seen.push(q.shift() as number);
      expect(q.length).toBe(next - seen.length);
      expect(q.peek()).toBe(seen.length);
    }
    while (q.length > 0) seen.push(q.shift() as number);
    expect(seen).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(q.shift()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
  });

  it('takeAll empties the queue and returns what was left, oldest first', () => {
    const q = new Fifo<string>();
    for (const s of ['a', 'b', 'c', 'd']) q.push(s);
    q.shift();
    expect(q.takeAll()).toEqual(['b', 'c', 'd']);
    expect(q.length).toBe(0);
    q.push('e');
    expect(q.shift()).toBe('e');
  });
});
