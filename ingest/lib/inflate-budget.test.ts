import { describe, expect, it } from 'vitest';
import { InflateBudget } from './inflate-budget.ts';

describe('InflateBudget', () => {
  it('lets leases grow until the budget is spent, then refuses with 503 ingest_overloaded and Retry-After', () => {
    const budget = new InflateBudget(100);
    const a = budget.lease();
    const b = budget.lease();
    a.add(60);
    b.add(30);
    expect(budget.used).toBe(90);
    let refusal: unknown;
    try {
      b.add(20);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toMatchObject({ code: 'ingest_overloaded', status: 503, headers: { 'Retry-After': '1' }, details: { budget_bytes: 100 } });
    // The refused request gave back everything it held; the other keeps its share.
    expect(b.held).toBe(0);
    expect(budget.used).toBe(60);
    b.add(40);
    expect(budget.used).toBe(100);
  });

  it('gives back dropped bytes and the whole share on release, never going below zero', () => {
    const budget = new InflateBudget(1000);
    const lease = budget.lease();
    lease.add(500);
    lease.drop(200);
    expect([lease.held, budget.used]).toEqual([300, 300]);
    lease.drop(10_000);
    expect([lease.held, budget.used]).toEqual([0, 0]);
    lease.add(100);
    lease.release();
    lease.release();
    expect(budget.used).toBe(0);
  });
});
