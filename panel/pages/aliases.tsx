/**
 * Model aliases: a name callers use in place of a model id, standing for an ordered list of models tried in turn
 * (fallback), read page by page (each is a form for superusers, so pages are short). Everyone reads them; superusers
 * create, reorder and delete. GET /api/v1/aliases, PUT/DELETE /api/v1/aliases/{name}.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Alias, List, Me } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { ModelListEditor } from '../components/model-list-editor.tsx';
import { Empty, ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { usePages } from '../components/use-pages.ts';
import { onSubmit, useAction } from '../components/use-action.ts';

export function Aliases({ me }: { me: Me }) {
  const aliases = usePages((cursor) => call<List<Alias>>(api.GET('/api/v1/aliases', { params: { query: { limit: '50', ...(cursor ? { cursor } : {}) } } })), []);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="aliases-h">
      <div class="row">
        <h1 id="aliases-h">Model aliases</h1>
        {me.is_superuser && !adding && <button type="button" class="primary" onClick={() => setAdding(true)}>New alias</button>}
      </div>
      {adding && <AliasForm onDone={() => { setAdding(false); aliases.reload(); }} onCancel={() => setAdding(false)} />}
      {aliases.loading && !aliases.items && <Loading what="aliases" />}
      {aliases.error && <ErrorNote error={aliases.error} onRetry={aliases.reload} />}
      {aliases.items?.length === 0 && !adding && (
        <Empty title="No aliases yet">
          <p>An alias such as <code>smart</code> lets callers name one model and fall back to the next when it fails.{me.is_superuser ? ' Create one with New alias.' : ' Superusers create them.'}</p>
        </Empty>
      )}
      {aliases.items?.map((a) => (me.is_superuser ? <AliasForm key={a.name} alias={a} onDone={aliases.reload} /> : (
        <article key={a.name} class="card"><h2>{a.name}</h2><ol>{a.models.map((m) => <li key={m}><code>{m}</code></li>)}</ol></article>
      )))}
      <MoreButton pages={aliases} what="aliases" />
    </section>
  );
}

function AliasForm({ alias, onDone, onCancel }: { alias?: Alias; onDone: () => void; onCancel?: () => void }) {
  const [name, setName] = useState(alias?.name ?? '');
  const [models, setModels] = useState(alias?.models ?? []);
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    await call(api.PUT('/api/v1/aliases/{name}', { params: { path: { name } }, body: { models } }));
    setSaved(true);
  }, onDone);
  const remove = useAction(async () => {
    if (!alias || !confirm(`Delete the alias "${alias.name}"? Calls naming it are refused afterwards.`)) return;
    await call(api.DELETE('/api/v1/aliases/{name}', { params: { path: { name: alias.name } } }));
  }, onDone);
  const error = save.error ?? remove.error;
  return (
    <form class="card" style={{ marginBottom: '0.75rem' }} aria-label={alias ? `Alias ${alias.name}` : 'New alias'} onSubmit={onSubmit(save)}>
      {alias ? <h2>{alias.name}</h2> : (
        <Field label="Alias name" name="name" error={error}>{(p) => <input {...p} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
      )}
      <ModelListEditor label={`Models of ${alias?.name ?? 'the new alias'}`} models={models} onChange={(m) => { setSaved(false); setModels(m); }} />
      <FormError error={error} fields={alias ? [] : ['name']} />
      <div class="row">
        <button type="submit" class="primary">{alias ? 'Save order' : 'Create alias'}</button>
        {alias && <button type="button" class="danger" onClick={() => remove.run()}>Delete</button>}
        {onCancel && <button type="button" onClick={onCancel}>Cancel</button>}
        {saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
