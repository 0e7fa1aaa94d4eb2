/**
 * A project's ingest stats (GET /api/v1/projects/{id}/stats, the errors_stats MCP tool, `svc errors stats`): counts
 * written by real ingest requests (accepted, rate-limited, invalid, filtered), and rows of ingest_outcomes at fixed
 * hours for exact totals, series, grouping, zero-filled buckets, day buckets, filters and refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc } from '../cli/run-svc.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { envelope, sentryAuth } from '../ingest/support/ingest-helpers.ts';
import { createTeamProject, exceptionEvent, postStore, waitFor, type Project } from './support/errors-fixtures.ts';

let s: TestServer;
let fixed: Project;
let reader: { id: string; headers: Record<string, string> };
let outsider: { id: string; headers: Record<string, string> };

/** [hour, outcome, reason, category, quantity] rows of the `fixed` project. */
const ROWS: Array<[string, string, string, string, number]> = [
  ['2026-01-10T00:00:00Z', 'accepted', '', 'error', 5],
  ['2026-01-10T00:00:00Z', 'rate_limited', 'project_events_per_minute', 'error', 2],
  ['2026-01-10T02:00:00Z', 'accepted', '', 'error', 3],
  ['2026-01-10T02:00:00Z', 'invalid', 'invalid_event', 'error', 1],
  ['2026-01-10T02:00:00Z', 'filtered', 'unsupported_item_type:attachment', 'attachment', 500],
  ['2026-01-10T03:00:00Z', 'client_discard', 'ratelimit_backoff', 'error', 4],
  ['2026-01-11T05:00:00Z', 'accepted', '', 'error', 7],
];

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  const team = await makeTeam(s, 'stats-team');
  const rival = await makeTeam(s, 'stats-rival');
  reader = await makeUser(s, 'stats-viewer', { [team]: 'viewer' }, 'read');
  outsider = await makeUser(s, 'stats-outsider', { [rival]: 'owner' });
  fixed = await createTeamProject(s, 'stats-team', { name: 'Stats Fixed' });
  for (const [hour, outcome, reason, category, quantity] of ROWS) {
    await s.db.query('INSERT INTO ingest_outcomes (project_id, hour, outcome, reason, category, quantity) VALUES ($1, $2, $3, $4, $5, $6)', [fixed.id, hour, outcome, reason, category, quantity]);
  }
});
afterAll(async () => s?.close());

