/**
 * Provider accounts (superusers): each with its state and why, its quota windows as bars with a forecast marker,
 * pauses and cooldowns; add an API-key account; sign in a subscription account (or sign one in again); read a
 * subscription account's quota now.
 * GET /api/v1/accounts, GET /api/v1/accounts/{id}, POST /api/v1/accounts, POST /api/v1/accounts/{id}/quota/refresh.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Account, AccountDetail, List, Me } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { QuotaBar } from '../components/quota-bar.tsx';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { useLoad } from '../components/use-load.ts';
import { onSubmit, useAction } from '../components/use-action.ts';
import { SubscriptionSignIn } from './account-sign-in.tsx';

const PROVIDERS = ['anthropic', 'openai', 'gemini', 'openai-compatible'] as const;
const STATE: Record<Account['state'], string> = {
  active: 'Active',
  paused: 'Paused',
  needs_sign_in: 'Needs sign-in',
  disabled: 'Disabled',
};

async function loadAccounts(): Promise<AccountDetail[]> {
  const list = await call<List<Account>>(api.GET('/api/v1/accounts', { params: { query: { limit: '200' } } }));
  return Promise.all(list.items.map((a) => call<AccountDetail>(api.GET('/api/v1/accounts/{id}', { params: { path: { id: a.id } } }))));
}

export function Accounts({ me }: { me: Me }) {
  const accounts = useLoad(() => (me.is_superuser ? loadAccounts() : Promise.resolve([])), [me.is_superuser]);
  const [adding, setAdding] = useState(false);
  const [signingIn, setSigningIn] = useState(false);
  if (!me.is_superuser) {
    return (
      <section aria-labelledby="acc-h">
        <h1 id="acc-h">Provider accounts</h1>
        <p>Provider accounts are managed by the instance's administrators (superusers). Ask one to add an account if the gateway cannot reach a provider.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="acc-h">
      <div class="row">
        <h1 id="acc-h">Provider accounts</h1>
        {!adding && !signingIn && <button type="button" class="primary" onClick={() => setAdding(true)}>Add an API-key account</button>}
        {!adding && !signingIn && <button type="button" onClick={() => setSigningIn(true)}>Sign in a subscription account</button>}
      </div>
      {adding && <AddAccount onDone={() => { setAdding(false); accounts.reload(); }} onCancel={() => setAdding(false)} />}
      {signingIn && <SubscriptionSignIn onDone={() => { setSigningIn(false); accounts.reload(); }} onCancel={() => setSigningIn(false)} />}
      {accounts.loading && !accounts.data && <Loading what="accounts" />}
      {accounts.error && <ErrorNote error={accounts.error} onRetry={accounts.reload} />}
      {accounts.data?.length === 0 && !adding && (
        <Empty title="No provider accounts yet">
          <p>The gateway calls providers through accounts. Add an API key of Anthropic, OpenAI, Google Gemini or any OpenAI-compatible server, or sign in a Claude, ChatGPT or Gemini subscription.</p>
          <button type="button" class="primary" onClick={() => setAdding(true)}>Add your first account</button>
        </Empty>
      )}
      {accounts.data?.map((a) => <AccountCard key={a.id} a={a} onChanged={accounts.reload} />)}
    </section>
  );
}

function AccountCard({ a, onChanged }: { a: AccountDetail; onChanged: () => void }) {
  const [signingIn, setSigningIn] = useState(false);
  const refresh = useAction(() => call(api.POST('/api/v1/accounts/{id}/quota/refresh', { params: { path: { id: a.id } } })), onChanged);
  const { error, busy } = refresh;
  return (
    <article class="card" aria-labelledby={`acc-${a.id}`} style={{ marginBottom: '0.75rem' }}>
      <h2 id={`acc-${a.id}`}>{a.name} <span class="badge">{a.provider}</span> <span class="badge">{a.kind === 'subscription' ? 'subscription' : 'API key'}</span></h2>
      <p>
        <strong>{STATE[a.state]}</strong>
        {a.pauses.map((p) => <span key={p.window}> · paused{p.family ? ` for ${p.family}` : ''} until <Time at={p.until} /> ({p.reason})</span>)}
        {a.cooldown && <span> · cooling down until <Time at={a.cooldown.until} /> ({a.cooldown.reason})</span>}
        {a.state === 'needs_sign_in' && <span> · its subscription sign-in expired or was revoked{a.sign_in?.last_refresh_error ? `: ${a.sign_in.last_refresh_error}` : ''}; sign it in again.</span>}
        {a.state === 'disabled' && <span> · disabled by an administrator.</span>}
      </p>
      <p class="muted">
        {a.models.length ? `Models: ${a.models.join(', ')}` : "Models: the provider's list"}
        {a.kind === 'api_key' && a.secret_hint && <> · key <code>{a.secret_hint}</code></>}
        {a.proxy_url && <> · via proxy <code>{a.proxy_url}</code></>}
        {a.sign_in?.email && <> · signed in as {a.sign_in.email}{a.sign_in.plan ? ` (${a.sign_in.plan})` : ''}</>}
      </p>
      {a.kind === 'subscription' && (
        <>
          {a.quota.windows.length === 0 ? (
            <p>No quota windows read yet{a.quota.error ? `: ${a.quota.error}` : ''}.</p>
          ) : (
            a.quota.windows.map((w) => <QuotaBar key={w.name} w={w} />)
          )}
          {signingIn && <SubscriptionSignIn account={a} onDone={() => { setSigningIn(false); onChanged(); }} onCancel={() => setSigningIn(false)} />}
          <p class="row">
            {!signingIn && <button type="button" onClick={() => setSigningIn(true)} aria-label={`Sign in again: ${a.name}`}>Sign in again</button>}
            <span class="muted">Quota read <Time at={a.quota.read_at} relative /></span>
            <button type="button" onClick={() => refresh.run()} disabled={busy} aria-label={`Refresh quota now for ${a.name}`}>{busy ? 'Reading…' : 'Refresh quota now'}</button>
          </p>
          {error && <ErrorNote error={error} />}
        </>
      )}
      {a.kind === 'api_key' && <p class="muted">API-key accounts have no quota windows; their limits are the provider's rate limits.</p>}
    </article>
  );
}

function AddAccount({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const [v, setV] = useState({ name: '', provider: 'anthropic', api_key: '', base_url: '', proxy_url: '', models: '' });
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.currentTarget as HTMLInputElement).value });
  const add = useAction(() => call(api.POST('/api/v1/accounts', {
    body: {
      name: v.name,
      provider: v.provider as 'anthropic',
      api_key: v.api_key,
      ...(v.base_url ? { base_url: v.base_url } : {}),
      ...(v.proxy_url ? { proxy_url: v.proxy_url } : {}),
      models: v.models.split(',').map((m) => m.trim()).filter(Boolean),
    },
  })), onDone);
  const { error, busy } = add;
  return (
    <form class="note" aria-label="Add an API-key account" onSubmit={onSubmit(add)}>
      <h2>New API-key account</h2>
      <Field label="Name" name="name" error={error}>{(p) => <input {...p} required value={v.name} onInput={set('name')} />}</Field>
      <Field label="Provider" name="provider" error={error}>
        {(p) => <select {...p} value={v.provider} onChange={set('provider')}>{PROVIDERS.map((x) => <option key={x} value={x}>{x}</option>)}</select>}
      </Field>
      <Field label="API key" name="api_key" error={error} hint="Stored encrypted; never shown again.">
        {(p) => <input {...p} type="password" autoComplete="off" required value={v.api_key} onInput={set('api_key')} />}
      </Field>
      <Field label="Base URL" name="base_url" error={error} hint="Only for openai-compatible servers or a non-official endpoint.">
        {(p) => <input {...p} type="url" value={v.base_url} onInput={set('base_url')} />}
      </Field>
      <Field label="Outbound proxy" name="proxy_url" error={error} hint="Optional, e.g. http://user:pass@10.0.0.5:3128">
        {(p) => <input {...p} value={v.proxy_url} onInput={set('proxy_url')} />}
      </Field>
      <Field label="Models" name="models" error={error} hint="Comma-separated ids or patterns; empty serves the provider's list.">
        {(p) => <input {...p} value={v.models} onInput={set('models')} />}
      </Field>
      <FormError error={error} fields={['name', 'provider', 'api_key', 'base_url', 'proxy_url', 'models']} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Adding…' : 'Add account'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
