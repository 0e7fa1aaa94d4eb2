import { expect, it } from 'vitest';
import { failureReason, isRetryable, nextBackoff } from './write-failure.ts';

it('retries failures of the database and splits on failures of a row', () => {
  for (const code of ['08006', '40P01', '57P01', 'ECONNREFUSED', '42P01', 'XX000', '25P02']) expect(isRetryable({ code }), code).toBe(true);
  for (const code of ['22021', '22P05', '23505', '23514', '54000']) expect(isRetryable({ code }), code).toBe(false);
  expect(isRetryable(new Error('Connection terminated unexpectedly'))).toBe(true);
  expect(isRetryable(new Error('event is not an object'))).toBe(false);
});

it('backs off from 100 ms to 5 s and reports a reason with its code', () => {
  const waits = [0];
  for (let i = 0; i < 8; i++) waits.push(nextBackoff(waits[waits.length - 1]));
  expect(waits.slice(1)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  expect(failureReason(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))).toBe('22021: invalid byte sequence');
  expect(failureReason('x'.repeat(300))).toHaveLength(200);
});