const stats = async (projectId: number, query: string, headers: Record<string, string> = {}) => {
  const res = await s.api('GET', `/api/v1/projects/${projectId}/stats${query ? `?${query}` : ''}`, undefined, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const refusal = async (query: string, status: number, code: string) => {
  const res = await s.api('GET', `/api/v1/projects/${fixed.id}/stats?${query}`);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code).toBe(code);
  expect(res.json().error.message).toMatch(/^[A-Za-z].*\.$/);
  return res.json().error;
};
const zeros = (outcomes: string[]) => outcomes.map((outcome) => ({ outcome, quantity: 0 }));

describe('counts written by the ingest', () => {
  it('counts accepted, rate-limited, invalid and filtered items of real requests over the last 24 hours', async () => {
    const live = await createTeamProject(s, 'stats-team', { name: 'Stats Live', events_per_minute: 1 });
    expect((await postStore(s, live.id, live.public_key, exceptionEvent('Error', 'kept'))).statusCode).toBe(200);
    const limited = await postStore(s, live.id, live.public_key, exceptionEvent('Error', 'over the limit'));
    expect(limited.statusCode).toBe(429);
    const bad = await s.app.inject({ method: 'POST', url: `/api/${live.id}/store/?sentry_key=${live.public_key}`, payload: '{"message"', headers: { 'content-type': 'text/plain' } });
    expect(bad.statusCode).toBe(400);
    const session = await s.app.inject({ method: 'POST', url: `/api/${live.id}/envelope/`, payload: envelope({}, [[{ type: 'session' }, { sid: 'x' }]]), headers: sentryAuth(live.public_key) });
    expect(session.statusCode).toBe(200);

    const body = await waitFor(async () => {
      const b = await stats(live.id, 'group_by=outcome,reason');
      return b.totals.reduce((n: number, t: { quantity: number }) => n + t.quantity, 0) === 4 ? b : undefined;
    });
    expect(body.interval).toBe('hour');
    expect(Date.parse(body.until) - Date.parse(body.since)).toBe(86_400_000);
    expect(body.series).toHaveLength(24);
    expect(body.totals).toEqual([
      { outcome: 'accepted', reason: null, quantity: 1 },
      { outcome: 'filtered', reason: 'unsupported_item_type:session', quantity: 1 },
      { outcome: 'invalid', reason: 'invalid_event', quantity: 1 },
      { outcome: 'rate_limited', reason: 'project_events_per_minute', quantity: 1 },
    ]);
    // The current hour is the last bucket and holds all four.
    expect(body.series.at(-1).groups).toEqual(body.totals);
    expect(body.series[0].groups.every((g: { quantity: number }) => g.quantity === 0)).toBe(true);

    const byOutcome = await stats(live.id, '', reader.headers);
    expect(byOutcome.totals).toEqual([
      { outcome: 'accepted', quantity: 1 },
      { outcome: 'filtered', quantity: 1 },
      { outcome: 'invalid', quantity: 1 },
      { outcome: 'rate_limited', quantity: 1 },
      { outcome: 'client_discard', quantity: 0 },
    ]);
  });
});

describe('GET /api/v1/projects/{id}/stats', () => {
  it('answers totals and an hourly series with every bucket, empty ones zero-filled', async () => {
    const body = await stats(fixed.id, 'since=2026-01-10T00:00:00Z&until=2026-01-10T04:00:00Z');
    expect(body).toMatchObject({ project: fixed.id, since: '2026-01-10T00:00:00.000Z', until: '2026-01-10T04:00:00.000Z', interval: 'hour', group_by: ['outcome'] });
    expect(body.totals).toEqual([
      { outcome: 'filtered', quantity: 500 },
      { outcome: 'accepted', quantity: 8 },
      { outcome: 'client_discard', quantity: 4 },
      { outcome: 'rate_limited', quantity: 2 },
      { outcome: 'invalid', quantity: 1 },
    ]);
    expect(body.series.map((b: { at: string }) => b.at)).toEqual(['2026-01-10T00:00:00.000Z', '2026-01-10T01:00:00.000Z', '2026-01-10T02:00:00.000Z', '2026-01-10T03:00:00.000Z']);
    const q = (i: number) => Object.fromEntries(body.series[i].groups.map((g: { outcome: string; quantity: number }) => [g.outcome, g.quantity]));
    expect(q(0)).toEqual({ filtered: 0, accepted: 5, client_discard: 0, rate_limited: 2, invalid: 0 });
    expect(body.series[1].groups).toEqual(zeros(['filtered', 'accepted', 'client_discard', 'rate_limited', 'invalid']));
    expect(q(2)).toEqual({ filtered: 500, accepted: 3, client_discard: 0, rate_limited: 0, invalid: 1 });
    expect(q(3)).toEqual({ filtered: 0, accepted: 0, client_discard: 4, rate_limited: 0, invalid: 0 });
  });

  it('counts an hour when it starts within [since, until)', async () => {
    const body = await stats(fixed.id, 'since=2026-01-10T00:30:00Z&until=2026-01-10T02:00:00Z');
    expect(body.series.map((b: { at: string }) => b.at)).toEqual(['2026-01-10T01:00:00.000Z']);
    expect(body.totals.every((t: { quantity: number }) => t.quantity === 0)).toBe(true);
  });

  it('groups by outcome, reason and category, and filters by category', async () => {
    const body = await stats(fixed.id, 'since=2026-01-10T00:00:00Z&until=2026-01-12T00:00:00Z&group_by=outcome,reason,category&category=error');
    expect(body.group_by).toEqual(['outcome', 'reason', 'category']);
    expect(body.totals).toEqual([
      { outcome: 'accepted', reason: null, category: 'error', quantity: 15 },
      { outcome: 'client_discard', reason: 'ratelimit_backoff', category: 'error', quantity: 4 },
      { outcome: 'rate_limited', reason: 'project_events_per_minute', category: 'error', quantity: 2 },
      { outcome: 'invalid', reason: 'invalid_event', category: 'error', quantity: 1 },
    ]);
    expect(body.series).toHaveLength(48);
    const byCategory = await stats(fixed.id, 'since=2026-01-10&until=2026-01-11&group_by=category');
    expect(byCategory.totals).toEqual([{ category: 'attachment', quantity: 500 }, { category: 'error', quantity: 15 }]);
  });

  it('buckets by UTC day, and filters by outcome', async () => {
    const body = await stats(fixed.id, 'since=2026-01-09&until=2026-01-12&interval=day&outcome=accepted,invalid');
    expect(body.totals).toEqual([{ outcome: 'accepted', quantity: 15 }, { outcome: 'invalid', quantity: 1 }]);
    expect(body.series).toEqual([
      { at: '2026-01-09T00:00:00.000Z', groups: zeros(['accepted', 'invalid']) },
      { at: '2026-01-10T00:00:00.000Z', groups: [{ outcome: 'accepted', quantity: 8 }, { outcome: 'invalid', quantity: 1 }] },
      { at: '2026-01-11T00:00:00.000Z', groups: [{ outcome: 'accepted', quantity: 7 }, { outcome: 'invalid', quantity: 0 }] },
    ]);
  });

  it('refuses bad times, ranges over 90 days, until before since and unknown values', async () => {
    expect((await refusal('since=2026-01-10&until=2026-04-11', 400, 'invalid_time_range')).details).toMatchObject({ max_days: 90 });
    await refusal('since=2026-01-10T05:00:00Z&until=2026-01-10T04:00:00Z', 400, 'invalid_time_range');
    await refusal('since=2026-01-10&until=2026-01-10', 400, 'invalid_time_range');
    expect((await refusal('since=yesterday', 400, 'invalid_time')).details).toEqual({ parameter: 'since' });
    await refusal('until=2026-13-45', 400, 'invalid_time');
    await refusal('interval=week', 400, 'validation_failed');
    expect((await refusal('group_by=outcome,team', 400, 'validation_failed')).message).toContain('"team"');
    await refusal('outcome=dropped', 400, 'validation_failed');
    await refusal('category=Error!', 400, 'validation_failed');
    // Exactly 90 days is allowed.
    expect((await stats(fixed.id, 'since=2026-01-10&until=2026-04-10&interval=day')).series).toHaveLength(90);
  });

  it("is readable by any team member and refused for another team's project and without a token", async () => {
    expect((await stats(fixed.id, 'since=2026-01-10&until=2026-01-11', reader.headers)).totals[0]).toEqual({ outcome: 'filtered', quantity: 500 });
    const hidden = await s.api('GET', `/api/v1/projects/${fixed.id}/stats`, undefined, outsider.headers);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error.code).toBe('not_found');
    const anonymous = await s.api('GET', `/api/v1/projects/${fixed.id}/stats`, undefined, { authorization: '' });
    expect(anonymous.statusCode).toBe(401);
    const notNumeric = await s.api('GET', '/api/v1/projects/stats-fixed/stats');
    expect(notNumeric.json().error.code).toBe('invalid_project_id');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await s.api('GET', '/api/v1/openapi.json', undefined, { authorization: '' })).json();
    const op = doc.paths['/api/v1/projects/{id}/stats'].get;
    expect(op.parameters.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(['id', 'since', 'until', 'interval', 'group_by', 'outcome', 'category']));
  });
});

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function callTool(args: Record<string, unknown>, headers: Record<string, string>) {
  const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'errors_stats', arguments: args } }, { ...MCP, ...headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as { structuredContent: Record<string, unknown>; isError?: boolean; content: Array<{ text: string }> };
}

