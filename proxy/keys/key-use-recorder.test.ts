import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import type { AppContext } from '../../core/context.ts';
import { createLogger } from '../../core/logger.ts';
import { KeyUseRecorder } from './key-use-recorder.ts';

function setup(fail = false) {
  const writes: { sql: string; params: unknown[] }[] = [];
  const db = {
    async query(sql: string, params: unknown[]) {
      writes.push({ sql, params });
      if (fail) throw new Error('database down');
      return { rows: [], rowCount: 0 };
    },
  };
  const clock = new ManualClock(Date.parse('2026-11-24T10:00:00Z'));
  const ctx = { db, clock, log: createLogger('silent') } as unknown as AppContext;
  return { rec: new KeyUseRecorder(ctx), writes, clock };
}

describe('recording gateway key use', () => {
  it('writes the uses of many calls and keys in one UPDATE, each key at most once a minute', async () => {
    const { rec, writes, clock } = setup();
    for (let i = 0; i < 100; i++) rec.touch('key_a');
    rec.touch('key_b');
    clock.advance(59_000);
    rec.touch('key_a');
    await rec.flush();
    expect(writes).toHaveLength(1);
    expect(writes[0].sql).toMatch(/UPDATE gateway_keys .*GREATEST/s);
    expect(writes[0].params).toEqual([['key_a', 'key_b'], [new Date('2026-11-24T10:00:00Z'), new Date('2026-11-24T10:00:00Z')]]);
    await rec.flush();
    expect(writes).toHaveLength(1);
    clock.advance(1_000);
    rec.touch('key_a');
    await rec.flush();
    expect(writes[1].params).toEqual([['key_a'], [new Date('2026-11-24T10:01:00Z')]]);
  });

  it('drops a failed write without throwing (the next minute notes the key again)', async () => {
    const { rec, writes } = setup(true);
    rec.touch('key_a');
    await expect(rec.flush()).resolves.toBeUndefined();
    expect(writes).toHaveLength(1);
  });
});
