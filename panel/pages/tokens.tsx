/**
 * Your API tokens (for the CLI, CI and MCP clients): the list with scope, expiry and last use; creating one shows its
 * tk_ secret once; revoking one stops it at once on every node. GET/POST /api/v1/tokens, DELETE /api/v1/tokens/{id}.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { List, Token } from '../api/views.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Field, FormError } from '../components/form.tsx';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { useLoad } from '../components/use-load.ts';
import { onSubmit, useAction } from '../components/use-action.ts';

const TTLS = [['30d', '30 days'], ['90d', '90 days'], ['365d', '1 year'], ['never', 'never']];

export function Tokens() {
  const tokens = useLoad(() => call<List<Token>>(api.GET('/api/v1/tokens', { params: { query: { limit: '200' } } })), []);
  const [created, setCreated] = useState<Token & { token: string }>();
  const revoke = useAction(async (t: Token) => {
    if (!confirm(`Revoke the token "${t.name}"? Anything using it is refused at once.`)) return;
    await call(api.DELETE('/api/v1/tokens/{id}', { params: { path: { id: t.id } } }));
  }, tokens.reload);
  const live = tokens.data?.items.filter((t) => !t.revoked_at) ?? [];
  return (
    <section aria-labelledby="tokens-h">
      <h1 id="tokens-h">API tokens</h1>
      <p class="muted">Tokens let the <code>svc</code> command, CI jobs and MCP clients use the API as you. The panel itself uses your sign-in.</p>
      {created && (
        <div class="note secret" role="status" aria-label="New token secret">
          <p><strong>Token "{created.name}" created.</strong> Copy it now: it is shown only this once.</p>
          <p class="row"><code aria-label="Token">{created.token}</code> <CopyButton text={created.token} label="Copy the token" /></p>
          <button type="button" onClick={() => setCreated(undefined)}>I have copied it</button>
        </div>
      )}
      <NewToken onCreated={(t) => { setCreated(t); tokens.reload(); }} />
      {revoke.error && <ErrorNote error={revoke.error} />}
      {tokens.loading && !tokens.data && <Loading what="tokens" />}
      {tokens.error && <ErrorNote error={tokens.error} onRetry={tokens.reload} />}
      {tokens.data && live.length === 0 && <Empty title="No API tokens"><p>Create one above for scripts and services. The command line needs none: <code>svc login</code> signs it in with a code you approve here.</p></Empty>}
      {live.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="API tokens">
            <thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Token</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="muted">Actions</span></th></tr></thead>
            <tbody>{live.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td><td>{t.scope}</td><td><code>{t.hint}</code></td>
                <td><Time at={t.expires_at} empty="never" /></td><td><Time at={t.last_used_at} relative /></td>
                <td><button type="button" class="danger" onClick={() => revoke.run(t)} aria-label={`Revoke ${t.name}`}>Revoke</button></td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function NewToken({ onCreated }: { onCreated: (t: Token & { token: string }) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Token['scope']>('read');
  const [ttl, setTtl] = useState('90d');
  const create = useAction(async () => {
    onCreated(await call<Token & { token: string }>(api.POST('/api/v1/tokens', { body: { name, scope, ttl } })));
    setName('');
  });
  const { error } = create;
  return (
    <form class="note row" aria-label="Create a token" onSubmit={onSubmit(create)}>
      <Field label="Name" name="name" error={error}>{(p) => <input {...p} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
      <Field label="Scope" name="scope" error={error}>
        {(p) => <select {...p} value={scope} onChange={(e) => setScope(e.currentTarget.value as Token['scope'])}><option value="read">read</option><option value="deploy">deploy (CI: releases)</option><option value="write">write</option></select>}
      </Field>
      <Field label="Expires after" name="ttl" error={error}>
        {(p) => <select {...p} value={ttl} onChange={(e) => setTtl(e.currentTarget.value)}>{TTLS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}</select>}
      </Field>
      <button type="submit" class="primary">Create token</button>
      <FormError error={error} fields={['name', 'scope', 'ttl']} />
    </form>
  );
}
