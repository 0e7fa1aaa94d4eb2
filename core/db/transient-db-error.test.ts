import { expect, it } from 'vitest';
import { isTransientDbError } from './transient-db-error.ts';

it('tells retryable database failures from the others', () => {
  for (const code of ['40P01', '40001', '08006', '53300', '57P01', 'ECONNREFUSED', 'ECONNRESET']) expect(isTransientDbError({ code }), code).toBe(true);
  expect(isTransientDbError(new Error('Connection terminated unexpectedly'))).toBe(true);
  for (const code of ['23505', '22P05', '42P01', '23503']) expect(isTransientDbError({ code }), code).toBe(false);
  expect(isTransientDbError(new Error('boom'))).toBe(false);
  expect(isTransientDbError(null)).toBe(false);
});
