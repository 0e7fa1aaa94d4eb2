/**
 * Who is calling the REST API, and what they may do. Access = the token's scope together with the caller's role in
 * the team (docs/identity.md has the matrix):
 *
 *   role \ needs   read   deploy   write    manage (team settings, members, webhooks)
 *   viewer          ✓
 *   member          ✓       ✓        ✓
 *   admin           ✓       ✓        ✓        ✓
 *   owner           ✓       ✓        ✓        ✓ (and deleting the team)
 *
 * and the token's scope caps it: `read` allows read, `deploy` read + deploy, `write` everything the role allows.
 * Superusers (instance administrators) pass every team check; their scope still caps what a token may do.
 */
import { svcError } from '../errors.ts';

export type Scope = 'read' | 'deploy' | 'write';
export type TeamRole = 'viewer' | 'member' | 'admin' | 'owner';
export type Need = 'read' | 'deploy' | 'write' | 'manage' | 'own';

export const SCOPES: readonly Scope[] = ['read', 'deploy', 'write'];
export const TEAM_ROLES: readonly TeamRole[] = ['viewer', 'member', 'admin', 'owner'];

export interface Principal {
  userId: string | null;
  isSuperuser: boolean;
  scope: Scope;
  via: 'token' | 'session' | 'admin_token' | 'access_token';
  /** The API token's id, or the access token's jti. */
  tokenId: string | null;
  /** The sign-in session (`sid`) of an access token. */
  sessionId?: string;
  /** team id → role */
  teams: ReadonlyMap<string, TeamRole>;
}

const SCOPE_ALLOWS: Record<Scope, readonly Need[]> = {
  read: ['read'],
  deploy: ['read', 'deploy'],
  write: ['read', 'deploy', 'write', 'manage', 'own'],
};

const ROLE_ALLOWS: Record<TeamRole, readonly Need[]> = {
  viewer: ['read'],
  member: ['read', 'deploy', 'write'],
  admin: ['read', 'deploy', 'write', 'manage'],
  owner: ['read', 'deploy', 'write', 'manage', 'own'],
};

export function scopeAllows(scope: Scope, need: Need): boolean {
  return SCOPE_ALLOWS[scope].includes(need);
}

/** Whether the principal may do `need` in `teamId`. */
export function can(p: Principal, teamId: string, need: Need): boolean {
  if (!scopeAllows(p.scope, need)) return false;
  if (p.isSuperuser) return true;
  const role = p.teams.get(teamId);
  return role !== undefined && ROLE_ALLOWS[role].includes(need);
}

/** Throws the precise refusal: not a member → team_not_found (no existence leak), scope → insufficient_scope, role → forbidden. */
export function requireTeam(p: Principal, teamId: string, need: Need): void {
  if (!p.isSuperuser && !p.teams.has(teamId)) throw svcError('team_not_found');
  if (!scopeAllows(p.scope, need)) throw svcError('insufficient_scope', `This needs a token with ${need === 'deploy' ? 'deploy or write' : 'write'} scope.`);
  if (!can(p, teamId, need)) throw svcError('forbidden', `Your role in this team does not allow this (needs ${need}).`);
}

export function requireSuperuser(p: Principal, need: Need = 'write'): void {
  if (!p.isSuperuser) throw svcError('superuser_required');
  if (!scopeAllows(p.scope, need)) throw svcError('insufficient_scope');
}

/** Team ids the principal may read in (null = every team, for superusers). */
export function readableTeams(p: Principal): string[] | null {
  return p.isSuperuser ? null : [...p.teams.keys()];
}
