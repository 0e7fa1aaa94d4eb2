import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { MemoryCounters } from '../core/counters/memory-counters.ts';
import { IngestLimiter, monthOf, nextMonthStart } from './ingest-limiter.ts';
import type { IngestProject, ProjectLookup } from './project-lookup.ts';

const project = { id: 3, teamId: 'team1', eventsPerMinute: 3 } as IngestProject;

function limiter(monthly: number | null, clock = new ManualClock(Date.UTC(2026, 0, 31, 23, 59, 0))) {
  const lookup = { teamMonthlyEvents: async () => monthly } as unknown as ProjectLookup;
  return { l: new IngestLimiter(new MemoryCounters(clock), lookup, clock), clock };
}

describe('IngestLimiter', () => {
  it('admits the events per minute exactly, then refuses with the SDK rate-limit headers', async () => {
    const { l, clock } = limiter(null);
    for (let i = 0; i < 3; i++) await l.admitEvent(project);
    const err = await l.admitEvent(project).catch((e) => e);
    expect(err).toMatchObject({ code: 'project_events_per_minute', status: 429 });
    expect(err.headers['X-Sentry-Rate-Limits']).toBe('60:error;default:project:project_events_per_minute');
    expect(err.headers['X-Client-Rate-Limits']).toBe(err.headers['X-Sentry-Rate-Limits']);
    expect(err.headers['Retry-After']).toBe('60');
    clock.advance(60_001);
    await l.admitEvent(project);
  });

  it("refuses past the team's monthly events until the next month, without counting the refused ones", async () => {
    const { l, clock } = limiter(2);
    await l.admitEvent({ ...project, eventsPerMinute: 100 });
    await l.admitEvent({ ...project, eventsPerMinute: 100 });
    for (let i = 0; i < 3; i++) {
      const err = await l.admitEvent({ ...project, eventsPerMinute: 100 }).catch((e) => e);
      expect(err).toMatchObject({ code: 'team_errors_events', status: 429 });
      expect(err.headers['X-Sentry-Rate-Limits']).toBe('60:error;default:organization:team_errors_events');
    }
    clock.advance(61_000);
    expect(monthOf(clock.now())).toBe('2026-02');
    await l.admitEvent({ ...project, eventsPerMinute: 100 });
  });

  it("sends the minute's hits of one turn of the event loop together, admitting as many as the window has room for", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 10));
    const counters = new MemoryCounters(clock);
    const calls: number[] = [];
    const hitMany = counters.hitMany.bind(counters);
    counters.hitMany = async (key, limit, windowMs, n) => {
      calls.push(n);
      return hitMany(key, limit, windowMs, n);
    };
    const lookup = { teamMonthlyEvents: async () => null } as unknown as ProjectLookup;
    const l = new IngestLimiter(counters, lookup, clock);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => l.admitEvent(project)));
    expect(calls).toEqual([5]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ code: 'project_events_per_minute' });
  });

  it('computes month keys and boundaries in UTC', () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 0))).toBe('2026-12');
    expect(nextMonthStart(Date.UTC(2026, 11, 31, 23, 0))).toBe(Date.UTC(2027, 0, 1));
  });
});

describe('monthly counts of teams without a limit', () => {
  it('are summed and added to the shared counter on flush', async () => {
    const clock = new ManualClock(Date.UTC(2026, 4, 10));
    const counters = new MemoryCounters(clock);
    const lookup = { teamMonthlyEvents: async () => null } as unknown as ProjectLookup;
    const l = new IngestLimiter(counters, lookup, clock);
    for (let i = 0; i < 5; i++) await l.admitEvent({ ...project, eventsPerMinute: 100 });
    expect(await counters.get('ingest:month:team1:2026-05')).toBe(0);
    await l.flush();
    expect(await counters.get('ingest:month:team1:2026-05')).toBe(5);
  });
});
