import { describe, expect, it } from 'vitest';
import { HealthChecks } from './health.ts';

describe('HealthChecks', () => {
  it('reports each check with status and latency; only keepers decide whether the node keeps requests', async () => {
    const h = new HealthChecks();
    let dbUp = false;
    h.add('database', async () => {
      if (!dbUp) throw new Error('connect ECONNREFUSED');
      return { ok: true, kind: 'postgres' };
    });
    h.add('journal', () => ({ ok: true, bytes: 0 }), { keepsRequests: true });
    const down = await h.report();
    expect(down.ok).toBe(false);
    expect(down.keepsRequests).toBe(true);
    expect(down.checks.database).toMatchObject({ ok: false, status: 'down', error: 'connect ECONNREFUSED' });
    expect(down.checks.journal).toMatchObject({ ok: true, status: 'up', bytes: 0 });
    expect(typeof down.checks.journal.latency_ms).toBe('number');
    dbUp = true;
    h.add('journal', () => ({ ok: false, bytes: 10 }), { keepsRequests: true });
    const full = await h.report();
    expect(full).toMatchObject({ ok: false, keepsRequests: false, checks: { database: { ok: true, kind: 'postgres' } } });
  });

  it('runs the checks at most once per second, whatever the number of probes', async () => {
    const h = new HealthChecks();
    let runs = 0;
    h.add('database', async () => ({ ok: ++runs > 0 }));
    await Promise.all(Array.from({ length: 50 }, () => h.report()));
    await h.report();
    expect(runs).toBe(1);
    await expect.poll(async () => (await h.report(), runs), { timeout: 5000, interval: 200 }).toBe(2);
  });

  it('counts a check that does not answer within 2 s as down', async () => {
    const h = new HealthChecks();
    h.add('stuck', () => new Promise(() => {}));
    expect((await h.report()).checks.stuck).toMatchObject({ ok: false, status: 'down', error: 'no answer within 2 s' });
  });
});
