/**
 * Issues: one issue with its hourly counts, the filtered and sorted list of a project's issues (keyset cursors per
 * sort), and changes by hand (state, assignee), one at a time or in bulk. Used by the REST routes and the MCP
 * tools with the same Principal. Issues of teams the caller is not in are not_found (no existence leak).
 */
import type { AppContext } from '../../core/context.ts';
import { requireTeam, type Need, type Principal } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { containsPattern } from '../search/search-registry.ts';
import { applyIssueChange, type IssueChange } from './issue-change.ts';
import type { IssueFilter, IssueSort } from './issue-filter.ts';
import { hourlyCounts } from './issue-hourly.ts';
import { ISSUE_COLUMNS, issueView, type IssueRow } from './issue-view.ts';
import { loadProject } from './project-service.ts';

export type IssueView = ReturnType<typeof issueView>;

const ISSUE_ID = /^[0-9a-f]{1,64}$/;
const SELECT_ISSUE = `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id`;

/** Sort column and the SQL type of its cursor value. */
const SORTS: Record<IssueSort, { column: string; cast: string }> = {
  last_seen: { column: 'i.last_seen', cast: 'timestamptz' },
  first_seen: { column: 'i.first_seen', cast: 'timestamptz' },
  count: { column: 'i.count', cast: 'bigint' },
  people: { column: 'i.people', cast: 'bigint' },
};

export async function loadIssue(ctx: AppContext, p: Principal, id: string, need: Need = 'read'): Promise<IssueRow> {
  const notFound = () => svcError('not_found', `The issue "${id.slice(0, 64)}" was not found.`);
  if (!ISSUE_ID.test(id)) throw notFound();
  const row = (await ctx.db.query<IssueRow>(`${SELECT_ISSUE} WHERE i.id = $1`, [id])).rows[0];
  if (!row || (!p.isSuperuser && !p.teams.has(row.team_id))) throw notFound();
  requireTeam(p, row.team_id, need);
  return row;
}

/** One issue with its hourly counts over the last `hours` hours (oldest first, ending with the current hour). */
export async function issueDetail(ctx: AppContext, p: Principal, id: string, hours: number): Promise<IssueView & { hourly: Array<{ hour: string; count: number }> }> {
  const row = await loadIssue(ctx, p, id);
  return { ...issueView(row, ctx.config.publicUrl), hourly: await hourlyCounts(ctx.db, row.id, hours, ctx.clock.now()) };
}

function sortValue(row: IssueRow, sort: IssueSort): string | number {
  if (sort === 'last_seen') return row.last_seen.toISOString();
  if (sort === 'first_seen') return row.first_seen.toISOString();
  return row[sort];
}

export async function listIssues(ctx: AppContext, p: Principal, projectId: string | number, filter: IssueFilter, page: ListParams): Promise<{ items: IssueView[]; next_cursor: string | null }> {
  const project = await loadProject(ctx, p, projectId, 'read');
  const params: unknown[] = [project.id, page.limit + 1];
  const where = ['i.project_id = $1'];
  if (filter.states) where.push(`i.state = ANY($${params.push(filter.states)}::text[])`);
  if (filter.level) where.push(`i.level = $${params.push(filter.level)}`);
  if (filter.regressed !== undefined) where.push(`i.regressed = $${params.push(filter.regressed)}`);
  if (filter.q) where.push(`i.title ILIKE $${params.push(containsPattern(filter.q))} ESCAPE '\\'`);
  if (filter.assignee === 'none') where.push('i.assignee IS NULL');
  if (filter.assignee === 'me') {
    if (p.userId === null) throw svcError('assignee_needs_user', 'assignee=me needs the credentials of a user; this token belongs to no user.');
    where.push(`i.assignee = $${params.push(p.userId)}`);
  }
  if (filter.release) {
    const n = params.push(filter.release);
    where.push(`(i.first_release = $${n} OR i.last_release = $${n} OR EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id AND e.release = $${n}))`);
  }
  if (filter.environment) where.push(`EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id AND e.environment = $${params.push(filter.environment)})`);
  const { column, cast } = SORTS[filter.sort];
  if (page.after) {
    const [sort, value, id] = page.after;
    if (sort !== filter.sort) throw svcError('invalid_cursor', 'The cursor belongs to another sort; start again without a cursor.');
    where.push(`(${column}, i.id) < ($${params.push(value)}::${cast}, $${params.push(String(id))})`);
  }
  const r = await ctx.db.query<IssueRow>(`${SELECT_ISSUE} WHERE ${where.join(' AND ')} ORDER BY ${column} DESC, i.id DESC LIMIT $2`, params);
  return listEnvelope(r.rows, page.limit, (row) => [filter.sort, sortValue(row, filter.sort), row.id], (row) => issueView(row, ctx.config.publicUrl));
}

export async function updateIssue(ctx: AppContext, p: Principal, id: string, change: IssueChange): Promise<IssueView> {
  const row = await loadIssue(ctx, p, id, 'write');
  const now = new Date(ctx.clock.now());
  const updated = await ctx.db.tx(async (q) => {
    await q.query('SELECT id FROM issues WHERE id = $1 FOR UPDATE', [row.id]);
    await applyIssueChange(q, row, change, now);
    return (await q.query<IssueRow>(`${SELECT_ISSUE} WHERE i.id = $1`, [row.id])).rows[0];
  });
  return issueView(updated, ctx.config.publicUrl);
}

export const MAX_BULK_ISSUES = 100;

/** The same change to several issues of one project, all or nothing; an id not in the project refuses the lot. */
export async function bulkUpdateIssues(ctx: AppContext, p: Principal, projectId: string | number, ids: string[], change: IssueChange): Promise<{ items: IssueView[]; next_cursor: null }> {
  const project = await loadProject(ctx, p, projectId, 'write');
  const unique = [...new Set(ids)].sort();
  const now = new Date(ctx.clock.now());
  const rows = await ctx.db.tx(async (q) => {
    // Row locks in id order, as the ingest writer takes them, so the two never deadlock.
    const locked = await q.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE', [project.id, unique]);
    const found = new Set(locked.rows.map((r) => r.id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length) throw svcError('not_found', `${missing.length} of the issues are not in project ${project.id}; nothing was changed.`, { missing });
    for (const id of unique) await applyIssueChange(q, { id, project_id: project.id }, change, now);
    return (await q.query<IssueRow>(`${SELECT_ISSUE} WHERE i.id = ANY($1::text[]) ORDER BY i.id`, [unique])).rows;
  });
  return { items: rows.map((r) => issueView(r, ctx.config.publicUrl)), next_cursor: null };
}
