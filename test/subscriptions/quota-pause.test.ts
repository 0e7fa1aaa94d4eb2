/**
 * Quota windows of subscription accounts (usage endpoint, else rate-limit headers), their forecast, and the pause at
 * under 2 % left: the whole account, or only the model family of the window; resumed by the scheduler at the
 * window's reset (controllable clock). A usage endpoint answering 403 or an unexpected shape falls back to headers
 * and never breaks the poller. State changes are recorded and announced to the teams that used the account and to
 * the administrators' team (SVC_ACCOUNT_EVENTS_TEAM).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { QUOTA_JOB, RESUME_JOB } from '../../control-plane/ai/quota/subscription-jobs.ts';
import { startPlanEnv, type PlanEnv } from './plan-env.ts';

const clock = new ManualClock(Date.now());
let g: PlanEnv;
let opsTeam: string;
let n = 0;

beforeAll(async () => {
  g = await startPlanEnv({ clock, env: { SVC_ACCOUNT_EVENTS_TEAM: 'ops' } });
  opsTeam = (await g.s.api('POST', '/api/v1/teams', { name: 'ops' })).json().id;
});
afterAll(async () => g?.close());

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

/** A fresh Claude plan account serving `claude-sonnet-qN` and `claude-opus-qN`. */
async function account(): Promise<{ id: string; sonnet: string; opus: string }> {
  n++;
  const sonnet = `claude-sonnet-q${n}`;
  const opus = `claude-opus-q${n}`;
  const id = await g.signIn('claude', `quota-${n}`, { models: [sonnet, opus] });
  return { id, sonnet, opus };
}

const refresh = async (id: string) => {
  const r = await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
};

const events = async (accountId: string) =>
  (await g.s.db.query<{ team_id: string; payload: { from: string; to: string; family: string | null; reason: string } }>(
    "SELECT team_id, payload FROM outbox WHERE kind = 'account.state_changed' AND payload->'account'->>'id' = $1 ORDER BY id", [accountId])).rows;

describe('quota windows', () => {
  it('are read from the usage endpoint with a forecast from the recent rate', async () => {
    const a = await account();
    const reset = clock.now() + 4 * HOUR;
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 10, resets_at: iso(reset) }, seven_day: { utilization: 30, resets_at: iso(clock.now() + 72 * HOUR) }, seven_day_opus: null } };
    const first = await refresh(a.id);
    expect(first.quota).toMatchObject({ source: 'usage_endpoint', error: null });
    expect(first.quota.windows.map((w: { name: string }) => w.name)).toEqual(['five_hour', 'seven_day']);
    clock.advance(HOUR);
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 20, resets_at: iso(reset) }, seven_day: { utilization: 31, resets_at: iso(clock.now() + 71 * HOUR) } } };
    const second = await refresh(a.id);
    const five = second.quota.windows.find((w: { name: string }) => w.name === 'five_hour');
    expect(five).toMatchObject({ used_fraction: 0.2, left_fraction: 0.8, family: null, source: 'usage_endpoint', window_seconds: 18_000 });
    expect(five.rate_per_hour).toBeCloseTo(0.1, 4);
    expect(five.forecast_fraction).toBeCloseTo(0.2 + 0.1 * 3, 4);
    const shown = (await g.s.api('GET', `/api/v1/accounts/${a.id}`)).json();
    expect(shown.quota.windows).toHaveLength(2);
  });

  it('fall back to the rate-limit headers when the usage endpoint answers 403 or an unexpected shape', async () => {
    const a = await account();
    const reset = Math.floor((clock.now() + 2 * HOUR) / 1000);
    g.fakes.claude.rateLimitHeaders = {
      'anthropic-ratelimit-unified-5h-utilization': '0.3', 'anthropic-ratelimit-unified-5h-reset': String(reset),
      'anthropic-ratelimit-unified-7d-utilization': '0.5', 'anthropic-ratelimit-unified-7d-reset': String(reset + 86_400),
    };
    expect((await g.messages(a.sonnet, 'with headers')).status).toBe(200);
    for (let i = 0; i < 100 && !(await g.s.ctx.counters.getValue(`quota-headers:${a.id}`)); i++) await new Promise((r) => setTimeout(r, 20));
    g.fakes.claude.usage = { status: 403, body: { error: { type: 'permission_error', message: 'no' } } };
    const r1 = await refresh(a.id);
    expect(r1.quota.source).toBe('headers');
    expect(r1.quota.error).toMatch(/403/);
    expect(r1.quota.windows.map((w: { name: string; used_fraction: number }) => [w.name, w.used_fraction])).toEqual([['five_hour', 0.3], ['seven_day', 0.5]]);
    g.fakes.claude.usage = { status: 200, body: { message: 'a new format' } };
    const r2 = await refresh(a.id);
    expect(r2.quota).toMatchObject({ source: 'headers', error: expect.stringMatching(/no window/) });
    g.fakes.claude.usage = { status: 200, body: '<html>oops</html>' };
    await g.s.scheduler.runNow(QUOTA_JOB);
    expect((await refresh(a.id)).quota.source).toBe('headers');
    g.fakes.claude.rateLimitHeaders = {};
  });
});

