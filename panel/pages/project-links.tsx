/**
 * A project's links to the family's apps and pages services (docs/links.md): each linked app (it gets CLIENT_DSN
 * from its next deploy) and pages alias (every HTML page gets the reporting script), with its state — stale while
 * the peer has not taken the current DSN, with the peer's last error — and the newest deploy read. Link and unlink
 * here (the API refuses what the caller may not do); the peer is asked first whether you may change that app or alias. GET/PUT/DELETE
 * /api/v1/projects/{id}/links….
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import { Field, FormError } from '../components/form.tsx';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { useLoad } from '../components/use-load.ts';
import { onSubmit, useAction } from '../components/use-action.ts';

type Kind = 'app' | 'alias';

export function ProjectLinks({ projectId }: { projectId: number }) {
  const id = String(projectId);
  const links = useLoad(() => call(api.GET('/api/v1/projects/{id}/links', { params: { path: { id } } })), [id]);
  const [kind, setKind] = useState<Kind>('app');
  const [target, setTarget] = useState('');
  const [environment, setEnvironment] = useState('production');
  const link = useAction(async () => {
    const params = { path: { id, target: target.trim() } };
    if (kind === 'app') await call(api.PUT('/api/v1/projects/{id}/links/apps/{target}', { params, body: null }));
    else await call(api.PUT('/api/v1/projects/{id}/links/aliases/{target}', { params, body: { environment } }));
    setTarget('');
  }, links.reload);
  const unlink = useAction(async (k: Kind, t: string) => {
    if (!confirm(`Unlink the ${k === 'app' ? 'app' : 'pages alias'} "${t}"? The peer removes ${k === 'app' ? 'CLIENT_DSN' : 'the script'}; releases already created stay.`)) return;
    const params = { path: { id, target: t } };
    if (k === 'app') await call(api.DELETE('/api/v1/projects/{id}/links/apps/{target}', { params }));
    else await call(api.DELETE('/api/v1/projects/{id}/links/aliases/{target}', { params }));
  }, links.reload);

  return (
    <section aria-labelledby="links-h" class="card">
      <h2 id="links-h">Linked apps and pages</h2>
      {links.loading && !links.data && <Loading what="links" />}
      {links.error && <ErrorNote error={links.error} onRetry={links.reload} />}
      {unlink.error && <ErrorNote error={unlink.error} />}
      {links.data?.items.length === 0 && (
        <Empty title="Nothing linked">
          <p>Link an app to give it this project's DSN as <code>CLIENT_DSN</code>, or a pages alias to put the reporting script on its pages. Releases are then created from their deploys.</p>
        </Empty>
      )}
      {links.data && links.data.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <thead><tr><th>kind</th><th>target</th><th>state</th><th>last deploy</th><th>linked</th><th>actions</th></tr></thead>
            <tbody>
              {links.data.items.map((l) => (
                <tr key={l.id}>
                  <td>{l.kind === 'app' ? 'app' : 'pages alias'}</td>
                  <td><code>{l.target}</code>{l.environment && <span class="muted"> ({l.environment})</span>}{l.release && <div class="muted">reports release <code>{l.release}</code></div>}</td>
                  <td>{l.state === 'ok' ? 'ok' : <span title={l.last_error ?? ''}>stale: {l.last_error ?? 'retrying'}</span>}</td>
                  <td><Time at={l.last_deploy_at} empty="none read yet" /></td>
                  <td><Time at={l.created_at} /></td>
                  <td><button type="button" class="danger" onClick={() => unlink.run(l.kind, l.target)}>Unlink</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form aria-label="Link an app or a pages alias" onSubmit={onSubmit(link)}>
        <div class="row">
          <Field label="Kind" name="kind" error={link.error}>
            {(p) => (
              <select {...p} value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
                <option value="app">app (apps service)</option>
                <option value="alias">pages alias</option>
              </select>
            )}
          </Field>
          <Field label={kind === 'app' ? 'App id' : 'Alias name'} name="target" error={link.error}>
            {(p) => <input {...p} required value={target} onInput={(e) => setTarget(e.currentTarget.value)} />}
          </Field>
          {kind === 'alias' && (
            <Field label="Environment" name="environment" error={link.error}>
              {(p) => <input {...p} value={environment} onInput={(e) => setEnvironment(e.currentTarget.value)} />}
            </Field>
          )}
        </div>
        <FormError error={link.error} fields={['target', 'environment']} />
        <button type="submit" class="primary" disabled={target.trim() === ''}>Link</button>
      </form>
    </section>
  );
}
