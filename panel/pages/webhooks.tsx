/**
 * Webhooks of your teams: create one (the signing secret is shown once), send a test event, read the delivery log
 * with every attempt, delete one. GET/POST /api/v1/webhooks, DELETE /api/v1/webhooks/{id},
 * POST /api/v1/webhooks/{id}/test, GET /api/v1/webhooks/{id}/deliveries.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Delivery, List, Me, Webhook } from '../api/views.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Field, FormError } from '../components/form.tsx';
import { fmtMs } from '../components/format.ts';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';

export function Webhooks({ me }: { me: Me }) {
  const hooks = useLoad(() => call<List<Webhook>>(api.GET('/api/v1/webhooks', { params: { query: { limit: '200' } } })), []);
  const managed = me.teams.filter((t) => t.role === 'admin' || t.role === 'owner');
  const [url, setUrl] = useState('');
  const [team, setTeam] = useState(managed[0]?.id ?? '');
  const [created, setCreated] = useState<Webhook & { secret: string }>();
  const create = useAction(async () => {
    setCreated(await call<Webhook & { secret: string }>(api.POST('/api/v1/webhooks', { params: { query: { team } }, body: { url } })));
    setUrl('');
  }, hooks.reload);
  const teamName = (id: string) => me.teams.find((t) => t.id === id)?.name ?? id;
  return (
    <section aria-labelledby="hooks-h">
      <h1 id="hooks-h">Webhooks</h1>
      {created && (
        <div class="note secret" role="status" aria-label="New webhook secret">
          <p><strong>Webhook created.</strong> Its signing secret (to check the X-Svc-Signature of each delivery) is shown only this once.</p>
          <p class="row"><code aria-label="Signing secret">{created.secret}</code> <CopyButton text={created.secret} label="Copy the signing secret" /></p>
          <button type="button" onClick={() => setCreated(undefined)}>I have copied it</button>
        </div>
      )}
      {managed.length > 0 && (
        <form class="note row" aria-label="Create a webhook" onSubmit={onSubmit(create)}>
          <Field label="URL" name="url" error={create.error}>{(p) => <input {...p} type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}</Field>
          <Field label="Team" name="team" error={create.error}>
            {(p) => <select {...p} value={team} onChange={(e) => setTeam(e.currentTarget.value)}>{managed.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}</select>}
          </Field>
          <button type="submit" class="primary">Create webhook</button>
          <FormError error={create.error} fields={['url', 'team']} />
        </form>
      )}
      {hooks.loading && !hooks.data && <Loading what="webhooks" />}
      {hooks.error && <ErrorNote error={hooks.error} onRetry={hooks.reload} />}
      {hooks.data?.items.length === 0 && (
        <Empty title="No webhooks yet">
          <p>A webhook receives a signed POST for new issues, regressions, budget alerts and account changes.{managed.length ? ' Create one above and send it a test.' : ' Team admins create them.'}</p>
        </Empty>
      )}
      {hooks.data?.items.map((w) => <WebhookCard key={w.id} w={w} team={teamName(w.team)} onChanged={hooks.reload} />)}
    </section>
  );
}

function WebhookCard({ w, team, onChanged }: { w: Webhook; team: string; onChanged: () => void }) {
  const deliveries = useLoad(() => call<List<Delivery>>(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: w.id }, query: { limit: '20' } } })), [w.id]);
  const test = useAction(() => call(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: w.id } } })), () => setTimeout(deliveries.reload, 1500));
  const remove = useAction(async () => {
    if (!confirm(`Delete the webhook to ${w.url}?`)) return;
    await call(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: w.id } } }));
  }, onChanged);
  return (
    <article class="card" aria-label={`Webhook to ${w.url}`} style={{ marginBottom: '0.75rem' }}>
      <h2 class="mono">{w.url}</h2>
      <p class="muted">Team {team} · events: {w.events.join(', ')} · created <Time at={w.created_at} /></p>
      <div class="row">
        <button type="button" onClick={() => test.run()} disabled={test.busy}>Send a test event</button>
        <button type="button" onClick={() => deliveries.reload()}>Refresh deliveries</button>
        <button type="button" class="danger" onClick={() => remove.run()}>Delete</button>
      </div>
      {(test.error ?? remove.error) && <ErrorNote error={(test.error ?? remove.error)!} />}
      {deliveries.data?.items.length === 0 && <p class="muted">No deliveries yet.</p>}
      {deliveries.data && deliveries.data.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label={`Deliveries to ${w.url}`}>
            <thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">Last attempt</th><th scope="col">Created</th></tr></thead>
            <tbody>{deliveries.data.items.map((d) => {
              const last = d.attempts[d.attempts.length - 1];
              return (
                <tr key={d.id}>
                  <td>{d.kind}</td>
                  <td>{d.state}{d.next_attempt_at && <> · retry <Time at={d.next_attempt_at} relative /></>}</td>
                  <td>{last ? `${last.status ?? last.error ?? '—'} in ${fmtMs(last.duration_ms)} (attempt ${last.attempt})` : '—'}</td>
                  <td><Time at={d.created_at} /></td>
                </tr>
              );
            })}</tbody>
          </table>
        </div>
      )}
    </article>
  );
}
