/**
 * Finishing a sign-in (POST /api/v1/accounts/oauth/finish): the pasted code or callback URL is matched to its
 * sign-in by state (a paste carrying another sign-in's state is refused), the sign-in is claimed once (a second
 * finish, or a finish after 15 minutes, is refused), the code is exchanged for tokens, and the subscription account
 * is created (or an existing one gets its new tokens and leaves `needs_sign_in`). A provider outage releases the
 * claim so the same paste can be retried; a refused code ends the sign-in. Device sign-ins answer 202 while the
 * person has not entered the code yet.
 */
import type { AppContext } from '../../../core/context.ts';
import { svcError } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { open } from '../../../core/secret-box.ts';
import { ACCOUNTS_CACHE } from '../../../core/ai/cache-names.ts';
import { subscriptionProfile, type SubscriptionProvider } from '../../../core/ai/provider-profiles.ts';
import { changeAccountState } from '../../../core/ai/subscriptions/account-state.ts';
import { exchangeCode, lookUpProject, pollDeviceFlow, type OAuthResult, type TokenSet } from '../../../core/ai/subscriptions/oauth-client.ts';
import { tokenManagerOf } from '../../../core/ai/subscriptions/token-manager.ts';
import { saveSignInTokens } from '../../../core/ai/subscriptions/token-store.ts';
import { accountView, type AccountRow } from '../account-view.ts';
import { parsePastedCode } from './parse-pasted-code.ts';
import type { SignInParams } from './start-sign-in.ts';

export interface FinishInput {
  state?: string;
  code?: string;
  callback_url?: string;
}

interface SignInRow {
  state: string;
  provider: SubscriptionProvider;
  flow: 'code' | 'device';
  verifier_sealed: string | null;
  redirect_uri: string | null;
  device_auth_sealed: string | null;
  user_code: string | null;
  poll_interval_s: number | null;
  params: SignInParams;
  account_id: string | null;
  expires_at: Date;
  used_at: Date | null;
}

export type FinishAnswer = { status: 201 | 200; body: Record<string, unknown> } | { status: 202; body: { pending: true; retry_after_s: number; message: string } };

async function claim(ctx: AppContext, input: FinishInput): Promise<{ row: SignInRow; code?: string }> {
  const pasted = input.code !== undefined || input.callback_url !== undefined ? parsePastedCode(input) : undefined;
  if (input.state !== undefined && pasted?.state !== undefined && pasted.state !== input.state) throw svcError('oauth_state_mismatch');
  const state = input.state ?? pasted?.state;
  if (!state) throw svcError('validation_failed', 'Send "state" (from the start answer) with the code, or paste the whole callback URL, which carries it.', { field: 'state' });
  const r = await ctx.db.query<SignInRow>('SELECT * FROM oauth_sign_ins WHERE state = $1', [state]);
  const row = r.rows[0];
  if (!row) throw svcError('oauth_state_unknown', 'No sign-in has this state; start the sign-in again.');
  if (row.used_at !== null) throw svcError('oauth_state_unknown', 'This sign-in was already finished (or its code refused); start the sign-in again.');
  if (row.expires_at.getTime() <= ctx.clock.now()) throw svcError('oauth_state_expired');
  if (row.flow === 'code' && !pasted) throw svcError('oauth_callback_invalid');
  if (row.flow === 'device' && pasted) throw svcError('validation_failed', 'A device sign-in needs no code: call finish with the state alone once the code has been entered on the provider page.', { field: 'code' });
  const c = await ctx.db.query('UPDATE oauth_sign_ins SET used_at = $2 WHERE state = $1 AND used_at IS NULL RETURNING state', [state, new Date(ctx.clock.now())]);
  if (!c.rows[0]) throw svcError('oauth_state_unknown', 'This sign-in is being finished by another request; start again if it fails.');
  return { row, code: pasted?.code };
}

const release = (ctx: AppContext, state: string) => ctx.db.query('UPDATE oauth_sign_ins SET used_at = NULL WHERE state = $1', [state]);

async function proxyOf(ctx: AppContext, row: SignInRow): Promise<string | null> {
  if (row.account_id === null) return row.params.proxy_url ?? null;
  const r = await ctx.db.query<{ proxy_url: string | null }>('SELECT proxy_url FROM provider_accounts WHERE id = $1', [row.account_id]);
  return r.rows[0]?.proxy_url ?? null;
}

