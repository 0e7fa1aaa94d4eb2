/** The control plane: REST under /api/v1 (and /mcp), authenticated, in one encapsulated fastify scope. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.ts';
import type { Scheduler } from '../core/scheduler.ts';
import { installAuth } from './auth-hook.ts';
import { loginRoutes } from './identity/login-routes.ts';
import { tokensRoutes } from './identity/tokens-routes.ts';
import { usersRoutes } from './identity/users-routes.ts';
import { teamsRoutes } from './teams/teams-routes.ts';
import { installWebhookDispatcher } from './webhooks/install-dispatcher.ts';
import { webhooksRoutes } from './webhooks/webhooks-routes.ts';
import { webhookSearch } from './search/webhook-search.ts';
import { listWebhooksTool } from './webhooks/webhook-tools.ts';
import { notificationsRoutes } from './notifications/notifications-routes.ts';
import { listNotificationsTool } from './notifications/notification-tools.ts';
import { SearchRegistry } from './search/search-registry.ts';
import { searchRoutes } from './search/search-routes.ts';
import { searchTool } from './search/search-tool.ts';
import { teamSearch } from './search/team-search.ts';
import { tokenSearch } from './search/token-search.ts';
import { McpToolRegistry } from './mcp/mcp-tools.ts';
import { mcpRoutes } from './mcp/mcp-routes.ts';
import { listTeamsTool, listTokensTool } from './mcp/identity-tools.ts';
import { GATEWAY_TOOLS } from './mcp/gateway/gateway-tools.ts';
import { aiRoutes } from './ai/ai-routes.ts';
import { usageRoutes } from './usage/usage-routes.ts';
import { callsRoutes } from './calls/calls-routes.ts';
import { accountSearch, aliasSearch, keySearch } from './ai/ai-search.ts';
import { installErrorTracking } from './projects/install-error-tracking.ts';
import { compressionRoutes } from './settings/compression-routes.ts';

export function controlPlanePlugin(ctx: AppContext, scheduler: Scheduler) {
  return async (app: FastifyInstance): Promise<void> => {
    installAuth(app, ctx);
    // Search providers and MCP tools: one line each (search/search-registry.ts, mcp/mcp-tools.ts).
    const search = new SearchRegistry();
    const tools = new McpToolRegistry();
    search.add(teamSearch);
    search.add(tokenSearch);
    search.add(webhookSearch);
    search.add(keySearch);
    search.add(accountSearch);
    search.add(aliasSearch);
    tools.add(searchTool(search));
    tools.add(listTeamsTool);
    tools.add(listTokensTool);
    tools.add(listNotificationsTool);
    tools.add(listWebhooksTool);
    for (const tool of GATEWAY_TOOLS) tools.add(tool);
    loginRoutes(app, ctx);
    usersRoutes(app, ctx);
    tokensRoutes(app, ctx);
    teamsRoutes(app, ctx);
    aiRoutes(app, ctx);
    usageRoutes(app, ctx);
    compressionRoutes(app, ctx);
    callsRoutes(app, ctx, scheduler);
    installErrorTracking(app, ctx, { scheduler, search, tools });
    webhooksRoutes(app, ctx);
    notificationsRoutes(app, ctx);
    searchRoutes(app, ctx, search);
    mcpRoutes(app, ctx, tools);
    await installWebhookDispatcher(app, ctx, scheduler);
  };
}
