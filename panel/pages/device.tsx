/**
 * Approving a device sign-in (`svc login` prints a link to /device?code=ABCD-EFGH): shows which client asks for
 * which scope, then approves or denies it as the signed-in user. GET /api/v1/auth/device,
 * POST /api/v1/auth/device/approve and /deny (RFC 8628).
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import { Field, FormError } from '../components/form.tsx';
import { ErrorNote } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';

interface Pending {
  user_code: string;
  client_name: string;
  scope: 'read' | 'deploy' | 'write';
  expires_at: string;
}

const SCOPE_WORDS: Record<Pending['scope'], string> = {
  read: 'read what you can read',
  deploy: 'read, and do what CI does (register releases)',
  write: 'do everything your roles allow',
};

export function DeviceApproval({ query }: { query: URLSearchParams }) {
  const [code, setCode] = useState(query.get('code') ?? '');
  const [pending, setPending] = useState<Pending>();
  const [decided, setDecided] = useState<'approved' | 'denied'>();
  const look = useAction(async () => {
    setPending(await call<Pending>(api.GET('/api/v1/auth/device', { params: { query: { code } } })));
  });
  const decide = useAction(async (approve: boolean) => {
    const body = { user_code: (pending as Pending).user_code };
    await call(approve ? api.POST('/api/v1/auth/device/approve', { body }) : api.POST('/api/v1/auth/device/deny', { body }));
    setDecided(approve ? 'approved' : 'denied');
  });

  if (decided) {
    return (
      <section aria-labelledby="device-h">
        <h1 id="device-h">Device sign-in</h1>
        <p class="note" role="status">
          {decided === 'approved' ? 'Signed in. Go back to the terminal: it continues by itself.' : 'Denied. The terminal is told that the sign-in was refused.'}
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="device-h">
      <h1 id="device-h">Device sign-in</h1>
      <p class="muted">Approve only a code that you see in your own terminal now: approving signs that terminal in as you.</p>
      {!pending && (
        <form class="note row" aria-label="Find the sign-in" onSubmit={onSubmit(look)}>
          <Field label="Code" name="code" error={look.error} hint="As printed by svc login, e.g. BCDF-GHJK.">
            {(p) => <input {...p} required autoComplete="off" value={code} onInput={(e) => setCode(e.currentTarget.value)} />}
          </Field>
          <FormError error={look.error} fields={['code']} />
          <button type="submit" class="primary" disabled={look.busy}>Continue</button>
        </form>
      )}
      {pending && (
        <div class="note" role="group" aria-label="Sign-in request">
          <p><strong>{pending.client_name}</strong> asks to sign in as you with code <code>{pending.user_code}</code>.</p>
          <p>Scope <strong>{pending.scope}</strong>: it may {SCOPE_WORDS[pending.scope]}. The request expires <Time at={pending.expires_at} relative />.</p>
          {decide.error && <ErrorNote error={decide.error} />}
          <p class="row">
            <button type="button" class="primary" disabled={decide.busy} onClick={() => decide.run(true)}>Approve</button>
            <button type="button" class="danger" disabled={decide.busy} onClick={() => decide.run(false)}>Deny</button>
          </p>
        </div>
      )}
    </section>
  );
}
