/**
 * The filters and sorts of GET /api/v1/projects/{id}/issues, read from query strings (REST) or tool arguments (MCP)
 * into one checked shape:
 *
 * - `state`: one state or several separated by commas (unresolved, resolved, resolved_in_next_release, ignored);
 * - `level`: fatal, error, warning, info or debug;
 * - `release`: issues first or last seen in that release, or with a kept event of it;
 * - `environment`: issues with a kept event of that environment (events older than the retention are gone);
 * - `assignee`: `me` (assigned to the caller) or `none` (unassigned);
 * - `regressed`: `true` or `false`;
 * - `q`: text the title contains (case-insensitive);
 * - `sort`: last_seen (default), first_seen, count or people, always descending, ties by id.
 */
import { svcError } from '../../core/errors.ts';
import { ISSUE_STATES, type IssueState } from './issue-view.ts';

export const ISSUE_LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'] as const;
export const ISSUE_SORTS = ['last_seen', 'first_seen', 'count', 'people'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export interface IssueFilter {
  states?: IssueState[];
  level?: string;
  release?: string;
  environment?: string;
  assignee?: 'me' | 'none';
  regressed?: boolean;
  q?: string;
  sort: IssueSort;
}

/** Query-string schema of the filters (all strings: the route parses and checks them). */
export const ISSUE_FILTER_QUERY = {
  state: { type: 'string', description: `One or more of ${ISSUE_STATES.join(', ')}, separated by commas.` },
  level: { type: 'string', description: ISSUE_LEVELS.join(', ') },
  release: { type: 'string', maxLength: 250, description: 'Issues first or last seen in this release, or with a kept event of it.' },
  environment: { type: 'string', maxLength: 250, description: 'Issues with a kept event of this environment.' },
  assignee: { type: 'string', description: 'me (assigned to you) or none (unassigned).' },
  regressed: { type: 'string', description: 'true or false.' },
  q: { type: 'string', maxLength: 200, description: 'Text the title contains (case-insensitive).' },
  sort: { type: 'string', description: `${ISSUE_SORTS.join(', ')} (descending; default last_seen).` },
} as const;

export type IssueFilterInput = Partial<Record<keyof typeof ISSUE_FILTER_QUERY, unknown>>;

const isIssueState = (s: string): s is IssueState => (ISSUE_STATES as readonly string[]).includes(s);

export function parseIssueStates(raw: string): IssueState[] {
  const states = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = states.filter((s) => !isIssueState(s));
  if (states.length === 0 || bad.length) throw svcError('invalid_issue_state', `Unknown issue state "${(bad[0] ?? raw).slice(0, 40)}"; use ${ISSUE_STATES.join(', ')}.`, { allowed: ISSUE_STATES });
  return [...new Set(states)] as IssueState[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function parseIssueFilter(input: IssueFilterInput): IssueFilter {
  const out: IssueFilter = { sort: 'last_seen' };
  const state = str(input.state);
  if (state !== undefined) out.states = parseIssueStates(state);
  const level = str(input.level);
  if (level !== undefined) {
    if (!(ISSUE_LEVELS as readonly string[]).includes(level)) throw svcError('validation_failed', `The level filter must be one of ${ISSUE_LEVELS.join(', ')}.`, { parameter: 'level' });
    out.level = level;
  }
  const assignee = str(input.assignee);
  if (assignee !== undefined) {
    if (assignee !== 'me' && assignee !== 'none') throw svcError('validation_failed', 'The assignee filter must be me or none.', { parameter: 'assignee' });
    out.assignee = assignee;
  }
  const regressed = input.regressed;
  if (regressed !== undefined && regressed !== '') {
    if (regressed === true || regressed === 'true') out.regressed = true;
    else if (regressed === false || regressed === 'false') out.regressed = false;
    else throw svcError('validation_failed', 'The regressed filter must be true or false.', { parameter: 'regressed' });
  }
  const sort = str(input.sort);
  if (sort !== undefined) {
    if (!(ISSUE_SORTS as readonly string[]).includes(sort)) throw svcError('validation_failed', `The sort must be one of ${ISSUE_SORTS.join(', ')}.`, { parameter: 'sort' });
    out.sort = sort as IssueSort;
  }
  const release = str(input.release);
  if (release !== undefined) out.release = release;
  const environment = str(input.environment);
  if (environment !== undefined) out.environment = environment;
  const q = str(input.q)?.trim();
  if (q) out.q = q;
  return out;
}
