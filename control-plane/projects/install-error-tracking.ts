/**
 * Error-tracking management in the control plane: the REST routes (projects and their keys, issues and events,
 * releases, ingest stats), the search providers, the MCP tools and the retention job. One call from
 * control-plane/plugin.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import type { McpToolRegistry } from '../mcp/mcp-tools.ts';
import type { SearchRegistry } from '../search/search-registry.ts';
import { retentionJob } from './errors-retention.ts';
import { issueSearch, projectSearch } from './errors-search.ts';
import { errorsStatsTool, listIssuesTool, listProjectsTool, updateIssueTool } from './errors-tools.ts';
import { issuesRoutes } from './issues-routes.ts';
import { projectsRoutes, type ProjectLinks } from './projects-routes.ts';
import { releasesRoutes } from './releases-routes.ts';
import { statsRoutes } from './stats-routes.ts';

export function installErrorTracking(app: FastifyInstance, ctx: AppContext, parts: { scheduler: Scheduler; search: SearchRegistry; tools: McpToolRegistry; links: ProjectLinks }): void {
  projectsRoutes(app, ctx, parts.links);
  issuesRoutes(app, ctx);
  releasesRoutes(app, ctx);
  statsRoutes(app, ctx);
  parts.search.add(projectSearch);
  parts.search.add(issueSearch);
  parts.tools.add(listProjectsTool);
  parts.tools.add(listIssuesTool);
  parts.tools.add(updateIssueTool);
  parts.tools.add(errorsStatsTool);
  parts.scheduler.add(retentionJob());
}
