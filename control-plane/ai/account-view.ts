/** Provider accounts as stored in provider_accounts, and the view the API answers with: never the secret. */
import { rfc3339 } from '../../core/clock.ts';
import { maskProxyUrl, type AccountKind, type Provider } from './account-input.ts';

export interface AccountRow {
  id: string;
  name: string;
  provider: Provider;
  kind: AccountKind;
  base_url: string | null;
  proxy_url: string | null;
  secret_sealed: string | null;
  secret_hint: string | null;
  models: string[];
  model_list: unknown;
  model_list_at: Date | null;
  weight: number;
  priority: number;
  state: 'active' | 'disabled' | 'needs_sign_in' | 'paused';
  created_at: Date;
  updated_at: Date;
}

export function accountView(a: AccountRow): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    provider: a.provider,
    kind: a.kind,
    base_url: a.base_url,
    proxy_url: maskProxyUrl(a.proxy_url),
    has_secret: a.secret_sealed !== null,
    secret_hint: a.secret_hint,
    models: a.models,
    model_list: Array.isArray(a.model_list) ? a.model_list : null,
    model_list_at: rfc3339(a.model_list_at),
    weight: a.weight,
    priority: a.priority,
    state: a.state,
    created_at: rfc3339(a.created_at),
    updated_at: rfc3339(a.updated_at),
  };
}
