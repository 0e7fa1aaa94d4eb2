/**
 * MCP tools of error tracking, over the same services as the REST routes: `list_projects`, `list_issues` (the
 * filters and sorts of GET /api/v1/projects/{id}/issues), `update_issue` (state and/or assignee, like PATCH
 * /api/v1/issues/{id}) and `errors_stats` (ingest outcomes, like GET /api/v1/projects/{id}/stats).
 */
import { z } from 'zod';
import { defineTool, LIST_ARGS, listOutput, listPage, TEAM_ARG } from '../mcp/mcp-tools.ts';
import { ISSUE_ITEM, PROJECT_ITEM, STATS } from '../mcp/output-shapes.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { parseIssueChange } from './issue-change.ts';
import { ISSUE_LEVELS, ISSUE_SORTS, parseIssueFilter } from './issue-filter.ts';
import { listIssues, updateIssue } from './issue-service.ts';
import { ISSUE_STATES } from './issue-view.ts';
import { listProjects } from './project-service.ts';
import { INTERVALS, OUTCOMES, parseStatsParams, STATS_QUERY } from './stats-params.ts';
import { projectStats } from './stats-service.ts';

const PROJECT_ARG = z.int().min(1).describe('The project id.');

export const listProjectsTool = defineTool({
  name: 'list_projects',
  title: 'List error-tracking projects',
  description: 'Error-tracking projects of the teams you can read, with their DSN, limits and retention.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG },
  output: listOutput(PROJECT_ITEM),
  call: async ({ ctx, p }, args) => {
    const teamId = args.team === undefined ? undefined : await resolveTeamId(ctx.db, args.team);
    return listProjects(ctx, p, { teamId }, listPage(args, 1));
  },
});

export const listIssuesTool = defineTool({
  name: 'list_issues',
  title: "List a project's issues",
  description: 'Issues of one project (numeric id), filtered by state, level, release, environment, assignee, regressed or title text; sorted by last_seen (default), first_seen, count or people.',
  readOnly: true,
  input: {
    ...LIST_ARGS,
    project: PROJECT_ARG,
    state: z.string().optional().describe(`One or more of ${ISSUE_STATES.join(', ')}, separated by commas.`),
    level: z.enum(ISSUE_LEVELS).optional(),
    release: z.string().max(250).optional(),
    environment: z.string().max(250).optional(),
    assignee: z.enum(['me', 'none']).optional(),
    regressed: z.boolean().optional(),
    q: z.string().max(200).optional().describe('Text the title contains.'),
    sort: z.enum(ISSUE_SORTS).optional(),
  },
  output: listOutput(ISSUE_ITEM),
  call: ({ ctx, p }, args) => listIssues(ctx, p, args.project, parseIssueFilter(args), listPage(args, 3)),
});

export const updateIssueTool = defineTool({
  name: 'update_issue',
  title: 'Change an issue',
  description: 'Set the state of an issue (unresolved, resolved, resolved_in_next_release, ignored with an optional ignore_until_count) and/or take it (assignee "me") or unassign it ("nobody").',
  readOnly: false,
  input: {
    issue: z.string().max(64).describe('The issue id.'),
    state: z.enum(ISSUE_STATES).optional(),
    ignore_until_count: z.int().optional().describe('With state ignored: back to unresolved after this many more events.'),
    assignee: z.enum(['me', 'nobody']).optional(),
  },
  output: ISSUE_ITEM,
  call: ({ ctx, p }, args) => {
    const body: Record<string, unknown> = { state: args.state, ignore_until_count: args.ignore_until_count };
    if (args.assignee !== undefined) body.assignee = args.assignee === 'nobody' ? null : args.assignee;
    return updateIssue(ctx, p, args.issue, parseIssueChange(body, p));
  },
});

export const errorsStatsTool = defineTool({
  name: 'errors_stats',
  title: "A project's ingest stats",
  description: `How many items of one project (numeric id) the ingest accepted, filtered, rate-limited or found invalid, and how many its SDKs discarded (${OUTCOMES.join(', ')}): totals and a series by hour or day, grouped by outcome, reason and/or category. Default: the last 24 hours by hour, grouped by outcome.`,
  readOnly: true,
  input: {
    project: PROJECT_ARG,
    since: z.string().max(40).optional().describe(STATS_QUERY.since.description),
    until: z.string().max(40).optional().describe(STATS_QUERY.until.description),
    interval: z.enum(INTERVALS).optional(),
    group_by: z.string().max(40).optional().describe(STATS_QUERY.group_by.description),
    outcome: z.string().max(100).optional().describe(STATS_QUERY.outcome.description),
    category: z.string().max(200).optional().describe(STATS_QUERY.category.description),
  },
  output: STATS,
  call: ({ ctx, p }, args) => projectStats(ctx, p, args.project, parseStatsParams(args, ctx.clock.now())),
});
