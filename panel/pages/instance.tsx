/**
 * Instance settings for superusers: this service (version, node, roles, capabilities, each dependency's health),
 * every team's limits in one table with the form that sets them, the users (create one; the list pages on), the
 * sign-in throttle (lift it for a user or an address) and the instance's compression mode (set on the compression
 * page). GET /api/v1/meta, /api/v1/health, /api/v1/teams, PUT /api/v1/teams/{id}/limits, GET/POST /api/v1/users,
 * DELETE /api/v1/auth/sign-in-failures, GET /api/v1/settings/compression.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { CompressionSettings, Health, List, Me, Meta, Team, User } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { limitsText, TeamLimits } from '../components/team-limits.tsx';
import { Time } from '../components/time.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { usePages } from '../components/use-pages.ts';

export function Instance({ me }: { me: Me }) {
  if (!me.is_superuser) {
    return (
      <section aria-labelledby="inst-h">
        <h1 id="inst-h">Instance</h1>
        <p>Only superusers see the instance's settings. Your teams' limits are on the <a href="/settings/teams">teams page</a>.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="inst-h">
      <h1 id="inst-h">Instance</h1>
      <Service />
      <TeamsLimits />
      <Users />
      <SignInThrottle />
      <CompressionMode />
    </section>
  );
}

function Service() {
  const meta = useLoad(() => call<Meta>(api.GET('/api/v1/meta')), []);
  const health = useLoad(() => call<Health>(api.GET('/api/v1/health')), []);
  return (
    <section aria-labelledby="inst-service-h">
      <h2 id="inst-service-h">Service</h2>
      {meta.error && <ErrorNote error={meta.error} onRetry={meta.reload} />}
      {meta.data && (
        <dl class="cards" aria-label="This service">
          <div class="card"><dt class="muted">Version</dt><dd>{meta.data.version}</dd></div>
          <div class="card"><dt class="muted">This node</dt><dd>{meta.data.node} ({meta.data.roles.join(', ')})</dd></div>
          <div class="card"><dt class="muted">Public URL</dt><dd class="mono">{meta.data.public_url}</dd></div>
          <div class="card"><dt class="muted">Capabilities</dt><dd>{meta.data.capabilities.join(', ')}</dd></div>
        </dl>
      )}
      {health.error && <ErrorNote error={health.error} onRetry={health.reload} />}
      {health.data && (
        <table aria-label="Dependencies">
          <thead><tr><th scope="col">Dependency</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col" class="num">Latency</th></tr></thead>
          <tbody>
            {Object.entries(health.data.checks).map(([name, c]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{String(c.kind ?? '—')}</td>
                <td><span class={`badge ${c.ok ? '' : 'error'}`}>{String(c.status ?? (c.ok ? 'up' : 'down'))}</span></td>
                <td class="num">{typeof c.latency_ms === 'number' ? `${c.latency_ms} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TeamsLimits() {
  const teams = usePages((cursor) => call<List<Team>>(api.GET('/api/v1/teams', { params: { query: { limit: '100', ...(cursor ? { cursor } : {}) } } })), []);
  const [editing, setEditing] = useState<string>();
  return (
    <section aria-labelledby="inst-limits-h">
      <h2 id="inst-limits-h">Team limits</h2>
      <p class="muted">Per team: gateway keys, AI tokens a month and error events a month; an empty field is unlimited.</p>
      {teams.loading && !teams.items && <Loading what="teams" />}
      {teams.error && <ErrorNote error={teams.error} onRetry={teams.reload} />}
      {teams.items && teams.items.length === 0 && <p>No teams yet. <a href="/settings/teams">Create one</a> on the teams page.</p>}
      {teams.items && teams.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Team limits">
            <thead><tr><th scope="col">Team</th><th scope="col">Limits</th><th scope="col"><span class="muted">Change</span></th></tr></thead>
            <tbody>
              {teams.items.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>{editing === t.id ? <TeamLimits team={t} onSaved={() => (setEditing(undefined), teams.reload())} /> : limitsText(t.limits)}</td>
                  <td>{editing !== t.id && <button type="button" onClick={() => setEditing(t.id)} aria-label={`Change the limits of ${t.name}`}>Change</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton pages={teams} what="teams" />
    </section>
  );
}

function Users() {
  const users = usePages((cursor) => call<List<User>>(api.GET('/api/v1/users', { params: { query: { limit: '50', ...(cursor ? { cursor } : {}) } } })), []);
  const [form, setForm] = useState({ username: '', email: '', password: '', is_superuser: false });
  const create = useAction(async () => {
    await call(api.POST('/api/v1/users', { body: { username: form.username, password: form.password, is_superuser: form.is_superuser, ...(form.email ? { email: form.email } : {}) } }));
    setForm({ username: '', email: '', password: '', is_superuser: false });
  }, users.reload);
  return (
    <section aria-labelledby="inst-users-h">
      <h2 id="inst-users-h">Users</h2>
      <form class="note row" aria-label="Create a user" onSubmit={onSubmit(create)}>
        <Field label="User name" name="username" error={create.error}>{(p) => <input {...p} required autoComplete="off" value={form.username} onInput={(e) => setForm({ ...form, username: e.currentTarget.value })} />}</Field>
        <Field label="E-mail (optional)" name="email" error={create.error}>{(p) => <input {...p} type="email" value={form.email} onInput={(e) => setForm({ ...form, email: e.currentTarget.value })} />}</Field>
        <Field label="Password" name="password" error={create.error} hint="At least 8 characters; tell it to the person.">{(p) => <input {...p} type="password" required minLength={8} autoComplete="new-password" value={form.password} onInput={(e) => setForm({ ...form, password: e.currentTarget.value })} />}</Field>
        <label><input type="checkbox" checked={form.is_superuser} onChange={(e) => setForm({ ...form, is_superuser: e.currentTarget.checked })} /> Superuser</label>
        <button type="submit" class="primary">Create user</button>
        <FormError error={create.error} fields={['username', 'email', 'password']} />
      </form>
      <p class="muted">Add a user to a team on the <a href="/settings/teams">teams page</a>.</p>
      {users.loading && !users.items && <Loading what="users" />}
      {users.error && <ErrorNote error={users.error} onRetry={users.reload} />}
      {users.items && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Users">
            <thead><tr><th scope="col">User name</th><th scope="col">E-mail</th><th scope="col">Superuser</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {users.items.map((u) => (
                <tr key={u.id}><td>{u.username}</td><td>{u.email ?? '—'}</td><td>{u.is_superuser ? 'yes' : 'no'}</td><td><Time at={u.created_at} /></td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton pages={users} what="users" />
    </section>
  );
}

function SignInThrottle() {
  const [who, setWho] = useState({ user: '', ip: '' });
  const [done, setDone] = useState<string>();
  const lift = useAction(async () => {
    const query = { ...(who.user ? { user: who.user.trim() } : {}), ...(who.ip ? { ip: who.ip.trim() } : {}) };
    await call(api.DELETE('/api/v1/auth/sign-in-failures', { params: { query } }));
    setDone(`Failed sign-ins forgotten for ${[query.user, query.ip].filter(Boolean).join(' and ')}.`);
  });
  return (
    <section aria-labelledby="inst-throttle-h">
      <h2 id="inst-throttle-h">Sign-in throttle</h2>
      <p class="muted">After repeated wrong passwords, sign-in waits. Lift the wait early for a user name, a client address or both.</p>
      <form class="row" aria-label="Lift the sign-in throttle" onSubmit={onSubmit(lift)}>
        <Field label="User name" name="user" error={lift.error}>{(p) => <input {...p} value={who.user} onInput={(e) => setWho({ ...who, user: e.currentTarget.value })} />}</Field>
        <Field label="Client address" name="ip" error={lift.error}>{(p) => <input {...p} value={who.ip} onInput={(e) => setWho({ ...who, ip: e.currentTarget.value })} />}</Field>
        <button type="submit">Lift the wait</button>
        <FormError error={lift.error} fields={['user', 'ip']} />
      </form>
      {done && <p role="status">{done}</p>}
    </section>
  );
}

function CompressionMode() {
  const settings = useLoad(() => call<CompressionSettings>(api.GET('/api/v1/settings/compression')), []);
  return (
    <section aria-labelledby="inst-compression-h">
      <h2 id="inst-compression-h">Compression</h2>
      {settings.error && <ErrorNote error={settings.error} onRetry={settings.reload} />}
      {settings.data && (
        <p>
          The instance's mode is <strong>{settings.data.mode}</strong>, the last {settings.data.keep_last_turns} turns are never touched
          {settings.data.rules.length ? `, ${settings.data.rules.length} model rule${settings.data.rules.length === 1 ? '' : 's'}` : ''}.{' '}
          <a href="/ai/compression">Change it on the compression page</a>, where the savings report is.
        </p>
      )}
    </section>
  );
}
