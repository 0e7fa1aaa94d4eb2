/**
 * Gateway keys: the list (models, limits, last used), creating one (the sk-svc- secret is shown once, with a copy
 * button), changing one and revoking one. GET/POST /api/v1/keys, PATCH/DELETE /api/v1/keys/{id}.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import { COMPRESSION_MODES, type CreatedKey, type GatewayKey, type List, type Me } from '../api/views.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Field, FormError } from '../components/form.tsx';
import { fmtUsd, fmtCount, fmtTokens } from '../components/format.ts';
import { Empty, ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { usePages } from '../components/use-pages.ts';
import { onSubmit, useAction } from '../components/use-action.ts';

const LOG_BODIES = ['off', '1d', '7d', '30d'];
const RESPONSE_STORE = ['off', '1d', '7d', '14d', '30d'];

function limitsText(l: Record<string, number | null>): string {
  const parts: string[] = [];
  if (l.requests_per_minute != null) parts.push(`${fmtCount(l.requests_per_minute, 'call')}/min`);
  if (l.requests_per_day != null) parts.push(`${fmtCount(l.requests_per_day, 'call')}/day`);
  if (l.tokens_per_month != null) parts.push(`${fmtTokens(l.tokens_per_month)}/month`);
  if (l.dollars_per_month != null) parts.push(`${fmtUsd(l.dollars_per_month)}/month`);
  return parts.length ? parts.join(', ') : 'none';
}

export function Keys({ me }: { me: Me }) {
  const keys = usePages((cursor) => call<List<GatewayKey>>(api.GET('/api/v1/keys', { params: { query: { limit: '200', ...(cursor ? { cursor } : {}) } } })), []);
  const [created, setCreated] = useState<CreatedKey>();
  const [showForm, setShowForm] = useState(false);
  const [editing, setEditing] = useState<GatewayKey>();
  const revoke = useAction(async (k: GatewayKey) => {
    if (!confirm(`Revoke the key "${k.name}"? Calls with it are refused at once.`)) return;
    await call(api.DELETE('/api/v1/keys/{id}', { params: { path: { id: k.id } } }));
    if (created?.id === k.id) setCreated(undefined);
  }, keys.reload);
  const teamName = (id: string) => me.teams.find((t) => t.id === id)?.name ?? id;


  return (
    <section aria-labelledby="keys-h">
      <div class="row">
        <h1 id="keys-h">Gateway keys</h1>
        {!showForm && <button type="button" class="primary" onClick={() => setShowForm(true)}>Create key</button>}
      </div>
      {created && (
        <div class="note secret" role="status" aria-label="New key secret">
          <p><strong>Key "{created.name}" created.</strong> Copy its secret now: it is shown only this once.</p>
          <p class="row"><code aria-label="Secret">{created.key}</code> <CopyButton text={created.key} label="Copy the secret" /></p>
          {created.warnings?.map((w) => <p key={w} class="muted">{w}</p>)}
          <button type="button" onClick={() => setCreated(undefined)}>I have copied it</button>
        </div>
      )}
      {showForm && <KeyForm me={me} onCancel={() => setShowForm(false)} onDone={(k) => { setCreated(k as CreatedKey); setShowForm(false); keys.reload(); }} />}
      {editing && <KeyForm key={editing.id} me={me} editing={editing} onCancel={() => setEditing(undefined)} onDone={() => { setEditing(undefined); keys.reload(); }} />}
      {revoke.error && <ErrorNote error={revoke.error} />}
      {keys.loading && !keys.items && <Loading what="keys" />}
      {keys.error && <ErrorNote error={keys.error} onRetry={keys.reload} />}
      {keys.items && keys.items.length === 0 && !showForm && (
        <Empty title="No gateway keys yet">
          <p>A key lets an application call models through this gateway with the OpenAI, Anthropic or Google SDKs.</p>
          <button type="button" class="primary" onClick={() => setShowForm(true)}>Create your first key</button>
        </Empty>
      )}
      {keys.items && keys.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Gateway keys">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Team</th><th scope="col">Secret</th><th scope="col">Models</th><th scope="col">Limits</th><th scope="col">Last used</th><th scope="col">Created</th><th scope="col"><span class="muted">Actions</span></th></tr>
            </thead>
            <tbody>
              {keys.items.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}{k.own && <span class="badge"> own</span>}{k.disabled && <span class="badge"> disabled</span>}</td>
                  <td>{teamName(k.team)}</td>
                  <td><code>{k.hint}</code></td>
                  <td>{k.models.length ? k.models.join(', ') : 'every model'}</td>
                  <td>{limitsText(k.limits)}</td>
                  <td><Time at={k.last_used_at} relative /></td>
                  <td><Time at={k.created_at} /></td>
                  <td>
                    <div class="row actions">
                    <a href={`/ai/usage?key=${k.id}&group_by=model`} aria-label={`Usage of ${k.name}`}>Usage</a>
                    <button type="button" onClick={() => { setShowForm(false); setEditing(k); }} aria-label={`Edit ${k.name}`}>Edit</button>
                    <button type="button" class="danger" onClick={() => revoke.run(k)} aria-label={`Revoke ${k.name}`}>Revoke</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton pages={keys} what="keys" />
    </section>
  );
}

const LIMIT_FIELDS = [
  { name: 'requests_per_minute', label: 'Calls per minute' },
  { name: 'requests_per_day', label: 'Calls per day' },
  { name: 'tokens_per_month', label: 'Tokens per month' },
  { name: 'dollars_per_month', label: 'Dollars per month ($)' },
] as const;

/** Creates a key (POST, the answer carries the secret) or changes one (PATCH: limits replace the whole object). */
function KeyForm({ me, editing, onDone, onCancel }: { me: Me; editing?: GatewayKey; onDone: (k: CreatedKey | GatewayKey) => void; onCancel: () => void }) {
  const writable = me.teams.filter((t) => t.role !== 'viewer');
  const [name, setName] = useState(editing?.name ?? '');
  const [team, setTeam] = useState(editing?.team ?? writable[0]?.id ?? '');
  const [models, setModels] = useState(editing?.models.join(', ') ?? '');
  const [logBodies, setLogBodies] = useState<string>(editing?.log_bodies ?? 'off');
  const [compression, setCompression] = useState(editing?.compression ?? '');
  const [responseStore, setResponseStore] = useState(editing?.response_store_ttl ?? '1d');
  const [own, setOwn] = useState(false);
  const [disabled, setDisabled] = useState(editing?.disabled ?? false);
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(Object.entries(editing?.limits ?? {}).filter(([, v]) => v != null).map(([k, v]) => [k, String(v)])),
  );
  const save = useAction(async () => {
    const lim = Object.fromEntries(Object.entries(limits).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, Number(v)]));
    const fields = {
      name, models: models.split(',').map((m) => m.trim()).filter(Boolean), log_bodies: logBodies as 'off', limits: lim,
      compression: (compression || null) as 'on' | null,
      response_store_ttl: responseStore,
    };
    onDone(editing
      ? await call<GatewayKey>(api.PATCH('/api/v1/keys/{id}', { params: { path: { id: editing.id } }, body: { ...fields, disabled } }))
      : await call<CreatedKey>(api.POST('/api/v1/keys', { params: { query: team ? { team } : {} }, body: { ...fields, own } })));
  });
  const { error, busy } = save;
  const fields = ['name', 'team', 'models', 'log_bodies', 'compression', 'response_store_ttl', 'own', 'disabled', 'limits', ...LIMIT_FIELDS.map((f) => f.name)];
  return (
    <form onSubmit={onSubmit(save)} aria-label={editing ? `Edit the key ${editing.name}` : 'Create a key'} class="note">
      <h2>{editing ? `Edit "${editing.name}"` : 'New key'}</h2>
      <Field label="Name" name="name" error={error}>
        {(p) => <input {...p} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Team" name="team" error={error}>
        {(p) => (
          <select {...p} value={team} disabled={!!editing} onChange={(e) => setTeam(e.currentTarget.value)}>
            {writable.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
            {writable.length === 0 && <option value="">(no team you can write to)</option>}
          </select>
        )}
      </Field>
      <Field label="Models" name="models" error={error} hint="Comma-separated model ids, aliases or patterns such as gpt-4o*; empty allows every model.">
        {(p) => <input {...p} value={models} onInput={(e) => setModels(e.currentTarget.value)} />}
      </Field>
      <Field label="Keep call bodies" name="log_bodies" error={error}>
        {(p) => (
          <select {...p} value={logBodies} onChange={(e) => setLogBodies(e.currentTarget.value)}>
            {LOG_BODIES.map((v) => <option key={v} value={v}>{v === 'off' ? 'off' : `for ${v}`}</option>)}
          </select>
        )}
      </Field>
      <Field label="Compression" name="compression" error={error} hint="Long conversations compressed before they reach the provider (inherit: the team's or instance's mode).">
        {(p) => (
          <select {...p} value={compression} onChange={(e) => setCompression(e.currentTarget.value)}>
            <option value="">inherit</option>
            {COMPRESSION_MODES.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        )}
      </Field>
      <Field label="Stored responses" name="response_store_ttl" error={error} hint="How long responses-style calls are kept for previous_response_id (off keeps none and deletes what was kept).">
        {(p) => (
          <select {...p} value={responseStore} onChange={(e) => setResponseStore(e.currentTarget.value)}>
            {RESPONSE_STORE.map((v) => <option key={v} value={v}>{v === 'off' ? 'off' : `for ${v}`}</option>)}
          </select>
        )}
      </Field>
      <div class="row">
        {LIMIT_FIELDS.map((f) => (
          <Field key={f.name} label={f.label} name={f.name} error={error} >
            {(p) => <input {...p} type="number" min="0" step={f.name === 'dollars_per_month' ? '0.01' : '1'} placeholder="unlimited" value={limits[f.name] ?? ''} onInput={(e) => setLimits({ ...limits, [f.name]: e.currentTarget.value })} />}
          </Field>
        ))}
      </div>
      {editing ? (
        <p><label><input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.currentTarget.checked)} /> Disabled (calls with it are refused until enabled again)</label></p>
      ) : (
        <p><label><input type="checkbox" checked={own} onChange={(e) => setOwn(e.currentTarget.checked)} /> My own key (visible to me and the team's admins)</label></p>
      )}
      <FormError error={error} fields={fields} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Saving…' : editing ? 'Save' : 'Create'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