describe('the errors_stats MCP tool', () => {
  it('answers what the REST route answers, with the same refusals', async () => {
    const args = { project: fixed.id, since: '2026-01-10', until: '2026-01-12', interval: 'day', group_by: 'outcome,reason', outcome: 'rate_limited' };
    const tool = await callTool(args, reader.headers);
    expect(tool.isError).toBeFalsy();
    expect(tool.structuredContent).toEqual(await stats(fixed.id, 'since=2026-01-10&until=2026-01-12&interval=day&group_by=outcome,reason&outcome=rate_limited'));
    expect(tool.structuredContent.totals).toEqual([{ outcome: 'rate_limited', reason: 'project_events_per_minute', quantity: 2 }]);
    const hidden = await callTool({ project: fixed.id }, outsider.headers);
    expect(hidden.isError).toBe(true);
    expect(hidden.content[0].text).toContain('not_found');
    const tooLong = await callTool({ project: fixed.id, since: '2025-01-01', until: '2026-01-01' }, reader.headers);
    expect(tooLong.isError).toBe(true);
    expect(tooLong.content[0].text).toContain('invalid_time_range');
  });
});

describe('svc errors stats', () => {
  const svc = (args: string[]) => runSvc(args, { HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN });

  it('prints totals and one row per bucket, or the JSON answer', async () => {
    const human = await svc(['errors', 'stats', 'stats-fixed', '--since', '2026-01-10T00:00:00Z', '--until', '2026-01-10T03:00:00Z', '--outcome', 'accepted,rate_limited']);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toBe([
      `Project ${fixed.id}, 2026-01-10T00:00:00.000Z to 2026-01-10T03:00:00.000Z, by hour`,
      '',
      'OUTCOME       QUANTITY',
      'accepted             8',
      'rate_limited         2',
      '',
      'AT                    ACCEPTED  RATE_LIMITED',
      '2026-01-10T00:00:00Z         5             2',
      '2026-01-10T01:00:00Z         0             0',
      '2026-01-10T02:00:00Z         3             0',
      '',
    ].join('\n'));

    const json = await svc(['errors', 'stats', String(fixed.id), '--since', '2026-01-10', '--until', '2026-01-11', '--group-by', 'category', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).totals).toEqual([{ category: 'attachment', quantity: 500 }, { category: 'error', quantity: 15 }]);

    const refused = await svc(['errors', 'stats', 'stats-fixed', '--since', '2026-01-10', '--until', '2026-01-09']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_time_range');
  });
});
