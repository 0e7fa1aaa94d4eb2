/**
 * Gateway keys (`sk-svc-…`) as stored in gateway_keys: the view the API answers with, who may see a key, and
 * creation (the secret exists only in the create answer; the table keeps its SHA-256).
 *
 * Visibility: a team key (no owner) is visible to every member of its team; an own key to its owner and the team's
 * admins and owners; superusers see every key. Changing a key also needs `write` in its team.
 */
import type { Principal } from '../../core/auth/principal.ts';
import type { AppContext } from '../../core/context.ts';
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import { hashSecret, newId, newSecret } from '../../core/ids.ts';
import { rfc3339 } from '../../core/clock.ts';
import { readKeyLimits, type KeyLimits } from '../../core/ai/key-limits.ts';
import { readTeamLimits } from '../../core/team-limits.ts';
import type { CompressionMode } from '../../core/ai/compression-settings.ts';

export const LOG_BODIES = ['off', '1d', '7d', '30d'] as const;
export type LogBodies = (typeof LOG_BODIES)[number];

export interface KeyRow {
  id: string;
  team_id: string;
  owner_user_id: string | null;
  name: string;
  key_hash: string;
  key_hint: string;
  allowed_models: string[];
  limits: unknown;
  log_bodies: LogBodies;
  /** Compression mode of the key's calls; null inherits (docs/compression.md). */
  compression: CompressionMode | null;
  /** How long stored responses are kept: 'off' or '<n>d' (core/ai/stored-responses.ts). */
  response_store_ttl: string;
  disabled: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  last_used_at: Date | null;
}

export function keyView(k: KeyRow): Record<string, unknown> {
  return {
    id: k.id,
    name: k.name,
    team: k.team_id,
    owner: k.owner_user_id,
    own: k.owner_user_id !== null,
    hint: k.key_hint,
    models: k.allowed_models,
    limits: readKeyLimits(k.limits),
    log_bodies: k.log_bodies,
    compression: k.compression,
    response_store_ttl: k.response_store_ttl,
    disabled: k.disabled,
    created_by: k.created_by,
    created_at: rfc3339(k.created_at),
    updated_at: rfc3339(k.updated_at),
    last_used_at: rfc3339(k.last_used_at),
  };
}

const ADMIN_ROLES = new Set(['admin', 'owner']);

/** Whether the principal may see the key (membership and ownership; scope does not hide reads). */
export function canSeeKey(p: Principal, k: Pick<KeyRow, 'team_id' | 'owner_user_id'>): boolean {
  if (p.isSuperuser) return true;
  const role = p.teams.get(k.team_id);
  if (role === undefined) return false;
  return k.owner_user_id === null || k.owner_user_id === p.userId || ADMIN_ROLES.has(role);
}

/** SQL condition (with its parameters appended to `params`) selecting the keys the principal may see. */
export function visibleKeysWhere(p: Principal, params: unknown[]): string {
  if (p.isSuperuser) return 'deleted_at IS NULL';
  const teams = [...p.teams.keys()];
  const admin = [...p.teams].filter(([, role]) => ADMIN_ROLES.has(role)).map(([id]) => id);
  return `deleted_at IS NULL AND team_id = ANY($${params.push(teams)}) AND (owner_user_id IS NULL OR owner_user_id = $${params.push(p.userId ?? '')} OR team_id = ANY($${params.push(admin)}))`;
}

/** A visible, not deleted key, or 404 (keys of other teams are never told apart from missing ones). */
export async function loadVisibleKey(db: Queryable, p: Principal, id: string): Promise<KeyRow> {
  const r = await db.query<KeyRow>('SELECT * FROM gateway_keys WHERE id = $1 AND deleted_at IS NULL', [id]);
  const k = r.rows[0];
  if (!k || !canSeeKey(p, k)) throw svcError('not_found', `Gateway key ${id} was not found.`);
  return k;
}

export interface NewKey {
  teamId: string;
  ownerUserId: string | null;
  name: string;
  models: string[];
  limits: KeyLimits;
  logBodies: LogBodies;
  compression: CompressionMode | null;
  responseStoreTtl: string;
  createdBy: string | null;
}

/**
 * Inserts a key and returns it with its secret. The team's `ai.keys` limit is checked under a row lock on the team
 * so that concurrent creations cannot pass it (422 team_ai_keys).
 */
export async function createKey(ctx: AppContext, k: NewKey): Promise<{ row: KeyRow; secret: string }> {
  const secret = newSecret('sk-svc-');
  const row = await ctx.db.tx(async (q) => {
    await q.query('SELECT id FROM teams WHERE id = $1 FOR UPDATE', [k.teamId]);
    const max = (await readTeamLimits(q, k.teamId))['ai.keys'];
    if (max !== undefined) {
      const n = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM gateway_keys WHERE team_id = $1 AND deleted_at IS NULL', [k.teamId]);
      if ((n.rows[0]?.n ?? 0) >= max) {
        throw svcError('team_ai_keys', `The team already has ${n.rows[0]?.n ?? 0} gateway keys and its limit (ai.keys) is ${max}; delete a key or ask an administrator to raise the limit.`, { limit: 'ai.keys', level: 'team', max });
      }
    }
    const now = new Date(ctx.clock.now());
    const r = await q.query<KeyRow>(
      `INSERT INTO gateway_keys (id, team_id, owner_user_id, name, key_hash, key_hint, allowed_models, limits, log_bodies, compression, response_store_ttl, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING *`,
      [newId('key_'), k.teamId, k.ownerUserId, k.name, hashSecret(secret), `sk-svc-…${secret.slice(-4)}`, k.models, JSON.stringify(k.limits), k.logBodies, k.compression, k.responseStoreTtl, k.createdBy, now],
    );
    return r.rows[0];
  });
  return { row, secret };
}
