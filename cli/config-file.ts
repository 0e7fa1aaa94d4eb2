/**
 * The CLI's config file: JSON `{ "url", "token", "refresh_token", "token_expires_at", "user" }` (`token` is the
 * access token of `svc login`; `token_id` names an API token stored by an older version) at `$SVC_CONFIG`, else
 * `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json`. It holds a secret, so it is written with
 * mode 600 (its folder 700), atomically (temporary file, then rename).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './cli-error.ts';

export interface ConfigData {
  url?: string;
  token?: string;
  token_id?: string;
  /** The session's refresh token (single-use: each refresh stores the next one). */
  refresh_token?: string;
  token_expires_at?: string;
  user?: string;
}

export function configPath(env: Record<string, string | undefined>): string {
  if (env.SVC_CONFIG) return env.SVC_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'svc', 'config.json');
}

/** The stored settings, or {} when there is no file yet. A file others may read earns a warning. */
export function readConfig(path: string, warn: (msg: string) => void = () => {}): ConfigData {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError('config', `Cannot read the config file ${path}: ${(e as Error).message}`);
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    warn(`The config file ${path} is readable by other users; run: chmod 600 ${path}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CliError('config', `The config file ${path} is not valid JSON; fix it or delete it and run "svc login".`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new CliError('config', `The config file ${path} must hold a JSON object.`);
  }
  const out: ConfigData = {};
  for (const k of ['url', 'token', 'token_id', 'refresh_token', 'token_expires_at', 'user'] as const) {
    const v = (data as Record<string, unknown>)[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  return out;
}

export function writeConfig(path: string, data: ConfigData): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
