/**
 * Issues and their events under /api/v1: a project's issues (filters and sorts: issue-filter.ts), bulk changes to
 * them, one issue with its hourly counts, a change to one issue (state, assignee: issue-change.ts), the events of
 * an issue and one stored event. issue-service.ts and event-service.ts hold the rules.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { getEvent, listIssueEvents } from './event-service.ts';
import { ISSUE_CHANGE_FIELDS, parseIssueChange } from './issue-change.ts';
import { ISSUE_FILTER_QUERY, parseIssueFilter } from './issue-filter.ts';
import { hourlySeries, MAX_HOURS, MAX_SPARKLINE_HOURS, parseHours } from './issue-hourly.ts';
import { bulkUpdateIssues, issueDetail, listIssues, MAX_BULK_ISSUES, updateIssue } from './issue-service.ts';
import { parseNumericId } from './project-view.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { EVENT_DETAIL, EVENT_SUMMARY, ISSUE_DETAIL, ISSUE_LIST_ITEM, ISSUE_VIEW } from './errors-schemas.ts';
import { svcError } from '../../core/errors.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
const query = (req: { query: unknown }) => req.query as Record<string, string | undefined>;

export function issuesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/projects/:id/issues', {
    schema: {
      tags: ['issues'],
      summary: "List a project's issues with filters; sorted by last_seen (default), first_seen, count or people",
      params: ID,
      querystring: {
        type: 'object',
        properties: {
          ...LIST_QUERY, ...ISSUE_FILTER_QUERY,
          hourly: { type: 'string', description: `Add each issue's hourly counts over the last N hours (1 to ${MAX_SPARKLINE_HOURS}), oldest first: a sparkline per issue.` },
        },
      },
      response: { 200: listOf(ISSUE_LIST_ITEM) },
    },
  }, async (req) => {
    const q = query(req);
    const hours = q.hourly === undefined ? undefined : Number(q.hourly);
    if (hours !== undefined && !(/^\d+$/.test(q.hourly ?? '') && hours >= 1 && hours <= MAX_SPARKLINE_HOURS)) {
      throw svcError('validation_failed', `hourly must be a whole number of hours from 1 to ${MAX_SPARKLINE_HOURS} in a list (one issue shows up to ${MAX_HOURS}).`, { parameter: 'hourly', max: MAX_SPARKLINE_HOURS });
    }
    const page = await listIssues(ctx, principal(req), idOf(req), parseIssueFilter(q), parseListParams(q, 3));
    if (hours === undefined) return page;
    const series = await hourlySeries(ctx.db, page.items.map((i) => i.id), hours, ctx.clock.now());
    return { ...page, items: page.items.map((i) => ({ ...i, hourly: series.get(i.id) ?? [] })) };
  });

  app.patch('/api/v1/projects/:id/issues', {
    schema: {
      tags: ['issues'],
      summary: 'Change several issues of a project at once (all or nothing)',
      params: ID,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['ids'],
        properties: { ids: { type: 'array', minItems: 1, maxItems: MAX_BULK_ISSUES, items: { type: 'string', maxLength: 64 } }, ...ISSUE_CHANGE_FIELDS },
      },
      response: { 200: listOf(ISSUE_VIEW) },
    },
  }, async (req) => {
    const body = req.body as Record<string, unknown> & { ids: string[] };
    const p = principal(req);
    return bulkUpdateIssues(ctx, p, idOf(req), body.ids, parseIssueChange(body, p));
  });

  app.get('/api/v1/issues/:id', {
    schema: {
      tags: ['issues'],
      summary: 'Show an issue with its hourly counts (last 24 hours, or ?hours= up to 90 days)',
      params: ID,
      querystring: { type: 'object', properties: { hours: { type: 'string', description: `Hours of hourly counts, 1 to ${MAX_HOURS} (default 24).` } } },
      response: { 200: ISSUE_DETAIL },
    },
  }, async (req) => issueDetail(ctx, principal(req), idOf(req), parseHours(query(req).hours)));

  app.patch('/api/v1/issues/:id', {
    schema: {
      tags: ['issues'],
      summary: "Change an issue's state and/or assignee (me or null)",
      params: ID,
      body: { type: 'object', additionalProperties: false, properties: ISSUE_CHANGE_FIELDS },
      response: { 200: ISSUE_VIEW },
    },
  }, async (req) => {
    const p = principal(req);
    return updateIssue(ctx, p, idOf(req), parseIssueChange(req.body as Record<string, unknown>, p));
  });

  app.get('/api/v1/issues/:id/events', {
    schema: { tags: ['issues'], summary: "An issue's stored events, newest first", params: ID, querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(EVENT_SUMMARY) } },
  }, async (req) => listIssueEvents(ctx, principal(req), idOf(req), parseListParams(query(req), 2)));

  app.get('/api/v1/events/:event_id', {
    schema: {
      tags: ['issues'],
      summary: 'One event as stored (normalised and scrubbed)',
      params: { type: 'object', properties: { event_id: { type: 'string' } }, required: ['event_id'] },
      querystring: { type: 'object', properties: { project: { type: 'string', description: 'The project id, when two projects have an event with this id.' } } },
      response: { 200: EVENT_DETAIL },
    },
  }, async (req) => {
    const raw = query(req).project;
    const project = raw === undefined || raw === '' ? undefined : (parseNumericId(raw) ?? -1);
    return getEvent(ctx, principal(req), (req.params as { event_id: string }).event_id, project);
  });
}
