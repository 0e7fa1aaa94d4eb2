/** Response schemas of the team routes (views of list-teams.ts and teams-routes.ts). */
import { TEAM_LIMIT_NAMES } from '../../core/team-limits.ts';
import { object, TIME } from '../../core/http/response-schema.ts';

/** The limits that are set; an absent limit is unlimited. */
export const TEAM_LIMITS_VIEW = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(TEAM_LIMIT_NAMES.map((n) => [n, { type: 'integer', minimum: 0 }])),
};

export const TEAM_VIEW = object({ id: { type: 'string' }, name: { type: 'string' }, limits: TEAM_LIMITS_VIEW, created_at: TIME });

export const MEMBER_VIEW = object({ user: { type: 'string' }, username: { type: 'string' }, role: { type: 'string' }, created_at: TIME });
