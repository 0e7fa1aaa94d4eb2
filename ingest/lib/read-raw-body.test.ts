import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InflateBudget } from './inflate-budget.ts';
import { readRawBody } from './read-raw-body.ts';

const chunks = (n: number, size: number) => Readable.from(Array.from({ length: n }, () => Buffer.alloc(size, 0x61)));

describe('readRawBody', () => {
  it('reads a stream into one buffer and counts it in the lease', async () => {
    const budget = new InflateBudget(1000);
    const lease = budget.lease();
    const body = await readRawBody(chunks(4, 100), 1000, lease);
    expect(body.length).toBe(400);
    expect(lease.held).toBe(400);
  });

  it('stops past the limit with envelope_too_large, and refuses a declared length past it before reading', async () => {
    const budget = new InflateBudget(10_000);
    await expect(readRawBody(chunks(20, 100), 1000, budget.lease())).rejects.toMatchObject({ code: 'envelope_too_large', status: 413 });
    const unread = chunks(1, 10);
    await expect(readRawBody(unread, 1000, budget.lease(), '5000')).rejects.toMatchObject({ code: 'envelope_too_large' });
  });

  it('refuses with ingest_overloaded when the budget is spent, holding nothing afterwards', async () => {
    const budget = new InflateBudget(250);
    const other = budget.lease();
    other.add(100);
    const lease = budget.lease();
    await expect(readRawBody(chunks(4, 100), 10_000, lease)).rejects.toMatchObject({ code: 'ingest_overloaded', status: 503 });
    expect(lease.held).toBe(0);
    expect(budget.used).toBe(100);
  });

  it('rejects when the client goes away before the end', async () => {
    const source = new Readable({ read() {} });
    const reading = readRawBody(source, 1000, new InflateBudget(1000).lease());
    source.push(Buffer.from('partial'));
    source.destroy();
    await expect(reading).rejects.toMatchObject({ status: 400 });
  });
});
