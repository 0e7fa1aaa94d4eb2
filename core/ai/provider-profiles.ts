/**
 * The provider-profile table of subscription accounts (plans signed in with OAuth): every URL, client id, scope and
 * required header the gateway uses to sign in, refresh tokens, call the plan's backend and read its quota, in one
 * place. Providers move their consoles without notice (reference: subscription-accounts.md), so a JSON file named
 * by SVC_PROVIDER_PROFILES overrides any key of any entry (tests point every URL at local fakes). The keys are
 * documented in docs/accounts.md; they are snake_case because they are exactly the keys of that file.
 *
 * Only public values are here: the public client ids of each vendor's own command-line client. No client secret is
 * shipped; a provider whose token endpoint wants one (Google's installed-app clients) gets it from the override file.
 */

export const SUBSCRIPTION_PROVIDERS = ['anthropic', 'openai', 'gemini'] as const;
export type SubscriptionProvider = (typeof SUBSCRIPTION_PROVIDERS)[number];

/** How the rate-limit headers of a plan's responses are read (core/ai/subscriptions/rate-limit-headers.ts). */
export type RateLimitHeaderFormat = 'anthropic' | 'codex';

export interface SubscriptionProfile {
  provider: SubscriptionProvider;
  /** The name people know the plan by, for messages. */
  label: string;
  /** The CLI's short name (`svc ai accounts add claude`). */
  short_name: string;
  authorize_url: string;
  token_url: string;
  client_id: string;
  client_secret: string | null;
  /** The token endpoint refuses requests without a client secret (sign-in is refused up front when none is set). */
  requires_client_secret: boolean;
  scopes: string[];
  redirect_uri: string;
  /** Extra query parameters of the authorize URL. */
  authorize_params: Record<string, string>;
  /** Body encoding of token requests. */
  token_request: 'json' | 'form';
  /** Device flow (ChatGPT): where to ask for a user code, where to poll, what page the person opens. */
  device_usercode_url: string | null;
  device_token_url: string | null;
  device_verification_url: string | null;
  device_redirect_uri: string | null;
  /** The plan's backend, e.g. https://api.anthropic.com. */
  api_base_url: string;
  /** Headers every call to the backend carries (merged with a client's own `anthropic-beta` values). */
  api_headers: Record<string, string>;
  /** Endpoint answering the plan's quota windows; null = read the rate-limit headers of recent responses. */
  usage_url: string | null;
  usage_headers: Record<string, string>;
  rate_limit_headers: RateLimitHeaderFormat | null;
  /** Quota window name → the model family it limits (a window not listed limits the whole account). */
  window_families: Record<string, string>;
  /** Code Assist: the endpoint that names the person's project (loadCodeAssist). */
  project_url: string | null;
  /** Refresh the access token this long before it expires. */
  refresh_lead_seconds: number;
}

const CLAUDE: SubscriptionProfile = {
  provider: 'anthropic',
  label: 'Claude plan',
  short_name: 'claude',
  authorize_url: 'https://claude.ai/oauth/authorize',
  token_url: 'https://console.anthropic.com/v1/oauth/token',
  client_id: '9d1c250a-e61b-44d9-88ed-5944d1962f5e',
  client_secret: null,
  requires_client_secret: false,
  scopes: ['user:inference', 'user:profile'],
  redirect_uri: 'https://console.anthropic.com/oauth/code/callback',
  authorize_params: { code: 'true' },
  token_request: 'json',
  device_usercode_url: null,
  device_token_url: null,
  device_verification_url: null,
  device_redirect_uri: null,
  api_base_url: 'https://api.anthropic.com',
  api_headers: { 'anthropic-beta': 'oauth-2025-04-20', 'anthropic-version': '2023-06-01' },
  usage_url: 'https://api.anthropic.com/api/oauth/usage',
  usage_headers: { 'anthropic-beta': 'oauth-2025-04-20' },
  rate_limit_headers: 'anthropic',
  window_families: { seven_day_sonnet: 'sonnet', seven_day_opus: 'opus' },
  project_url: null,
  refresh_lead_seconds: 600,
};

const CHATGPT: SubscriptionProfile = {
  provider: 'openai',
  label: 'ChatGPT plan',
  short_name: 'chatgpt',
  authorize_url: 'https://auth.openai.com/oauth/authorize',
  token_url: 'https://auth.openai.com/oauth/token',
  client_id: 'app_EMoamEEZ73f0CkXaXp7hrann',
  client_secret: null,
  requires_client_secret: false,
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  redirect_uri: 'http://localhost:1455/auth/callback',
  authorize_params: { id_token_add_organizations: 'true', codex_cli_simplified_flow: 'true' },
  token_request: 'form',
  device_usercode_url: 'https://auth.openai.com/api/accounts/deviceauth/usercode',
  device_token_url: 'https://auth.openai.com/api/accounts/deviceauth/token',
  device_verification_url: 'https://auth.openai.com/codex/device',
  device_redirect_uri: 'https://auth.openai.com/deviceauth/callback',
  api_base_url: 'https://chatgpt.com/backend-api/codex',
  api_headers: { originator: 'codex_cli_rs' },
  usage_url: null,
  usage_headers: {},
  rate_limit_headers: 'codex',
  window_families: {},
  project_url: null,
  refresh_lead_seconds: 3600,
};