export async function finishSignIn(ctx: AppContext, input: FinishInput): Promise<FinishAnswer> {
  const { row, code } = await claim(ctx, input);
  const profile = subscriptionProfile(ctx.config.providerProfiles, row.provider);
  const proxyUrl = await proxyOf(ctx, row);
  const now = ctx.clock.now();
  let result: OAuthResult<TokenSet> | { ok: false; kind: 'pending'; reason: string };
  if (row.flow === 'device') {
    result = await pollDeviceFlow(profile, { deviceAuthId: open(ctx.secretKey, row.device_auth_sealed as string), userCode: row.user_code as string }, proxyUrl, now);
  } else {
    result = await exchangeCode(profile, { code: code as string, verifier: open(ctx.secretKey, row.verifier_sealed as string), redirectUri: row.redirect_uri as string, state: row.state }, proxyUrl, now);
  }
  if (!result.ok && result.kind === 'pending') {
    await release(ctx, row.state);
    const retry = row.poll_interval_s ?? 5;
    return { status: 202, body: { pending: true, retry_after_s: retry, message: `The code ${row.user_code} has not been entered yet; call finish again in ${retry} s.` } };
  }
  if (!result.ok && result.kind === 'unavailable') {
    await release(ctx, row.state);
    throw svcError('oauth_provider_unavailable', `The ${profile.label} sign-in service did not give tokens (${result.reason}); finish again with the same code shortly.`);
  }
  if (!result.ok) throw svcError('oauth_code_rejected', `The ${profile.label} refused the ${row.flow === 'device' ? 'device sign-in' : 'code'} (${result.reason}): it expired, was already used or was mistyped; start the sign-in again.`);
  const tokens = result.value;
  if (profile.project_url) {
    if (row.params.project_id) tokens.meta.project_id = row.params.project_id;
    else {
      const p = await lookUpProject(profile, tokens.access, proxyUrl);
      if (!p.ok) throw svcError('validation_failed', `Signed in, but the account's Code Assist project could not be found (${p.reason}); start again with "project_id".`, { field: 'project_id' });
      tokens.meta.project_id = p.value;
    }
  }
  return store(ctx, row, tokens, profile.label);
}

async function store(ctx: AppContext, row: SignInRow, tokens: TokenSet, label: string): Promise<FinishAnswer> {
  const now = ctx.clock.now();
  const hint = tokens.meta.email ? `signed in as ${tokens.meta.email}` : `signed in to a ${label}`;
  const p = row.params;
  const account = await ctx.db.tx(async (q) => {
    let a: AccountRow | undefined;
    if (row.account_id !== null) {
      a = (await q.query<AccountRow>('UPDATE provider_accounts SET secret_hint = $2, updated_at = $3 WHERE id = $1 RETURNING *', [row.account_id, hint, new Date(now)])).rows[0];
      if (!a) throw svcError('not_found', `Provider account ${row.account_id} was removed during the sign-in.`);
    } else {
      try {
        a = (await q.query<AccountRow>(
          `INSERT INTO provider_accounts (id, name, provider, kind, proxy_url, secret_hint, models, weight, priority, state, created_at, updated_at)
           VALUES ($1, $2, $3, 'subscription', $4, $5, $6, $7, $8, 'active', $9, $9) RETURNING *`,
          [newId('acc_'), p.name, row.provider, p.proxy_url ?? null, hint, p.models ?? [], p.weight ?? 1, p.priority ?? 0, new Date(now)],
        )).rows[0];
      } catch (e) {
        if ((e as { code?: string }).code === '23505') throw svcError('conflict', `A provider account named "${p.name}" was added during the sign-in; start again with another name.`, { field: 'name' });
        throw e;
      }
    }
    await saveSignInTokens(q, ctx.secretKey, a.id, tokens, now);
    return a;
  });
  tokenManagerOf(ctx).forget(account.id);
  if (row.account_id !== null) {
    await changeAccountState(ctx, { accountId: account.id, to: 'active', from: ['needs_sign_in'], reason: 'signed_in', details: { email: tokens.meta.email ?? null } });
  }
  await ctx.caches.invalidate(ACCOUNTS_CACHE);
  const fresh = (await ctx.db.query<AccountRow>('SELECT * FROM provider_accounts WHERE id = $1', [account.id])).rows[0] ?? account;
  return {
    status: row.account_id === null ? 201 : 200,
    body: { ...accountView(fresh), signed_in_as: tokens.meta.email ?? null, plan: tokens.meta.plan ?? null, token_expires_at: new Date(tokens.expiresAt).toISOString() },
  };
}