describe('pause at under 2 % left', () => {
  it('pauses the whole account until the window resets, then it resumes by itself', async () => {
    const a = await account();
    expect((await g.messages(a.sonnet, 'before')).status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const u = await g.s.db.query('SELECT 1 FROM usage_records WHERE account_id = $1', [a.id]);
      if (u.rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const reset = clock.now() + HOUR;
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 98.5, resets_at: iso(reset) }, seven_day: { utilization: 40, resets_at: iso(reset + 24 * HOUR) } } };
    const r = await refresh(a.id);
    expect(r.pauses).toEqual([{ family: null, until: iso(reset), window: 'five_hour', reason: 'quota_low' }]);
    expect(await g.state(a.id)).toBe('paused');

    const calls = g.fakes.claude.calls.length;
    const refused = await g.chat(a.sonnet, 'while paused');
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.message).toContain('paused because its quota is nearly spent');
    expect(g.fakes.claude.calls.length).toBe(calls);

    clock.advance(HOUR - 60_000);
    await g.s.scheduler.runNow(RESUME_JOB);
    expect(await g.state(a.id)).toBe('paused');
    clock.advance(61_000);
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 0, resets_at: iso(clock.now() + 5 * HOUR) } } };
    await g.s.scheduler.runNow(RESUME_JOB);
    expect(await g.state(a.id)).toBe('active');
    expect((await g.messages(a.sonnet, 'after reset')).status).toBe(200);

    const ev = await events(a.id);
    const byTeam = (t: string) => ev.filter((e) => e.team_id === t).map((e) => [e.payload.from, e.payload.to, e.payload.reason]);
    expect(byTeam(g.teamId)).toEqual([['active', 'paused', 'quota_low'], ['paused', 'active', 'quota_reset']]);
    expect(byTeam(opsTeam)).toEqual(byTeam(g.teamId));
  });

  it('pauses only the model family of a family window', async () => {
    const a = await account();
    const reset = clock.now() + 2 * HOUR;
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 5, resets_at: iso(reset) }, seven_day_opus: { utilization: 99.5, resets_at: iso(reset) } } };
    const r = await refresh(a.id);
    expect(r.pauses).toEqual([{ family: 'opus', until: iso(reset), window: 'seven_day_opus', reason: 'quota_low' }]);
    expect(await g.state(a.id)).toBe('active');
    const calls = g.fakes.claude.calls.length;
    const opus = await g.chat(a.opus, 'opus please');
    expect(opus.status).toBe(503);
    expect((await opus.json()).error.code).toBe('no_account_available');
    expect(g.fakes.claude.calls.length).toBe(calls);
    expect((await g.chat(a.sonnet, 'sonnet is fine')).status).toBe(200);
    clock.advance(2 * HOUR + 1000);
    await g.s.scheduler.runNow(RESUME_JOB);
    expect((await g.chat(a.opus, 'opus again')).status).toBe(200);
    const ev = (await events(a.id)).filter((e) => e.team_id === opsTeam).map((e) => [e.payload.family, e.payload.reason]);
    expect(ev).toEqual([['opus', 'quota_low'], ['opus', 'quota_reset']]);
  });

  it('pauses at once when the response headers show the window almost spent', async () => {
    const a = await account();
    const reset = Math.floor((clock.now() + 3 * HOUR) / 1000);
    g.fakes.claude.rateLimitHeaders = { 'anthropic-ratelimit-unified-5h-utilization': '0.99', 'anthropic-ratelimit-unified-5h-reset': String(reset) };
    expect((await g.messages(a.sonnet, 'last one')).status).toBe(200);
    g.fakes.claude.rateLimitHeaders = {};
    let state = '';
    for (let i = 0; i < 100 && state !== 'paused'; i++) {
      state = await g.state(a.id);
      if (state !== 'paused') await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('paused');
    const shown = (await g.s.api('GET', `/api/v1/accounts/${a.id}`)).json();
    expect(shown.pauses[0]).toMatchObject({ family: null, until: iso(reset * 1000), window: 'five_hour' });
    expect(shown.quota.source).toBe('headers');
  });
});
