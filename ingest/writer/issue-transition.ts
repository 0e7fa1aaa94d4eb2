/**
 * What a batch of new events does to one issue's state, computed under the issue's row lock. Pure.
 *
 * Events are applied in arrival order:
 * - `resolved`: the first event makes it unresolved and regressed (issue.regressed, with that event).
 * - `resolved_in_next_release`: an event whose release became known after the release remembered at resolve
 *   time (a higher release id) regresses it; events of that release or older, or without a release, keep it
 *   resolved and are only counted.
 * - `ignored` with `ignore_until_count` N: once N events arrived since it was ignored, it is unresolved again
 *   (no notification); ignored without a count stays ignored.
 * - `unresolved`: unchanged.
 */

export type IssueState = 'unresolved' | 'resolved' | 'resolved_in_next_release' | 'ignored';

export interface IssueStateRow {
  state: IssueState;
  regressed: boolean;
  count: number;
  resolvedReleaseId: number | null;
  ignoreUntilCount: number | null;
  ignoredAtCount: number | null;
}

export interface TransitionEvent {
  eventId: string;
  /** The id of the event's release (releases.id), when it has one. */
  releaseId?: number;
}

export interface TransitionResult {
  state: IssueState;
  regressed: boolean;
  /** Whether the state fields changed (resolve and ignore bookkeeping is cleared when it did). */
  changed: boolean;
  /** The event that regressed the issue, when one did. */
  regressedBy?: string;
}

export function applyEvents(issue: IssueStateRow, events: readonly TransitionEvent[]): TransitionResult {
  let state = issue.state;
  let regressed = issue.regressed;
  let regressedBy: string | undefined;
  let count = issue.count;
  for (const e of events) {
    count += 1;
    if (state === 'resolved') {
      state = 'unresolved';
      regressed = true;
      regressedBy ??= e.eventId;
    } else if (state === 'resolved_in_next_release') {
      if (e.releaseId !== undefined && e.releaseId > (issue.resolvedReleaseId ?? 0)) {
        state = 'unresolved';
        regressed = true;
        regressedBy ??= e.eventId;
      }
    } else if (state === 'ignored' && issue.ignoreUntilCount !== null) {
      if (count - (issue.ignoredAtCount ?? issue.count) >= issue.ignoreUntilCount) state = 'unresolved';
    }
  }
  const out: TransitionResult = { state, regressed, changed: state !== issue.state };
  if (regressedBy !== undefined) out.regressedBy = regressedBy;
  return out;
}
