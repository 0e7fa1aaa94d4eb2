/**
 * The OAuth calls to a provider, as its profile describes them (core/ai/provider-profiles.ts): authorize URL, code
 * exchange, refresh, the ChatGPT device flow and the Code Assist project lookup. Every call goes through the
 * account's outbound proxy. Results are values, not exceptions: `refused` means the provider said no to this grant
 * (a code or refresh token that is expired, reused or revoked: OAuth `invalid_grant` and its relatives),
 * `unavailable` means no usable answer (network, 429, 5xx, an unexpected body): retry later.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2 (token error codes)
 */
import type { SubscriptionProfile } from '../provider-profiles.ts';
import { describeAnswer, httpCall, type HttpAnswer } from './outbound-http.ts';

/** What a sign-in tells about the account; never a secret. */
export interface AccountMeta {
  email?: string;
  plan?: string;
  chatgpt_account_id?: string;
  project_id?: string;
}

export interface TokenSet {
  access: string;
  /** The new refresh token; null when the provider sent none (keep the old one on refresh). */
  refresh: string | null;
  /** Unix ms. */
  expiresAt: number;
  scopes: string | null;
  meta: AccountMeta;
}

export type OAuthResult<T> = { ok: true; value: T } | { ok: false; kind: 'refused' | 'unavailable'; reason: string };

/** Token errors that mean "this grant is dead": sign in again. */
const DEAD_GRANT = new Set(['invalid_grant', 'refresh_token_reused', 'refresh_token_expired', 'refresh_token_invalidated', 'token_expired']);

export function authorizeUrl(p: SubscriptionProfile, state: string, challenge: string): string {
  const u = new URL(p.authorize_url);
  const q: Record<string, string> = {
    ...p.authorize_params,
    response_type: 'code',
    client_id: p.client_id,
    redirect_uri: p.redirect_uri,
    scope: p.scopes.join(' '),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  };
  for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
  return u.toString();
}

function jwtClaims(token: unknown): Record<string, unknown> {
  if (typeof token !== 'string') return {};
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    const claims = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Account facts from a token answer: Claude's `account`, an OpenID `id_token` (email, ChatGPT account id and plan). */
function metaOf(body: Record<string, unknown>): AccountMeta {
  const meta: AccountMeta = {};
  const account = body.account as { email_address?: unknown } | undefined;
  if (typeof account?.email_address === 'string') meta.email = account.email_address;
  const claims = jwtClaims(body.id_token);
  if (typeof claims.email === 'string') meta.email ??= claims.email;
  for (const [k, v] of Object.entries(claims)) {
    if (!k.endsWith('/auth') || typeof v !== 'object' || v === null) continue;
    const auth = v as { chatgpt_account_id?: unknown; chatgpt_plan_type?: unknown };
    if (typeof auth.chatgpt_account_id === 'string') meta.chatgpt_account_id = auth.chatgpt_account_id;
    if (typeof auth.chatgpt_plan_type === 'string') meta.plan = auth.chatgpt_plan_type;
  }
  return meta;
}

function classify(a: HttpAnswer): { kind: 'refused' | 'unavailable'; reason: string } {
  const j = a.json as { error?: unknown; error_description?: unknown } | undefined;
  const code = typeof j?.error === 'string' ? j.error : typeof (j?.error as { code?: unknown })?.code === 'string' ? (j?.error as { code: string }).code : undefined;
  const refused = (a.status === 400 || a.status === 401) && code !== undefined && DEAD_GRANT.has(code);
  return { kind: refused ? 'refused' : 'unavailable', reason: describeAnswer(a) };
}

function tokenSet(a: HttpAnswer, now: number): OAuthResult<TokenSet> {
  const body = a.json as Record<string, unknown> | undefined;
  if (a.status !== 200 || typeof body?.access_token !== 'string' || body.access_token === '') {
    if (a.status === 200) return { ok: false, kind: 'unavailable', reason: 'HTTP 200 without an access_token' };
    return { ok: false, ...classify(a) };
  }
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
  return {
    ok: true,
    value: {
      access: body.access_token,
      refresh: typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : null,
      expiresAt: now + expiresIn * 1000,
      scopes: typeof body.scope === 'string' ? body.scope : null,
      meta: metaOf(body),
    },
  };
}

function tokenRequest(p: SubscriptionProfile, fields: Record<string, string>, proxyUrl: string | null): Promise<HttpAnswer> {
  const all: Record<string, string> = { ...fields, client_id: p.client_id };
  if (p.client_secret) all.client_secret = p.client_secret;
  return httpCall(p.token_url, p.token_request === 'json' ? { json: all, proxyUrl } : { form: all, proxyUrl });
}

export async function exchangeCode(
  p: SubscriptionProfile, input: { code: string; verifier: string; redirectUri: string; state: string }, proxyUrl: string | null, now: number,
): Promise<OAuthResult<TokenSet>> {
  const fields: Record<string, string> = { grant_type: 'authorization_code', code: input.code, redirect_uri: input.redirectUri, code_verifier: input.verifier };
  // Claude's token endpoint wants the state back; form-encoded endpoints follow RFC 6749 strictly.
  if (p.token_request === 'json') fields.state = input.state;
  return tokenSet(await tokenRequest(p, fields, proxyUrl), now);
}

export async function refreshTokens(p: SubscriptionProfile, refreshToken: string, proxyUrl: string | null, now: number): Promise<OAuthResult<TokenSet>> {
  return tokenSet(await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: refreshToken }, proxyUrl), now);
}

