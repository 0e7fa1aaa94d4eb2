/**
 * The sealed OAuth tokens of subscription accounts (table account_oauth_tokens). Writes after a refresh are
 * compare-and-set on `version`: a refresh saves only over the version it read, so a rotated refresh token can never
 * be overwritten by an older one, and the access token, refresh token and expiry always change together.
 */
import type { Queryable } from '../../db/db.ts';
import { open, seal } from '../../secret-box.ts';
import type { AccountMeta, TokenSet } from './oauth-client.ts';

export interface StoredTokens {
  accountId: string;
  access: string;
  refresh: string | null;
  /** Unix ms. */
  expiresAt: number;
  version: number;
  meta: AccountMeta;
  refreshFailures: number;
  /** Unix ms before which a failed refresh is not retried; null = any time. */
  nextRefreshAt: number | null;
  lastRefreshError: string | null;
}

interface Row {
  account_id: string;
  access_sealed: string;
  refresh_sealed: string | null;
  expires_at: Date;
  version: number;
  meta: AccountMeta;
  refresh_failures: number;
  next_refresh_at: Date | null;
  last_refresh_error: string | null;
}

/** The account's tokens, or undefined when none are stored (or they cannot be opened with this secret key). */
export async function readTokens(q: Queryable, key: Buffer, accountId: string): Promise<StoredTokens | undefined> {
  const r = await q.query<Row>('SELECT * FROM account_oauth_tokens WHERE account_id = $1', [accountId]);
  const row = r.rows[0];
  if (!row) return undefined;
  try {
    return {
      accountId,
      access: open(key, row.access_sealed),
      refresh: row.refresh_sealed === null ? null : open(key, row.refresh_sealed),
      expiresAt: row.expires_at.getTime(),
      version: row.version,
      meta: row.meta ?? {},
      refreshFailures: row.refresh_failures,
      nextRefreshAt: row.next_refresh_at?.getTime() ?? null,
      lastRefreshError: row.last_refresh_error,
    };
  } catch {
    return undefined;
  }
}

/** Stores the tokens of a (new or repeated) sign-in, replacing whatever was there. */
export async function saveSignInTokens(q: Queryable, key: Buffer, accountId: string, t: TokenSet, now: number): Promise<void> {
  await q.query(
    `INSERT INTO account_oauth_tokens (account_id, access_sealed, refresh_sealed, expires_at, scopes, meta, version, refreshed_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $7)
     ON CONFLICT (account_id) DO UPDATE SET access_sealed = EXCLUDED.access_sealed, refresh_sealed = EXCLUDED.refresh_sealed,
       expires_at = EXCLUDED.expires_at, scopes = EXCLUDED.scopes, meta = account_oauth_tokens.meta || EXCLUDED.meta,
       version = account_oauth_tokens.version + 1, refreshed_at = EXCLUDED.refreshed_at, refresh_failures = 0,
       next_refresh_at = NULL, last_refresh_error = NULL, updated_at = EXCLUDED.updated_at`,
    [accountId, seal(key, t.access), t.refresh === null ? null : seal(key, t.refresh), new Date(t.expiresAt), t.scopes, JSON.stringify(t.meta), new Date(now)],
  );
}

/**
 * Saves refreshed tokens over `version` (keeping the old refresh token when the provider sent none). Returns the
 * new version, or null when another writer got there first (the caller re-reads).
 */
export async function saveRefreshedTokens(q: Queryable, key: Buffer, accountId: string, version: number, t: TokenSet, now: number): Promise<number | null> {
  const r = await q.query<{ version: number }>(
    `UPDATE account_oauth_tokens SET access_sealed = $3, refresh_sealed = COALESCE($4, refresh_sealed), expires_at = $5,
       meta = meta || $6::jsonb, version = version + 1, refreshed_at = $7, refresh_failures = 0, next_refresh_at = NULL,
       last_refresh_error = NULL, updated_at = $7
     WHERE account_id = $1 AND version = $2 RETURNING version`,
    [accountId, version, seal(key, t.access), t.refresh === null ? null : seal(key, t.refresh), new Date(t.expiresAt), JSON.stringify(t.meta), new Date(now)],
  );
  return r.rows[0]?.version ?? null;
}

/** Records a refresh that could not reach the provider: the old token stays; retry not before `nextAt`. */
export async function saveRefreshFailure(q: Queryable, accountId: string, version: number, error: string, nextAt: number, now: number): Promise<void> {
  await q.query(
    `UPDATE account_oauth_tokens SET refresh_failures = refresh_failures + 1, next_refresh_at = $3, last_refresh_error = $4, updated_at = $5
     WHERE account_id = $1 AND version = $2`,
    [accountId, version, new Date(nextAt), error.slice(0, 300), new Date(now)],
  );
}

/** Stores account facts learned after sign-in (e.g. the Code Assist project). */
export async function mergeTokenMeta(q: Queryable, accountId: string, meta: AccountMeta): Promise<void> {
  await q.query('UPDATE account_oauth_tokens SET meta = meta || $2::jsonb WHERE account_id = $1', [accountId, JSON.stringify(meta)]);
}
