/**
 * MCP tools of error tracking, over the same services as the REST routes: `list_projects`, `list_issues` (the
 * filters and sorts of GET /api/v1/projects/{id}/issues), `update_issue` (state and/or assignee, like PATCH
 * /api/v1/issues/{id}) and `errors_stats` (ingest outcomes, like GET /api/v1/projects/{id}/stats).
 */
import { LIST_ARGS, listPage, TEAM_ARG, type McpTool } from '../mcp/mcp-tools.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { parseIssueChange } from './issue-change.ts';
import { ISSUE_LEVELS, ISSUE_SORTS, parseIssueFilter } from './issue-filter.ts';
import { listIssues, updateIssue } from './issue-service.ts';
import { ISSUE_STATES } from './issue-view.ts';
import { listProjects } from './project-service.ts';
import { INTERVALS, OUTCOMES, parseStatsParams, STATS_QUERY } from './stats-params.ts';
import { projectStats } from './stats-service.ts';

export const listProjectsTool: McpTool = {
  name: 'list_projects',
  title: 'List error-tracking projects',
  description: 'Error-tracking projects of the teams you can read, with their DSN, limits and retention.',
  readOnly: true,
  inputSchema: { type: 'object', additionalProperties: false, properties: { ...LIST_ARGS, team: TEAM_ARG } },
  call: async (ctx, p, args) => {
    const teamId = typeof args.team === 'string' ? await resolveTeamId(ctx.db, args.team) : undefined;
    return listProjects(ctx, p, { teamId }, listPage(args, 1));
  },
};

export const listIssuesTool: McpTool = {
  name: 'list_issues',
  title: "List a project's issues",
  description: 'Issues of one project (numeric id), filtered by state, level, release, environment, assignee, regressed or title text; sorted by last_seen (default), first_seen, count or people.',
  readOnly: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['project'],
    properties: {
      ...LIST_ARGS,
      project: { type: 'integer', minimum: 1, description: 'The project id.' },
      state: { type: 'string', description: `One or more of ${ISSUE_STATES.join(', ')}, separated by commas.` },
      level: { type: 'string', enum: ISSUE_LEVELS },
      release: { type: 'string', maxLength: 250 },
      environment: { type: 'string', maxLength: 250 },
      assignee: { type: 'string', enum: ['me', 'none'] },
      regressed: { type: 'boolean' },
      q: { type: 'string', maxLength: 200, description: 'Text the title contains.' },
      sort: { type: 'string', enum: ISSUE_SORTS },
    },
  },
  call: (ctx, p, args) => listIssues(ctx, p, args.project as number, parseIssueFilter(args), listPage(args, 3)),
};

export const updateIssueTool: McpTool = {
  name: 'update_issue',
  title: 'Change an issue',
  description: 'Set the state of an issue (unresolved, resolved, resolved_in_next_release, ignored with an optional ignore_until_count) and/or take it (assignee "me") or unassign it ("nobody").',
  readOnly: false,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['issue'],
    properties: {
      issue: { type: 'string', maxLength: 64, description: 'The issue id.' },
      state: { type: 'string', enum: ISSUE_STATES },
      ignore_until_count: { type: 'integer', description: 'With state ignored: back to unresolved after this many more events.' },
      assignee: { type: 'string', enum: ['me', 'nobody'] },
    },
  },
  call: (ctx, p, args) => {
    const body: Record<string, unknown> = { state: args.state, ignore_until_count: args.ignore_until_count };
    if (args.assignee !== undefined) body.assignee = args.assignee === 'nobody' ? null : args.assignee;
    return updateIssue(ctx, p, args.issue as string, parseIssueChange(body, p));
  },
};

export const errorsStatsTool: McpTool = {
  name: 'errors_stats',
  title: "A project's ingest stats",
  description: `How many items of one project (numeric id) the ingest accepted, filtered, rate-limited or found invalid, and how many its SDKs discarded (${OUTCOMES.join(', ')}): totals and a series by hour or day, grouped by outcome, reason and/or category. Default: the last 24 hours by hour, grouped by outcome.`,
  readOnly: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['project'],
    properties: {
      project: { type: 'integer', minimum: 1, description: 'The project id.' },
      since: { type: 'string', maxLength: 40, description: STATS_QUERY.since.description },
      until: { type: 'string', maxLength: 40, description: STATS_QUERY.until.description },
      interval: { type: 'string', enum: INTERVALS },
      group_by: { type: 'string', maxLength: 40, description: STATS_QUERY.group_by.description },
      outcome: { type: 'string', maxLength: 100, description: STATS_QUERY.outcome.description },
      category: { type: 'string', maxLength: 200, description: STATS_QUERY.category.description },
    },
  },
  call: (ctx, p, args) => projectStats(ctx, p, args.project as number, parseStatsParams(args, ctx.clock.now())),
};
