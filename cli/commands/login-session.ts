/**
 * The CLI's side of access tokens: the device-authorization grant (RFC 8628) that `svc login` runs, and the refresh
 * of the stored access token when the server answers `token_expired`.
 *
 * Refresh tokens are single-use and a reused one revokes the whole session, so two `svc` processes must never
 * refresh with the same one: refreshing takes a lock file beside the config file and re-reads the config under it
 * (the other process may have refreshed meanwhile).
 */
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { CliError } from '../cli-error.ts';
import { readConfig, writeConfig } from '../config-file.ts';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

export interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** POSTs a form to an OAuth endpoint; OAuth's `{error, error_description}` becomes a CliError with that code. */
export async function oauthPost<T>(url: string, path: string, params: Record<string, string>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(params).toString(), signal: AbortSignal.timeout(60_000) });
  } catch (err) {
    throw new CliError('connection', `Could not reach the server at ${url} (${(err as Error).message}). Is it running?`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const code = typeof body.error === 'string' ? body.error : 'http_error';
    const message = typeof body.error_description === 'string' ? body.error_description : `The server answered ${res.status} to POST ${path}.`;
    throw new CliError('api', message, { status: res.status, code });
  }
  return body as T;
}

export function expiresAt(t: TokenSet, now = Date.now()): string {
  return new Date(now + t.expires_in * 1000).toISOString();
}

/** Polls the token endpoint at the server's interval (longer after slow_down) until approved, denied or expired. */
export async function pollDeviceToken(url: string, start: DeviceStart, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<TokenSet> {
  let interval = start.interval * 1000;
  for (;;) {
    try {
      return await oauthPost<TokenSet>(url, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: start.device_code });
    } catch (e) {
      const code = (e as CliError).code;
      if (code === 'slow_down') interval += 5000;
      else if (code !== 'authorization_pending') throw e;
    }
    await sleep(interval);
  }
}

function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + 15_000;
  const take = async (): Promise<number> => {
    for (;;) {
      try {
        return openSync(lock, 'wx', 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        // A lock left by a process that died holds nothing: older than 30 s, it is taken over.
        try {
          if (Date.now() - statSync(lock).mtimeMs > 30_000) unlinkSync(lock);
        } catch {
          // Removed meanwhile by its owner.
        }
        if (Date.now() > deadline) throw new CliError('config', `Another svc process holds ${lock}; if none runs, delete it.`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  return take().then(async (fd) => {
    try {
      return await fn();
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
  });
}

/**
 * A new access token for the stored session: `failed` is the token the server refused. When the stored token has
 * changed meanwhile (another process refreshed), that one is used without a refresh.
 */
export function refreshStoredToken(configPath: string, failed: string): Promise<string> {
  return withLock(configPath, async () => {
    const stored = readConfig(configPath);
    if (stored.token && stored.token !== failed) return stored.token;
    if (!stored.url || !stored.refresh_token) throw new CliError('config', 'The stored sign-in has expired: run "svc login".');
    let t: TokenSet;
    try {
      t = await oauthPost<TokenSet>(stored.url, '/oauth/token', { grant_type: 'refresh_token', refresh_token: stored.refresh_token });
    } catch (e) {
      if ((e as CliError).code === 'invalid_grant') throw new CliError('config', `The stored sign-in has ended (${(e as Error).message.replace(/\.$/, '')}): run "svc login".`);
      throw e;
    }
    writeConfig(configPath, { ...stored, token: t.access_token, refresh_token: t.refresh_token, token_expires_at: expiresAt(t) });
    return t.access_token;
  });
}
