/**
 * Changing an issue's state by hand. What the ingest writer does with each state when events arrive:
 *
 * - `unresolved`: nothing special.
 * - `resolved`: the next event makes it unresolved again, flagged regressed (issue.regressed).
 * - `resolved_in_next_release`: remembers the project's newest release at this moment (the release that became
 *   known last, registered or first seen). Events of that release or an older one keep it resolved (and are still
 *   counted); an event of a release that became known later regresses it.
 * - `ignored`: counted silently; with `ignore_until_count` N, it returns to unresolved once N more events arrived.
 *
 * Any change by hand clears the regressed flag. The update runs under the issue's row lock, as the writer's does.
 */
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import type { IssueState } from './issue-view.ts';

export interface StateChange {
  state: IssueState;
  ignoreUntilCount?: number;
}

export async function setIssueState(q: Queryable, issueId: string, projectId: number, change: StateChange, now: Date): Promise<void> {
  if (change.ignoreUntilCount !== undefined && change.state !== 'ignored') {
    throw svcError('validation_failed', 'ignore_until_count is only allowed with the state "ignored".');
  }
  switch (change.state) {
    case 'unresolved':
      await q.query(
        `UPDATE issues SET state = 'unresolved', regressed = false, resolved_at = NULL, resolved_in_release = NULL,
           resolved_release_id = NULL, ignore_until_count = NULL, ignored_at_count = NULL, updated_at = $2 WHERE id = $1`,
        [issueId, now],
      );
      return;
    case 'resolved':
      await q.query(
        `UPDATE issues SET state = 'resolved', regressed = false, resolved_at = $2, resolved_in_release = NULL,
           resolved_release_id = NULL, ignore_until_count = NULL, ignored_at_count = NULL, updated_at = $2 WHERE id = $1`,
        [issueId, now],
      );
      return;
    case 'resolved_in_next_release': {
      const newest = await q.query<{ id: number; version: string }>(
        'SELECT id, version FROM releases WHERE project_id = $1 ORDER BY id DESC LIMIT 1',
        [projectId],
      );
      const r = newest.rows[0];
      await q.query(
        `UPDATE issues SET state = 'resolved_in_next_release', regressed = false, resolved_at = $2, resolved_in_release = $3,
           resolved_release_id = $4, ignore_until_count = NULL, ignored_at_count = NULL, updated_at = $2 WHERE id = $1`,
        [issueId, now, r?.version ?? null, r?.id ?? 0],
      );
      return;
    }
    case 'ignored':
      await q.query(
        `UPDATE issues SET state = 'ignored', regressed = false, resolved_at = NULL, resolved_in_release = NULL,
           resolved_release_id = NULL, ignore_until_count = $2, ignored_at_count = CASE WHEN $2::bigint IS NULL THEN NULL ELSE count END,
           updated_at = $3 WHERE id = $1`,
        [issueId, change.ignoreUntilCount ?? null, now],
      );
      return;
  }
}
