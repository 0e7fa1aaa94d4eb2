/**
 * Teams: the teams you belong to (superusers: all), each with its members and roles and its limits; create a team;
 * add a member by user name or change a role (team admins; owners for the owner role); remove a member.
 * GET/POST /api/v1/teams, GET /api/v1/teams/{id}/members, PUT/DELETE /api/v1/teams/{id}/members/{user}.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { List, Me, Member, Team } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { fmtCount, fmtTokens } from '../components/format.ts';
import { ErrorNote, Loading } from '../components/states.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { limitsText, TeamLimits } from '../components/team-limits.tsx';

const ROLES = ['viewer', 'member', 'admin', 'owner'];


export function Teams({ me }: { me: Me }) {
  const teams = useLoad(() => call<List<Team>>(api.GET('/api/v1/teams', { params: { query: { limit: '200' } } })), []);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    await call(api.POST('/api/v1/teams', { body: { name } }));
    setName('');
  }, teams.reload);
  return (
    <section aria-labelledby="teams-h">
      <h1 id="teams-h">Teams</h1>
      <form class="note row" aria-label="Create a team" onSubmit={onSubmit(create)}>
        <Field label="New team name" name="name" error={create.error} hint="Lowercase letters, digits and hyphens.">
          {(p) => <input {...p} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="primary">Create team</button>
        <FormError error={create.error} fields={['name']} />
      </form>
      {teams.loading && !teams.data && <Loading what="teams" />}
      {teams.error && <ErrorNote error={teams.error} onRetry={teams.reload} />}
      {teams.data?.items.map((t) => <TeamCard key={t.id} team={t} superuser={me.is_superuser} onChanged={teams.reload} />)}
    </section>
  );
}

function TeamCard({ team, superuser, onChanged }: { team: Team; superuser: boolean; onChanged: () => void }) {
  const members = useLoad(() => call<List<Member>>(api.GET('/api/v1/teams/{id}/members', { params: { path: { id: team.id } } })), [team.id]);
  const [user, setUser] = useState('');
  const [role, setRole] = useState('member');
  const setMember = useAction((who: string, r: string) => call(api.PUT('/api/v1/teams/{id}/members/{user}', { params: { path: { id: team.id, user: who } }, body: { role: r as 'member' } })), members.reload);
  const remove = useAction(async (m: Member) => {
    if (!confirm(`Remove ${m.username} from ${team.name}?`)) return;
    await call(api.DELETE('/api/v1/teams/{id}/members/{user}', { params: { path: { id: team.id, user: m.user } } }));
  }, members.reload);
  const add = useAction(async () => {
    if (await setMember.run(user.trim(), role)) setUser('');
  });
  const error = setMember.error ?? remove.error;
  return (
    <article class="card" aria-labelledby={`team-${team.id}`} style={{ marginBottom: '0.75rem' }}>
      <h2 id={`team-${team.id}`}>{team.name}</h2>
      <p class="muted">Limits: {limitsText(team.limits)}</p>
      {superuser && <TeamLimits team={team} onSaved={onChanged} />}
      {members.error && <ErrorNote error={members.error} onRetry={members.reload} />}
      {members.data && (
        <table aria-label={`Members of ${team.name}`}>
          <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col"><span class="muted">Actions</span></th></tr></thead>
          <tbody>{members.data.items.map((m) => (
            <tr key={m.user}>
              <td>{m.username}</td>
              <td>
                <select aria-label={`Role of ${m.username}`} value={m.role} onChange={(e) => setMember.run(m.user, e.currentTarget.value)}>
                  {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                </select>
              </td>
              <td><button type="button" class="danger" onClick={() => remove.run(m)} aria-label={`Remove ${m.username}`}>Remove</button></td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {error && <ErrorNote error={error} />}
      <form class="row" aria-label={`Add a member to ${team.name}`} onSubmit={onSubmit(add)}>
        <div class="field"><label for={`add-${team.id}`}>User name</label><input id={`add-${team.id}`} required value={user} onInput={(e) => setUser(e.currentTarget.value)} /></div>
        <div class="field"><label for={`role-${team.id}`}>Role</label>
          <select id={`role-${team.id}`} value={role} onChange={(e) => setRole(e.currentTarget.value)}>{ROLES.map((r) => <option key={r} value={r}>{r}</option>)}</select></div>
        <button type="submit">Add member</button>
      </form>
    </article>
  );
}
