/**
 * Starting a sign-in (POST /api/v1/accounts/oauth/start): checks what the new account will be (or which account
 * signs in again), stores the sign-in under a random state with its PKCE verifier sealed, and answers what the
 * person must open: the authorize URL (code flow) or the verification page and user code (ChatGPT device flow).
 * A sign-in is valid for 15 minutes and used once.
 */
import type { AppContext } from '../../../core/context.ts';
import { svcError } from '../../../core/errors.ts';
import { seal } from '../../../core/secret-box.ts';
import { subscriptionProfile, subscriptionProviderOf, type SubscriptionProvider } from '../../../core/ai/provider-profiles.ts';
import { authorizeUrl, startDeviceFlow } from '../../../core/ai/subscriptions/oauth-client.ts';
import { newOAuthState, newPkce } from '../../../core/ai/subscriptions/pkce.ts';
import { checkProxyUrl } from '../account-input.ts';
import { checkModelList } from '../model-list-input.ts';

export const SIGN_IN_TTL_MS = 15 * 60_000;

export interface StartInput {
  provider: string;
  name?: string;
  flow?: 'code' | 'device';
  account_id?: string;
  proxy_url?: string | null;
  models?: string[];
  weight?: number;
  priority?: number;
  project_id?: string;
}

/** What the new account will be; stored with the sign-in and used by finish. */
export interface SignInParams {
  name?: string;
  proxy_url?: string | null;
  models?: string[];
  weight?: number;
  priority?: number;
  project_id?: string;
}

async function existingAccount(ctx: AppContext, id: string, provider: SubscriptionProvider): Promise<{ id: string; proxy_url: string | null }> {
  const r = await ctx.db.query<{ id: string; provider: string; kind: string; proxy_url: string | null }>('SELECT id, provider, kind, proxy_url FROM provider_accounts WHERE id = $1', [id]);
  const a = r.rows[0];
  if (!a) throw svcError('not_found', `Provider account ${id} was not found.`);
  if (a.kind !== 'subscription') throw svcError('validation_failed', `Account ${id} is an API-key account; only subscription accounts sign in with OAuth (replace its key with PATCH /api/v1/accounts/${id}).`, { field: 'account_id' });
  if (a.provider !== provider) throw svcError('validation_failed', `Account ${id} is a ${a.provider} account, not ${provider}.`, { field: 'account_id' });
  return a;
}

export async function startSignIn(ctx: AppContext, input: StartInput, userId: string | null): Promise<Record<string, unknown>> {
  const provider = subscriptionProviderOf(input.provider);
  if (!provider) throw svcError('validation_failed', `"provider" must be anthropic (claude), openai (chatgpt) or gemini (gemini-plan); got "${input.provider}".`, { field: 'provider' });
  const profile = subscriptionProfile(ctx.config.providerProfiles, provider);
  const flow = input.flow ?? 'code';
  if (profile.requires_client_secret && !profile.client_secret) {
    throw svcError('oauth_not_configured', `Signing in to a ${profile.label} needs the OAuth client secret of its client id: set "client_secret" for ${provider} in the SVC_PROVIDER_PROFILES file (docs/accounts.md).`);
  }
  if (flow === 'device' && !profile.device_usercode_url) throw svcError('oauth_flow_unsupported', `A ${profile.label} has no device sign-in; use the code flow.`);
  const params: SignInParams = {};
  let accountId: string | null = null;
  let proxyUrl: string | null = null;
  if (input.account_id !== undefined) {
    const a = await existingAccount(ctx, input.account_id, provider);
    accountId = a.id;
    proxyUrl = a.proxy_url;
  } else {
    const name = input.name?.trim();
    if (!name) throw svcError('validation_failed', '"name" is required to add an account (or send "account_id" to sign an existing account in again).', { field: 'name' });
    const taken = await ctx.db.query('SELECT 1 FROM provider_accounts WHERE name = $1', [name]);
    if (taken.rows[0]) throw svcError('conflict', `A provider account named "${name}" already exists.`, { field: 'name' });
    params.name = name;
    if (input.proxy_url != null) params.proxy_url = proxyUrl = checkProxyUrl(input.proxy_url);
    if (input.models !== undefined) params.models = checkModelList(input.models, 'models', { patterns: true, max: 500 });
    if (input.weight !== undefined) params.weight = input.weight;
    if (input.priority !== undefined) params.priority = input.priority;
  }
  if (input.project_id !== undefined) params.project_id = input.project_id;
  const now = ctx.clock.now();
  const state = newOAuthState();
  const expiresAt = new Date(now + SIGN_IN_TTL_MS);
  await ctx.db.query('DELETE FROM oauth_sign_ins WHERE expires_at < $1', [new Date(now - 86_400_000)]);
  const base = { state, flow, provider, expires_at: expiresAt.toISOString() };
  if (flow === 'device') {
    const d = await startDeviceFlow(profile, proxyUrl);
    if (!d.ok) throw svcError('oauth_provider_unavailable', `The ${profile.label} device sign-in could not be started (${d.reason}); try again or use the code flow.`);
    await ctx.db.query(
      `INSERT INTO oauth_sign_ins (state, provider, flow, device_auth_sealed, user_code, poll_interval_s, params, account_id, created_by, created_at, expires_at)
       VALUES ($1, $2, 'device', $3, $4, $5, $6, $7, $8, $9, $10)`,
      [state, provider, seal(ctx.secretKey, d.value.deviceAuthId), d.value.userCode, d.value.intervalS, JSON.stringify(params), accountId, userId, new Date(now), expiresAt],
    );
    return {
      ...base,
      verification_url: profile.device_verification_url,
      user_code: d.value.userCode,
      interval_s: d.value.intervalS,
      instructions: `Open ${profile.device_verification_url}, sign in and enter the code ${d.value.userCode}; then call finish with this state (it answers 202 until the code has been entered).`,
    };
  }
  const pkce = newPkce();
  await ctx.db.query(
    `INSERT INTO oauth_sign_ins (state, provider, flow, verifier_sealed, redirect_uri, params, account_id, created_by, created_at, expires_at)
     VALUES ($1, $2, 'code', $3, $4, $5, $6, $7, $8, $9)`,
    [state, provider, seal(ctx.secretKey, pkce.verifier), profile.redirect_uri, JSON.stringify(params), accountId, userId, new Date(now), expiresAt],
  );
  return {
    ...base,
    authorize_url: authorizeUrl(profile, state, pkce.challenge),
    redirect_uri: profile.redirect_uri,
    instructions: 'Open authorize_url in a browser and approve; then paste the code the provider shows, or the whole address the browser ends on, into finish.',
  };
}
