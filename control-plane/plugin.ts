/** The control plane: REST under /api/v1 (and /mcp), authenticated, in one encapsulated fastify scope. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.ts';
import type { Scheduler } from '../core/scheduler.ts';
import { installAuth } from './auth-hook.ts';
import { loginRoutes } from './identity/login-routes.ts';
import { tokensRoutes } from './identity/tokens-routes.ts';
import { usersRoutes } from './identity/users-routes.ts';
import { teamsRoutes } from './teams/teams-routes.ts';
import { aiRoutes } from './ai/ai-routes.ts';
import { projectsRoutes } from './projects/projects-routes.ts';
import { issuesRoutes } from './projects/issues-routes.ts';

export function controlPlanePlugin(ctx: AppContext, scheduler: Scheduler) {
  return async (app: FastifyInstance): Promise<void> => {
    installAuth(app, ctx);
    loginRoutes(app, ctx);
    usersRoutes(app, ctx);
    tokensRoutes(app, ctx);
    teamsRoutes(app, ctx);
    aiRoutes(app, ctx);
    projectsRoutes(app, ctx);
    issuesRoutes(app, ctx);
    void scheduler;
  };
}
