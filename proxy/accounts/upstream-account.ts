/**
 * A provider account ready to call: its profile, the composed dispatcher (pool + base path + credentials) and the
 * models it serves. Built from a provider_accounts row when the accounts cache loads; never holds the secret in a
 * field (only inside the auth interceptor's closure), so it can be logged safely.
 */
import type { Dispatcher } from 'undici';
import { open } from '../../core/secret-box.ts';
import { allowsModel } from '../../core/ai/model-pattern.ts';
import type { StyleName } from '../../translators/model.ts';
import type { Dispatchers } from '../upstream/dispatchers.ts';
import type { UpstreamRequest } from '../upstream/send-upstream.ts';
import { accountAuth, basePath } from '../upstream/upstream-interceptors.ts';
import { profileOf, type ProviderProfile } from '../upstream/provider-profiles.ts';

export interface AccountRow {
  id: string;
  name: string;
  provider: string;
  kind: string;
  base_url: string | null;
  proxy_url: string | null;
  secret_sealed: string | null;
  models: string[];
  model_list: unknown;
  weight: number;
  priority: number;
}

export interface UpstreamAccount {
  id: string;
  name: string;
  provider: string;
  kind: string;
  style: StyleName;
  profile: ProviderProfile;
  /** Scheme, host and port of the base URL (for logs and the dispatcher). */
  origin: string;
  dispatcher: Dispatcher;
  weight: number;
  priority: number;
  /** Explicitly listed models (ids or patterns); empty = the provider's list. */
  models: readonly string[];
  /** The provider's model ids as last fetched; null = never fetched (then any model is served). */
  modelList: readonly string[] | null;
  serves(model: string): boolean;
  /** Set for accounts whose calls need more than static credentials (subscription accounts: OAuth tokens). */
  send?(req: UpstreamRequest): Promise<Dispatcher.ResponseData>;
}

/** Builds the account, or returns a sentence saying why it cannot be used. */
export function buildAccount(row: AccountRow, secretKey: Buffer, dispatchers: Dispatchers): UpstreamAccount | string {
  const profile = profileOf(row.provider, row.kind);
  if (!profile) return `no profile for provider ${row.provider} (${row.kind})`;
  if (!row.secret_sealed) return 'no credential stored';
  let secret: string;
  try {
    secret = open(secretKey, row.secret_sealed);
  } catch {
    return 'the stored credential cannot be decrypted with this SVC_SECRET_KEY';
  }
  const base = row.base_url || profile.defaultBaseUrl;
  if (!base) return 'no base URL';
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `base URL ${base} is not a URL`;
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  const dispatcher = dispatchers
    .for(url.origin, row.proxy_url)
    .compose(basePath(prefix), accountAuth(profile.auth(secret), profile.defaults));
  const modelList = Array.isArray(row.model_list) ? row.model_list.filter((m): m is string => typeof m === 'string') : null;
  const models = row.models ?? [];
  const listed = modelList ? new Set(modelList) : null;
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    kind: row.kind,
    style: profile.style,
    profile,
    origin: url.origin,
    dispatcher,
    weight: row.weight,
    priority: row.priority,
    models,
    modelList,
    serves(model) {
      if (models.length > 0) return allowsModel(models, model);
      return listed === null || listed.has(model);
    },
  };
}
