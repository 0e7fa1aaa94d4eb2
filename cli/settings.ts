/**
 * Where the CLI talks to and with which token: SVC_URL and SVC_TOKEN when set, else the config file, else the URL
 * of a local server started with `npm start` (http://127.0.0.1:8080) and no token.
 */
import { refreshStoredToken } from './commands/login-session.ts';
import { configPath, readConfig } from './config-file.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface Settings {
  url: string;
  token: string | undefined;
  urlFrom: 'SVC_URL' | 'config' | 'default';
  tokenFrom: 'SVC_TOKEN' | 'config' | 'none';
  configPath: string;
  /** Gets a new access token when the stored one has expired (a `svc login` session in the config file). */
  refresh?: (failed: string) => Promise<string>;
}

export function resolveSettings(env: Record<string, string | undefined>, warn: (msg: string) => void): Settings {
  const path = configPath(env);
  const file = readConfig(path, warn);
  const url = env.SVC_URL || file.url;
  const token = env.SVC_TOKEN || file.token;
  return {
    url: normalizeUrl(url ?? DEFAULT_URL),
    token,
    urlFrom: env.SVC_URL ? 'SVC_URL' : file.url ? 'config' : 'default',
    tokenFrom: env.SVC_TOKEN ? 'SVC_TOKEN' : file.token ? 'config' : 'none',
    configPath: path,
    ...(!env.SVC_TOKEN && file.refresh_token ? { refresh: (failed: string) => refreshStoredToken(path, failed) } : {}),
  };
}

/** Drops trailing slashes; the caller checks it is http(s) with isHttpUrl. */
export function normalizeUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
