import { describe, expect, it } from 'vitest';
import { applyEvents, type IssueStateRow } from './issue-transition.ts';

const base: IssueStateRow = { state: 'unresolved', regressed: false, count: 10, resolvedReleaseId: null, ignoreUntilCount: null, ignoredAtCount: null };
const ev = (n: number, releaseId?: number) => Array.from({ length: n }, (_, i) => (releaseId === undefined ? { eventId: `e${i}` } : { eventId: `e${i}`, releaseId }));

describe('applyEvents', () => {
  it('leaves an unresolved issue alone', () => {
    expect(applyEvents(base, ev(3))).toEqual({ state: 'unresolved', regressed: false, changed: false });
  });

  it('regresses a resolved issue on the first event, naming it', () => {
    expect(applyEvents({ ...base, state: 'resolved' }, ev(3))).toEqual({ state: 'unresolved', regressed: true, changed: true, regressedBy: 'e0' });
  });

  it('keeps resolved_in_next_release for the remembered release, older ones and events without a release', () => {
    const issue: IssueStateRow = { ...base, state: 'resolved_in_next_release', resolvedReleaseId: 5 };
    expect(applyEvents(issue, [...ev(1, 5), ...ev(1, 3), ...ev(1)])).toEqual({ state: 'resolved_in_next_release', regressed: false, changed: false });
    expect(applyEvents(issue, [{ eventId: 'a', releaseId: 5 }, { eventId: 'b', releaseId: 6 }])).toMatchObject({ state: 'unresolved', regressed: true, regressedBy: 'b' });
  });

  it('regresses resolved_in_next_release on any release when none was known at resolve time', () => {
    const issue: IssueStateRow = { ...base, state: 'resolved_in_next_release', resolvedReleaseId: 0 };
    expect(applyEvents(issue, ev(1))).toMatchObject({ state: 'resolved_in_next_release' });
    expect(applyEvents(issue, ev(1, 1))).toMatchObject({ state: 'unresolved', regressed: true });
  });

  it('unignores after N events counted from the moment of ignoring, across batches', () => {
    const issue: IssueStateRow = { ...base, state: 'ignored', ignoreUntilCount: 3, ignoredAtCount: 10 };
    expect(applyEvents(issue, ev(2))).toMatchObject({ state: 'ignored', changed: false });
    expect(applyEvents({ ...issue, count: 12 }, ev(1))).toEqual({ state: 'unresolved', regressed: false, changed: true });
    expect(applyEvents(issue, ev(5))).toMatchObject({ state: 'unresolved', regressed: false });
  });

  it('keeps an issue ignored without a count ignored', () => {
    expect(applyEvents({ ...base, state: 'ignored' }, ev(1000))).toMatchObject({ state: 'ignored', changed: false });
  });
});
