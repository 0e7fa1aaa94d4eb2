/**
 * Validation of provider-account fields: base URL, outbound proxy URL and API key, with the sentences a person needs
 * to fix them. Private and loopback hosts are allowed on purpose (local model servers, corporate proxies): only
 * superusers manage accounts.
 */
import { svcError } from '../../core/errors.ts';

export const PROVIDERS = ['anthropic', 'openai', 'gemini', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];
export const ACCOUNT_KINDS = ['api_key', 'subscription'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];
/** States an administrator may set; `needs_sign_in` and `paused` are set by the gateway itself. */
export const SETTABLE_STATES = ['active', 'disabled'] as const;

const MAX_URL = 2048;

function parseHttpUrl(raw: string, field: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw svcError('validation_failed', `"${field}" ("${raw.slice(0, 200)}") is not an absolute URL; ${what} must start with http:// or https://.`, { field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw svcError('validation_failed', `"${field}" must use http or https, not ${url.protocol.replace(/:$/, '')}.`, { field });
  }
  if (raw.length > MAX_URL) throw svcError('validation_failed', `"${field}" is longer than ${MAX_URL} characters.`, { field });
  return url;
}

/** The base URL without a trailing slash, query or fragment. */
export function checkBaseUrl(raw: string): string {
  const url = parseHttpUrl(raw, 'base_url', 'the base URL');
  if (url.username || url.password) throw svcError('validation_failed', '"base_url" must not carry a user name or password; put the credential in "api_key".', { field: 'base_url' });
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) throw svcError('validation_failed', '"base_url" must not have a query or fragment.', { field: 'base_url' });
  return url.toString().replace(/\/+$/, '');
}

/** An HTTP(S) proxy URL (scheme, host, port, optional user:password); no path. */
export function checkProxyUrl(raw: string): string {
  const url = parseHttpUrl(raw, 'proxy_url', 'the proxy URL');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw svcError('validation_failed', '"proxy_url" must be just scheme, host and port (optionally user:password@), such as http://10.0.0.5:3128.', { field: 'proxy_url' });
  }
  return url.toString().replace(/\/$/, '');
}

/** The proxy URL with its password hidden, for answers. */
export function maskProxyUrl(raw: string | null): string | null {
  if (raw === null) return null;
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}

/** The API key, checked for the mistakes people make when pasting one. */
export function checkApiKey(raw: string): string {
  const key = raw.trim();
  if (key.length < 8) throw svcError('validation_failed', '"api_key" is too short to be an API key.', { field: 'api_key' });
  if (key.length > 4096) throw svcError('validation_failed', '"api_key" is longer than 4096 characters.', { field: 'api_key' });
  if (/^bearer\s/i.test(raw.trim())) throw svcError('validation_failed', '"api_key" must be the key alone, without "Bearer".', { field: 'api_key' });
  if (/\s/.test(key)) throw svcError('validation_failed', '"api_key" contains white space; paste the key alone.', { field: 'api_key' });
  return key;
}

/** What official keys of each provider start with; a mismatch is a warning (a base_url may front another service). */
const KEY_PREFIX: Partial<Record<Provider, string>> = { anthropic: 'sk-ant-', openai: 'sk-', gemini: 'AIza' };

export function apiKeyWarning(provider: Provider, key: string, baseUrl: string | null): string | null {
  const prefix = KEY_PREFIX[provider];
  if (!prefix || baseUrl !== null || key.startsWith(prefix)) return null;
  return `The api_key does not look like an official ${provider} key (those start with "${prefix}"); the account was saved anyway.`;
}

/** A safe reminder of a secret: its first 6 and last 4 characters (`sk-ant…abcd`), or only the last 4 if short. */
export function secretHint(key: string): string {
  return key.length >= 20 ? `${key.slice(0, 6)}…${key.slice(-4)}` : `…${key.slice(-4)}`;
}
