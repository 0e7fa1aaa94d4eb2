/**
 * The device-authorization grant (RFC 8628) that `svc login` uses: the client asks for a device code and a short
 * user code, the user approves the user code in the panel (/device) or with their password, and the client polls
 * /oauth/token until the approval arrives. A device code is stored hashed and gives one session, once.
 */
import { randomInt } from 'node:crypto';
import type { AppContext } from '../../core/context.ts';
import type { Scope } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { hashSecret, newSecret } from '../../core/ids.ts';
import { oauthError } from './oauth-error.ts';

export const DEVICE_CODE_TTL_S = 600;
export const POLL_INTERVAL_S = 5;
/** No vowels and no look-alikes (RFC 8628 §6.1): codes read aloud or typed do not spell words or get mistyped. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

function newUserCode(): string {
  const c = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
  return `${c.slice(0, 4)}-${c.slice(4)}`;
}

/** Accepts the code as people type it: any case, with or without the dash or spaces. */
export function normalizeUserCode(input: string): string {
  const c = input.toUpperCase().replace(/[^A-Z]/g, '');
  return c.length === 8 ? `${c.slice(0, 4)}-${c.slice(4)}` : c;
}

export async function startDeviceAuthorization(ctx: AppContext, clientName: string, scope: Scope): Promise<{ deviceCode: string; userCode: string }> {
  const deviceCode = newSecret('dc_');
  const userCode = newUserCode();
  const now = ctx.clock.now();
  await ctx.db.query(
    'INSERT INTO device_authorizations (device_code_hash, user_code, client_name, scope, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [hashSecret(deviceCode), userCode, clientName.slice(0, 200), scope, new Date(now + DEVICE_CODE_TTL_S * 1000), new Date(now)],
  );
  // Expired authorizations are of no use: clear them on the way (cheap, indexed by nothing but few rows).
  await ctx.db.query('DELETE FROM device_authorizations WHERE expires_at < $1', [new Date(now - 86_400_000)]);
  return { deviceCode, userCode };
}

export interface PendingDevice {
  userCode: string;
  clientName: string;
  scope: Scope;
  expiresAt: Date;
}

/** The pending authorization of a user code, for the approval page (404 when unknown, used or expired). */
export async function pendingDevice(ctx: AppContext, userCode: string): Promise<PendingDevice> {
  const r = await ctx.db.query<{ user_code: string; client_name: string; scope: Scope; expires_at: Date }>(
    'SELECT user_code, client_name, scope, expires_at FROM device_authorizations WHERE user_code = $1 AND approved_by IS NULL AND denied_at IS NULL AND expires_at > $2',
    [normalizeUserCode(userCode), new Date(ctx.clock.now())],
  );
  const d = r.rows[0];
  if (!d) throw svcError('not_found', 'No sign-in is waiting for this code: it is mistyped, already used or expired (codes live 10 minutes).');
  return { userCode: d.user_code, clientName: d.client_name, scope: d.scope, expiresAt: d.expires_at };
}

/** Approves (userId) or denies (null) a pending user code. */
export async function decideDevice(ctx: AppContext, userCode: string, userId: string | null): Promise<PendingDevice> {
  const d = await pendingDevice(ctx, userCode);
  const now = new Date(ctx.clock.now());
  const r = userId
    ? await ctx.db.query('UPDATE device_authorizations SET approved_by = $2 WHERE user_code = $1 AND approved_by IS NULL AND denied_at IS NULL', [d.userCode, userId])
    : await ctx.db.query('UPDATE device_authorizations SET denied_at = $2 WHERE user_code = $1 AND approved_by IS NULL AND denied_at IS NULL', [d.userCode, now]);
  if (r.rowCount === 0) throw svcError('not_found', 'This code was decided meanwhile.');
  return d;
}

/** One poll of the client: the approving user and scope once, or the RFC 8628 §3.5 error for this moment. */
export async function pollDevice(ctx: AppContext, deviceCode: string): Promise<{ userId: string; scope: Scope; clientName: string }> {
  const now = ctx.clock.now();
  const hash = hashSecret(deviceCode);
  const r = await ctx.db.query<{ expires_at: Date; last_polled_at: Date | null; approved_by: string | null; denied_at: Date | null; consumed_at: Date | null; scope: Scope; client_name: string }>(
    'UPDATE device_authorizations d SET last_polled_at = $2 FROM device_authorizations old WHERE d.device_code_hash = $1 AND old.device_code_hash = d.device_code_hash RETURNING d.expires_at, old.last_polled_at, d.approved_by, d.denied_at, d.consumed_at, d.scope, d.client_name',
    [hash, new Date(now)],
  );
  const d = r.rows[0];
  if (!d || d.consumed_at) throw oauthError('invalid_grant', 'The device code is not known or was already used.');
  if (new Date(d.expires_at).getTime() <= now) throw oauthError('expired_token', 'The device code has expired; start the sign-in again.');
  if (d.denied_at) throw oauthError('access_denied', 'The sign-in was denied.');
  if (!d.approved_by) {
    const tooSoon = d.last_polled_at !== null && now - new Date(d.last_polled_at).getTime() < (POLL_INTERVAL_S * 1000) / 2;
    throw tooSoon ? oauthError('slow_down', `Poll at most every ${POLL_INTERVAL_S} seconds.`) : oauthError('authorization_pending', 'The sign-in has not been approved yet.');
  }
  const used = await ctx.db.query('UPDATE device_authorizations SET consumed_at = $2 WHERE device_code_hash = $1 AND consumed_at IS NULL', [hash, new Date(now)]);
  if (used.rowCount === 0) throw oauthError('invalid_grant', 'The device code was already used.');
  return { userId: d.approved_by, scope: d.scope, clientName: d.client_name };
}
