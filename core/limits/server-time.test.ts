import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { monthOf } from './limit-store.ts';
import { ServerTime } from './server-time.ts';

describe('ServerTime', () => {
  it('corrects a node clock that is behind, so the month follows the shared clock', async () => {
    const node = new ManualClock(Date.UTC(2026, 10, 30, 23, 59, 58));
    const shared = { time: async () => node.now() + 5000 };
    const t = new ServerTime(node, shared);
    expect(monthOf(t.now())).toBe('2026-11');
    expect(await t.sync()).toBe(true);
    expect(t.offsetMs).toBe(5000);
    expect(monthOf(t.now())).toBe('2026-12');
    node.advance(1000);
    expect(t.now()).toBe(Date.UTC(2026, 11, 1, 0, 0, 4));
  });

  it('keeps the last offset when the shared clock cannot be read', async () => {
    const node = new ManualClock(0);
    let up = true;
    const t = new ServerTime(node, { time: async () => (up ? node.now() - 300 : Promise.reject(new Error('down'))) });
    await t.start(10);
    expect(t.offsetMs).toBe(-300);
    up = false;
    expect(await t.sync()).toBe(false);
    expect(t.offsetMs).toBe(-300);
    t.stop();
  });
});