const GEMINI_PLAN: SubscriptionProfile = {
  provider: 'gemini',
  label: 'Gemini plan (Code Assist)',
  short_name: 'gemini-plan',
  authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
  token_url: 'https://oauth2.googleapis.com/token',
  client_id: '681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com',
  client_secret: null,
  requires_client_secret: true,
  scopes: [
    'https://www.googleapis.com/auth/cloud-platform',
    'https://www.googleapis.com/auth/userinfo.email',
    'https://www.googleapis.com/auth/userinfo.profile',
  ],
  redirect_uri: 'https://codeassist.google.com/authcode',
  authorize_params: { access_type: 'offline', prompt: 'consent' },
  token_request: 'form',
  device_usercode_url: null,
  device_token_url: null,
  device_verification_url: null,
  device_redirect_uri: null,
  api_base_url: 'https://cloudcode-pa.googleapis.com',
  api_headers: {},
  usage_url: null,
  usage_headers: {},
  rate_limit_headers: null,
  window_families: {},
  project_url: 'https://cloudcode-pa.googleapis.com/v1internal:loadCodeAssist',
  refresh_lead_seconds: 300,
};

export const DEFAULT_PROFILES: Readonly<Record<SubscriptionProvider, SubscriptionProfile>> = {
  anthropic: CLAUDE,
  openai: CHATGPT,
  gemini: GEMINI_PLAN,
};

/** What the override file may hold: per provider (or short name), any subset of the keys. */
export type ProfileOverrides = Partial<Record<SubscriptionProvider, Partial<SubscriptionProfile>>>;

type KeyKind = 'url' | 'url?' | 'string' | 'string?' | 'strings' | 'map' | 'seconds' | 'bool' | 'token_request' | 'header_format';

const KEYS: Record<Exclude<keyof SubscriptionProfile, 'provider'>, KeyKind> = {
  label: 'string', short_name: 'string', authorize_url: 'url', token_url: 'url', client_id: 'string', client_secret: 'string?', requires_client_secret: 'bool',
  scopes: 'strings', redirect_uri: 'string', authorize_params: 'map', token_request: 'token_request',
  device_usercode_url: 'url?', device_token_url: 'url?', device_verification_url: 'url?', device_redirect_uri: 'string?',
  api_base_url: 'url', api_headers: 'map', usage_url: 'url?', usage_headers: 'map', rate_limit_headers: 'header_format',
  window_families: 'map', project_url: 'url?', refresh_lead_seconds: 'seconds',
};

function isUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function checkValue(kind: KeyKind, v: unknown): string | null {
  const isMap = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x) && Object.values(x).every((s) => typeof s === 'string');
  switch (kind) {
    case 'url': return isUrl(v) ? null : 'must be an http(s) URL';
    case 'url?': return v === null || isUrl(v) ? null : 'must be an http(s) URL or null';
    case 'string': return typeof v === 'string' && v !== '' ? null : 'must be a non-empty string';
    case 'string?': return v === null || (typeof v === 'string' && v !== '') ? null : 'must be a non-empty string or null';
    case 'strings': return Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '') ? null : 'must be an array of strings';
    case 'map': return isMap(v) ? null : 'must be an object of string values';
    case 'seconds': return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 86_400 ? null : 'must be a whole number of seconds from 0 to 86400';
    case 'bool': return typeof v === 'boolean' ? null : 'must be true or false';
    case 'token_request': return v === 'json' || v === 'form' ? null : 'must be "json" or "form"';
    case 'header_format': return v === null || v === 'anthropic' || v === 'codex' ? null : 'must be "anthropic", "codex" or null';
  }
}

/** The provider an override entry names: a provider id or a short name. */
function providerOf(name: string): SubscriptionProvider | undefined {
  if ((SUBSCRIPTION_PROVIDERS as readonly string[]).includes(name)) return name as SubscriptionProvider;
  return SUBSCRIPTION_PROVIDERS.find((p) => DEFAULT_PROFILES[p].short_name === name);
}

/** Parses and checks the override file's text; throws an Error whose message names the bad entry and key. */
export function parseProfileOverrides(text: string): ProfileOverrides {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`is not valid JSON (${(e as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('must hold a JSON object keyed by provider (anthropic, openai, gemini)');
  const out: ProfileOverrides = {};
  for (const [name, entry] of Object.entries(json)) {
    const provider = providerOf(name);
    if (!provider) throw new Error(`names an unknown provider "${name}" (use ${SUBSCRIPTION_PROVIDERS.join(', ')})`);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`entry "${name}" must be an object`);
    const checked: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry)) {
      const kind = KEYS[key as keyof typeof KEYS];
      if (!kind) throw new Error(`entry "${name}" has an unknown key "${key}" (see docs/accounts.md for the keys)`);
      const problem = checkValue(kind, value);
      if (problem) throw new Error(`entry "${name}" key "${key}" ${problem}`);
      checked[key] = value;
    }
    out[provider] = { ...out[provider], ...(checked as Partial<SubscriptionProfile>) };
  }
  return out;
}

const merged = new WeakMap<ProfileOverrides, Record<SubscriptionProvider, SubscriptionProfile>>();

/** The profile of a provider with the instance's overrides applied. */
export function subscriptionProfile(overrides: ProfileOverrides, provider: SubscriptionProvider): SubscriptionProfile {
  let all = merged.get(overrides);
  if (!all) {
    all = { ...DEFAULT_PROFILES };
    for (const p of SUBSCRIPTION_PROVIDERS) all[p] = { ...DEFAULT_PROFILES[p], ...overrides[p], provider: p };
    merged.set(overrides, all);
  }
  return all[provider];
}

export function isSubscriptionProvider(p: string): p is SubscriptionProvider {
  return (SUBSCRIPTION_PROVIDERS as readonly string[]).includes(p);
}

/** A provider id or short name (`claude`, `chatgpt`, `gemini-plan`) → the provider. */
export function subscriptionProviderOf(name: string): SubscriptionProvider | undefined {
  return providerOf(name);
}
