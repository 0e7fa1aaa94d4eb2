/** Issues as the API shows them. */
import { rfc3339 } from '../../core/clock.ts';

export const ISSUE_STATES = ['unresolved', 'resolved', 'resolved_in_next_release', 'ignored'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

export interface IssueRow {
  id: string;
  project_id: number;
  team_id: string;
  fingerprint: string;
  title: string;
  culprit: string;
  level: string;
  type: string;
  state: IssueState;
  resolved_at: Date | null;
  resolved_in_release: string | null;
  ignore_until_count: number | null;
  ignored_at_count: number | null;
  regressed: boolean;
  count: number;
  people: number;
  first_seen: Date;
  last_seen: Date;
  first_release: string | null;
  last_release: string | null;
  last_event_id: string | null;
  assignee: string | null;
}

/** The SELECT list of an IssueRow (issues aliased `i`, joined to projects `p` for the team). */
export const ISSUE_COLUMNS = 'i.*, p.team_id';

export function issueView(i: IssueRow, publicUrl: string) {
  return {
    id: i.id,
    project: i.project_id,
    team: i.team_id,
    fingerprint: i.fingerprint,
    title: i.title,
    culprit: i.culprit,
    level: i.level,
    type: i.type,
    state: i.state,
    regressed: i.regressed,
    resolved_at: rfc3339(i.resolved_at),
    resolved_in_release: i.resolved_in_release,
    ignore_until_count: i.ignore_until_count,
    // How many more events until an ignored issue returns to unresolved (null when not counting).
    ignore_remaining: i.state === 'ignored' && i.ignore_until_count !== null ? Math.max(0, i.ignore_until_count - (i.count - (i.ignored_at_count ?? 0))) : null,
    count: i.count,
    people: i.people,
    first_seen: rfc3339(i.first_seen),
    last_seen: rfc3339(i.last_seen),
    first_release: i.first_release,
    last_release: i.last_release,
    last_event_id: i.last_event_id,
    assignee: i.assignee,
    url: `${publicUrl}/api/v1/issues/${i.id}`,
  };
}
