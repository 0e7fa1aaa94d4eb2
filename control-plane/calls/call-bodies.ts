/**
 * Kept call bodies (table call_bodies, written by the proxy for keys whose log_bodies is 1d, 7d or 30d): who may
 * read them, their views, the expiry job and what a change of a key's log_bodies does.
 *
 * Owner team only: a member of the key's team (a team key), the key's owner or the team's admins (an own key).
 * Superusers who are not members do not read bodies: prompts and answers are the team's data.
 */
import type { Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import type { Queryable } from '../../core/db/db.ts';

export interface CallRow {
  id: string;
  key_id: string;
  team_id: string;
  model: string;
  served_model: string | null;
  client_style: string;
  stream: boolean;
  status: number;
  error_code: string | null;
  request?: string;
  response?: string | null;
  request_chars: number;
  response_chars: number | null;
  truncated: boolean;
  created_at: Date;
  expires_at: Date;
}

const ADMIN = new Set(['admin', 'owner']);

/** SQL condition on `c` (call_bodies) joined with `g` (gateway_keys): rows the principal may read. */
export function readableCallsWhere(p: Principal, params: unknown[]): string {
  const teams = [...p.teams.keys()];
  const admin = [...p.teams].filter(([, role]) => ADMIN.has(role)).map(([id]) => id);
  return `c.team_id = ANY($${params.push(teams)}) AND (g.owner_user_id IS NULL OR g.owner_user_id = $${params.push(p.userId ?? '')} OR c.team_id = ANY($${params.push(admin)}))`;
}

export const CALL_COLUMNS = `c.id, c.key_id, c.team_id, c.model, c.served_model, c.client_style, c.stream, c.status, c.error_code,
  c.truncated, c.created_at, c.expires_at, length(c.request)::int AS request_chars, length(c.response)::int AS response_chars`;

function parsed(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function callView(c: CallRow): Record<string, unknown> {
  const v: Record<string, unknown> = {
    id: c.id, key: c.key_id, team: c.team_id, model: c.model, served_model: c.served_model, client_style: c.client_style,
    stream: c.stream, status: c.status, error_code: c.error_code, truncated: c.truncated,
    request_chars: c.request_chars, response_chars: c.response_chars,
    created_at: rfc3339(c.created_at), expires_at: rfc3339(c.expires_at),
  };
  // A whole body that is JSON is answered as JSON; a cut one (truncated) or anything else as text.
  if (c.request !== undefined) v.request = c.truncated ? c.request : parsed(c.request);
  if (c.response !== undefined) v.response = c.truncated ? c.response : parsed(c.response);
  return v;
}

/** Days a key's log_bodies keeps a body. */
export const LOG_BODIES_DAYS: Record<string, number> = { '1d': 1, '7d': 7, '30d': 30 };

/**
 * A key's log_bodies changed: `off` deletes its kept bodies at once; a shorter retention brings their expiry
 * forward. Run after the key's UPDATE has committed (the proxy's insert re-checks the key under FOR SHARE).
 */
export async function applyLogBodiesChange(db: Queryable, keyId: string, logBodies: string): Promise<void> {
  if (logBodies === 'off') {
    await db.query('DELETE FROM call_bodies WHERE key_id = $1', [keyId]);
    return;
  }
  const days = LOG_BODIES_DAYS[logBodies];
  if (days !== undefined) {
    await db.query(`UPDATE call_bodies SET expires_at = created_at + make_interval(days => $2) WHERE key_id = $1 AND expires_at > created_at + make_interval(days => $2)`, [keyId, days]);
  }
}

/** Deletes expired bodies in slices (the scheduler runs it); returns how many went. */
export async function deleteExpiredCallBodies(db: Queryable, now: Date, slice = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db.query<{ id: string }>(
      'DELETE FROM call_bodies WHERE id IN (SELECT id FROM call_bodies WHERE expires_at <= $1 LIMIT $2) RETURNING id',
      [now, slice],
    );
    total += r.rows.length;
    if (r.rows.length < slice) return total;
  }
}
