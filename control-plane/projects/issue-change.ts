/**
 * A change to one or many issues by hand (PATCH /api/v1/issues/{id}, the bulk PATCH of a project's issues, the
 * update_issue MCP tool): a new state (set-issue-state.ts tells what each does), and/or an assignee, which is
 * only ever the caller (`"me"`, or the caller's own user id) or nobody (`null`). Assigning anyone else is refused:
 * an issue is taken, not handed out.
 */
import type { Principal } from '../../core/auth/principal.ts';
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import { ISSUE_STATES, type IssueState } from './issue-view.ts';
import { setIssueState } from './set-issue-state.ts';

export const MAX_IGNORE_COUNT = 1_000_000_000;

/** The JSON schema of the change fields (checked loosely here, precisely by parseIssueChange for exact codes). */
export const ISSUE_CHANGE_FIELDS = {
  state: { type: 'string', description: `${ISSUE_STATES.join(', ')}.` },
  ignore_until_count: { type: ['number', 'null'], description: 'With state ignored: back to unresolved after this many more events (1 to 1000000000).' },
  assignee: { type: ['string', 'null'], description: '"me" to take the issue, null to unassign; nobody else can be assigned.' },
} as const;

export interface IssueChange {
  state?: IssueState;
  ignoreUntilCount?: number;
  /** A user id to assign, or null to unassign; undefined leaves the assignee alone. */
  assignee?: string | null;
}

export function parseIssueChange(body: Record<string, unknown>, p: Principal): IssueChange {
  const out: IssueChange = {};
  if (body.state !== undefined) {
    if (typeof body.state !== 'string' || !(ISSUE_STATES as readonly string[]).includes(body.state)) {
      throw svcError('invalid_issue_state', `Unknown issue state "${String(body.state).slice(0, 40)}"; use ${ISSUE_STATES.join(', ')}.`, { allowed: ISSUE_STATES });
    }
    out.state = body.state as IssueState;
  }
  if (body.ignore_until_count !== undefined && body.ignore_until_count !== null) {
    const n = body.ignore_until_count;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_IGNORE_COUNT) {
      throw svcError('invalid_ignore_count', `ignore_until_count must be a whole number from 1 to ${MAX_IGNORE_COUNT}; got ${String(n).slice(0, 20)}.`);
    }
    if (out.state !== 'ignored') throw svcError('invalid_ignore_count', 'ignore_until_count goes with the state "ignored" only.');
    out.ignoreUntilCount = n;
  }
  if (body.assignee !== undefined) out.assignee = parseAssignee(body.assignee, p);
  if (out.state === undefined && out.assignee === undefined) throw svcError('validation_failed', 'Give a state, an assignee, or both.');
  return out;
}

function parseAssignee(v: unknown, p: Principal): string | null {
  if (v === null) return null;
  if (v !== 'me' && (p.userId === null || v !== p.userId)) {
    throw svcError('assignee_not_allowed', `An issue can be assigned only to yourself ("me") or to nobody (null), not to "${String(v).slice(0, 40)}".`);
  }
  if (p.userId === null) throw svcError('assignee_needs_user');
  return p.userId;
}

/** Applies the change to a locked issue row (the caller holds the row lock inside its transaction). */
export async function applyIssueChange(q: Queryable, issue: { id: string; project_id: number }, change: IssueChange, now: Date): Promise<void> {
  if (change.state !== undefined) {
    const state: { state: IssueState; ignoreUntilCount?: number } = { state: change.state };
    if (change.ignoreUntilCount !== undefined) state.ignoreUntilCount = change.ignoreUntilCount;
    await setIssueState(q, issue.id, issue.project_id, state, now);
  }
  if (change.assignee !== undefined) {
    await q.query('UPDATE issues SET assignee = $2, updated_at = $3 WHERE id = $1', [issue.id, change.assignee, now]);
  }
}
