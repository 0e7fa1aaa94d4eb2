/**
 * Issues in a simple form: the list of a project's issues (newest activity first, optional state filter), one
 * issue, and `PATCH /api/v1/issues/{id}` to change its state (set-issue-state.ts tells what each state does).
 * Search, more filters, assignment and events come with the full issues API.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireTeam } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { readableProject } from './projects-routes.ts';
import { ISSUE_COLUMNS, ISSUE_STATES, issueView, type IssueRow, type IssueState } from './issue-view.ts';
import { setIssueState } from './set-issue-state.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const ISSUE_ID = /^[0-9a-f]{1,64}$/;

async function readableIssue(ctx: AppContext, req: FastifyRequest, id: string): Promise<IssueRow> {
  const notFound = () => svcError('not_found', `The issue "${id.slice(0, 64)}" was not found.`);
  if (!ISSUE_ID.test(id)) throw notFound();
  const r = await ctx.db.query<IssueRow>(`SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1`, [id]);
  const row = r.rows[0];
  const p = principal(req);
  if (!row || (!p.isSuperuser && !p.teams.has(row.team_id))) throw notFound();
  requireTeam(p, row.team_id, 'read');
  return row;
}

export function issuesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/projects/:id/issues', {
    schema: {
      tags: ['issues'],
      summary: "List a project's issues, most recently seen first",
      params: ID,
      querystring: { type: 'object', properties: { ...LIST_QUERY, state: { type: 'string', enum: [...ISSUE_STATES] } } },
    },
  }, async (req) => {
    const project = await readableProject(ctx, req, (req.params as { id: string }).id);
    const query = req.query as { limit?: string; cursor?: string; state?: IssueState };
    const { limit, after } = parseListParams(query, 2);
    const params: unknown[] = [project.id, limit + 1];
    const where = ['i.project_id = $1'];
    if (query.state) where.push(`i.state = $${params.push(query.state)}`);
    if (after) where.push(`(i.last_seen, i.id) < ($${params.push(new Date(String(after[0])))}, $${params.push(String(after[1]))})`);
    const r = await ctx.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id WHERE ${where.join(' AND ')}
       ORDER BY i.last_seen DESC, i.id DESC LIMIT $2`,
      params,
    );
    return listEnvelope(r.rows, limit, (i) => [i.last_seen.toISOString(), i.id], (i) => issueView(i, ctx.config.publicUrl));
  });

  app.get('/api/v1/issues/:id', { schema: { tags: ['issues'], summary: 'Show an issue', params: ID } }, async (req) => {
    const row = await readableIssue(ctx, req, (req.params as { id: string }).id);
    return issueView(row, ctx.config.publicUrl);
  });

  app.patch('/api/v1/issues/:id', {
    schema: {
      tags: ['issues'],
      summary: "Change an issue's state",
      params: ID,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['state'],
        properties: {
          state: { type: 'string', enum: [...ISSUE_STATES] },
          ignore_until_count: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'With state ignored: back to unresolved after this many more events.' },
        },
      },
    },
  }, async (req) => {
    const row = await readableIssue(ctx, req, (req.params as { id: string }).id);
    requireTeam(principal(req), row.team_id, 'write');
    const body = req.body as { state: IssueState; ignore_until_count?: number };
    const updated = await ctx.db.tx(async (q) => {
      await setIssueState(q, row.id, row.project_id, { state: body.state, ignoreUntilCount: body.ignore_until_count }, new Date(ctx.clock.now()));
      return (await q.query<IssueRow>(`SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1`, [row.id])).rows[0];
    });
    return issueView(updated, ctx.config.publicUrl);
  });
}
