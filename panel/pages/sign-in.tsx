/** Sign in with user name and password; the service sets the HttpOnly session cookie. */
import { useState } from 'preact/hooks';
import { api, call, type ApiError } from '../api/client.ts';
import { Field, FormError } from '../components/form.tsx';

export function SignIn({ onSignedIn, expired }: { onSignedIn: () => void; expired: boolean }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await call(api.POST('/api/v1/auth/login', { body: { username, password } }));
      setError(undefined);
      onSignedIn();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Sign in to svc</h1>
      {expired && <p class="note" role="status">Your session has ended. Sign in again to go back to the page you were on.</p>}
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="User name" name="username" error={error}>
          {(p) => <input {...p} name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />}
        </Field>
        <Field label="Password" name="password" error={error}>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}
        </Field>
        <FormError error={error} fields={['username', 'password']} />
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <p class="muted">The first start of the service prints the administrator's user name and password.</p>
    </main>
  );
}
