/** Sign in with user name and password; the service sets the HttpOnly session cookie. */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import { Field, FormError } from '../components/form.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';

export function SignIn({ onSignedIn, expired }: { onSignedIn: () => void; expired: boolean }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(() => call(api.POST('/api/v1/auth/login', { body: { username, password } })), onSignedIn);
  const { error, busy } = signIn;
  return (
    <main class="sign-in">
      <h1>Sign in to svc</h1>
      {expired && <p class="note" role="status">Your session has ended. Sign in again to go back to the page you were on.</p>}
      <form onSubmit={onSubmit(signIn)} aria-label="Sign in">
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
