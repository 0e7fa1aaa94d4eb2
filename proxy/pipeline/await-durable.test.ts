import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../core/logger.ts';
import { awaitDurable } from './await-durable.ts';

function fakeLog() {
  const errors: string[] = [];
  return { errors, log: { error: (_o: unknown, msg: string) => void errors.push(msg) } as unknown as Logger };
}

afterEach(() => vi.useRealTimers());

describe('waiting for a usage record to be durable', () => {
  it('resolves when the write does, and at once for a writer without a promise', async () => {
    const { log, errors } = fakeLog();
    let done!: () => void;
    let settled = false;
    const p = awaitDurable(new Promise<void>((r) => (done = r)), log, {}).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    done();
    await p;
    await awaitDurable(undefined, log, {});
    expect(errors).toEqual([]);
  });

  it('resolves and logs when the write fails', async () => {
    const { log, errors } = fakeLog();
    await awaitDurable(Promise.reject(new Error('journal full')), log, {});
    expect(errors).toEqual([expect.stringContaining('could not be made durable')]);
  });

  it('resolves and logs once the bound has passed while the write still waits', async () => {
    vi.useFakeTimers();
    const { log, errors } = fakeLog();
    let settled = false;
    const p = awaitDurable(new Promise(() => {}), log, {}, 30_000).then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(errors).toEqual([expect.stringContaining('not durable in time')]);
  });
});
