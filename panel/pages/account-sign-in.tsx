/**
 * Signing in a subscription account (Claude, ChatGPT, Gemini plans): start → open the provider's page → paste the
 * code or the address the browser ended on (or, for ChatGPT's device sign-in, enter the shown code there while the
 * panel waits) → finish creates the account, or signs an existing one in again.
 * POST /api/v1/accounts/oauth/start and /finish.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call, type ApiError } from '../api/client.ts';
import { Field, FormError } from '../components/form.tsx';
import type { SignInStarted as Started } from '../api/views.ts';

const PLANS = [['claude', 'Claude (Pro / Max)'], ['chatgpt', 'ChatGPT (Plus / Pro)'], ['gemini-plan', 'Gemini (Code Assist)']];

export function SubscriptionSignIn({ account, onDone, onCancel }: { account?: { id: string; name: string; provider: string }; onDone: () => void; onCancel: () => void }) {
  const [v, setV] = useState({ provider: 'claude', name: '', flow: 'code', proxy_url: '', models: '' });
  const [started, setStarted] = useState<Started>();
  const [pasted, setPasted] = useState('');
  const [waiting, setWaiting] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.currentTarget as HTMLInputElement).value });

  const start = async (e: Event) => {
    e.preventDefault();
    try {
      const body = account
        ? { provider: account.provider, account_id: account.id, ...(v.flow === 'device' ? { flow: 'device' as const } : {}) }
        : {
          provider: v.provider, name: v.name, flow: v.flow as 'code',
          ...(v.proxy_url ? { proxy_url: v.proxy_url } : {}),
          models: v.models.split(',').map((m) => m.trim()).filter(Boolean),
        };
      setStarted(await call<Started>(api.POST('/api/v1/accounts/oauth/start', { body })));
      setError(undefined);
    } catch (err) {
      setError(err as ApiError);
    }
  };

  /** Finishes; a device sign-in answers 202 until the code is entered, so it asks again after the interval. */
  const finish = async (e?: Event) => {
    e?.preventDefault();
    if (!started) return;
    const p = pasted.trim();
    const body = started.flow === 'device' ? { state: started.state } : /^https?:\/\//.test(p) ? { state: started.state, callback_url: p } : { state: started.state, code: p };
    try {
      const r = await call(api.POST('/api/v1/accounts/oauth/finish', { body }));
      if ('pending' in r) {
        setWaiting(r.message);
        return;
      }
      onDone();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  useEffect(() => {
    if (!waiting || !started) return;
    const t = setTimeout(() => void finish(), (started.interval_s ?? 5) * 1000);
    return () => clearTimeout(t);
  }, [waiting]);

  const title = account ? `Sign ${account.name} in again` : 'Sign in a subscription account';
  if (!started) {
    return (
      <form class="note" aria-label={title} onSubmit={start}>
        <h2>{title}</h2>
        {!account && (
          <>
            <Field label="Plan" name="provider" error={error}>
              {(p) => <select {...p} value={v.provider} onChange={set('provider')}>{PLANS.map(([k, l]) => <option key={k} value={k}>{l}</option>)}</select>}
            </Field>
            <Field label="Name" name="name" error={error}>{(p) => <input {...p} required value={v.name} onInput={set('name')} />}</Field>
            <Field label="Outbound proxy" name="proxy_url" error={error} hint="Optional, e.g. http://user:pass@10.0.0.5:3128">{(p) => <input {...p} value={v.proxy_url} onInput={set('proxy_url')} />}</Field>
            <Field label="Models" name="models" error={error} hint="Comma-separated ids or patterns; empty serves any.">{(p) => <input {...p} value={v.models} onInput={set('models')} />}</Field>
          </>
        )}
        {(account?.provider ?? v.provider).match(/chatgpt|openai/) && (
          <Field label="How to sign in" name="flow" error={error}>
            {(p) => <select {...p} value={v.flow} onChange={set('flow')}><option value="code">open a page, paste the code</option><option value="device">enter a code on another device</option></select>}
          </Field>
        )}
        <FormError error={error} fields={['provider', 'name', 'proxy_url', 'models', 'flow']} />
        <div class="row"><button type="submit" class="primary">Start sign-in</button><button type="button" onClick={onCancel}>Cancel</button></div>
      </form>
    );
  }
  return (
    <form class="note" aria-label={title} onSubmit={finish}>
      <h2>{title}</h2>
      {started.flow === 'device' ? (
        <>
          <p>Open <a href={started.verification_url} target="_blank" rel="noopener noreferrer">{started.verification_url}</a>, sign in, and enter the code <strong aria-label="Device code"><code>{started.user_code}</code></strong>.</p>
          {waiting ? <p role="status">{waiting} Waiting…</p> : <button type="submit" class="primary">I have entered the code</button>}
        </>
      ) : (
        <>
          <p>1. <a href={started.authorize_url} target="_blank" rel="noopener noreferrer">Open the provider's sign-in page</a> and approve.</p>
          <Field label="2. Paste the code it shows, or the whole address your browser ended on" name="code" error={error}>
            {(p) => <input {...p} required autoComplete="off" value={pasted} onInput={(e) => setPasted(e.currentTarget.value)} />}
          </Field>
          <button type="submit" class="primary">Finish sign-in</button>
        </>
      )}
      <FormError error={error} fields={['code']} />
      <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}