export interface DeviceStart {
  deviceAuthId: string;
  userCode: string;
  intervalS: number;
}

export async function startDeviceFlow(p: SubscriptionProfile, proxyUrl: string | null): Promise<OAuthResult<DeviceStart>> {
  if (!p.device_usercode_url) return { ok: false, kind: 'refused', reason: 'no device flow' };
  const a = await httpCall(p.device_usercode_url, { json: { client_id: p.client_id }, proxyUrl });
  const j = a.json as { device_auth_id?: unknown; user_code?: unknown; usercode?: unknown; interval?: unknown } | undefined;
  const userCode = typeof j?.user_code === 'string' ? j.user_code : typeof j?.usercode === 'string' ? j.usercode : undefined;
  if (a.status !== 200 || typeof j?.device_auth_id !== 'string' || !userCode) return { ok: false, kind: 'unavailable', reason: describeAnswer(a) };
  const interval = Number(j.interval);
  return { ok: true, value: { deviceAuthId: j.device_auth_id, userCode, intervalS: Number.isFinite(interval) && interval > 0 ? interval : 5 } };
}

/** One poll: `pending` until the person has entered the code; then the tokens. */
export async function pollDeviceFlow(
  p: SubscriptionProfile, d: { deviceAuthId: string; userCode: string }, proxyUrl: string | null, now: number,
): Promise<OAuthResult<TokenSet> | { ok: false; kind: 'pending'; reason: string }> {
  if (!p.device_token_url || !p.device_redirect_uri) return { ok: false, kind: 'refused', reason: 'no device flow' };
  const a = await httpCall(p.device_token_url, { json: { device_auth_id: d.deviceAuthId, user_code: d.userCode }, proxyUrl });
  if (a.status === 403 || a.status === 404) return { ok: false, kind: 'pending', reason: 'the code has not been entered yet' };
  const j = a.json as { authorization_code?: unknown; code_verifier?: unknown } | undefined;
  if (a.status !== 200 || typeof j?.authorization_code !== 'string' || typeof j.code_verifier !== 'string') {
    return a.status >= 400 && a.status < 500 && a.status !== 429 ? { ok: false, kind: 'refused', reason: describeAnswer(a) } : { ok: false, kind: 'unavailable', reason: describeAnswer(a) };
  }
  const fields = { grant_type: 'authorization_code', code: j.authorization_code, redirect_uri: p.device_redirect_uri, code_verifier: j.code_verifier };
  return tokenSet(await tokenRequest(p, fields, proxyUrl), now);
}

/** Code Assist: the Google Cloud project the plan's calls are billed to (loadCodeAssist). */
export async function lookUpProject(p: SubscriptionProfile, access: string, proxyUrl: string | null): Promise<OAuthResult<string>> {
  if (!p.project_url) return { ok: false, kind: 'refused', reason: 'no project endpoint' };
  const a = await httpCall(p.project_url, {
    json: { metadata: { ideType: 'IDE_UNSPECIFIED', platform: 'PLATFORM_UNSPECIFIED', pluginType: 'GEMINI' } },
    headers: { authorization: `Bearer ${access}` },
    proxyUrl,
  });
  const j = a.json as { cloudaicompanionProject?: unknown } | undefined;
  const project = typeof j?.cloudaicompanionProject === 'string' ? j.cloudaicompanionProject
    : typeof (j?.cloudaicompanionProject as { id?: unknown })?.id === 'string' ? (j?.cloudaicompanionProject as { id: string }).id : undefined;
  if (a.status === 200 && project) return { ok: true, value: project };
  if (a.status === 200) return { ok: false, kind: 'refused', reason: 'the account has no Code Assist project; name one with project_id' };
  return { ok: false, kind: 'unavailable', reason: describeAnswer(a) };
}
