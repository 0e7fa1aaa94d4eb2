/**
 * Call logs: the kept bodies of gateway calls (kept when a key's "keep call bodies" is on), newest first, and one
 * call with its request as received and its answer as the client got it, side by side.
 * GET /api/v1/calls, GET /api/v1/calls/{id}.
 */
import { api, call } from '../api/client.ts';
import type { GatewayKey, KeptCall, KeptCallDetail, List } from '../api/views.ts';
import { fmtCount } from '../components/format.ts';
import { Empty, ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { useLoad } from '../components/use-load.ts';
import { usePages } from '../components/use-pages.ts';

const show = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body, null, 2));

export function Calls() {
  const calls = usePages((cursor) => call<List<KeptCall>>(api.GET('/api/v1/calls', { params: { query: { limit: '100', ...(cursor ? { cursor } : {}) } } })), []);
  // Key names for the table; a key not among these shows its id.
  const keys = useLoad(async () => new Map((await call<List<GatewayKey>>(api.GET('/api/v1/keys', { params: { query: { limit: '200' } } }))).items.map((x) => [x.id, x.name])), []);
  return (
    <section aria-labelledby="calls-h">
      <h1 id="calls-h">Call logs</h1>
      {calls.loading && !calls.items && <Loading what="calls" />}
      {calls.error && <ErrorNote error={calls.error} onRetry={calls.reload} />}
      {calls.items?.length === 0 && (
        <Empty title="No kept calls">
          <p>Bodies are kept only for keys that ask for it: on the <a href="/ai/keys">keys page</a>, edit a key and set "Keep call bodies" to 1, 7 or 30 days. Its next calls appear here.</p>
        </Empty>
      )}
      {calls.items && calls.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Kept calls">
            <thead><tr><th scope="col">Time</th><th scope="col">Key</th><th scope="col">Model</th><th scope="col">Style</th><th scope="col">Status</th><th scope="col" class="num">Request / answer</th><th scope="col">Kept until</th></tr></thead>
            <tbody>{calls.items.map((c) => (
              <tr key={c.id}>
                <td><a href={`/ai/calls/${c.id}`}><Time at={c.created_at} /></a></td>
                <td>{(c.key && keys.data?.get(c.key)) ?? c.key ?? '—'}</td>
                <td>{c.model}{c.served_model && c.served_model !== c.model ? ` → ${c.served_model}` : ''}</td>
                <td>{c.client_style}{c.stream ? ', streamed' : ''}</td>
                <td>{c.status}{c.error_code ? ` ${c.error_code}` : ''}</td>
                <td class="num">{fmtCount(c.request_chars ?? 0, 'char')} / {fmtCount(c.response_chars ?? 0, 'char')}</td>
                <td><Time at={c.expires_at} /></td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
      <MoreButton pages={calls} what="calls" />
    </section>
  );
}

export function CallPage({ id }: { id: string }) {
  const c = useLoad(() => call<KeptCallDetail>(api.GET('/api/v1/calls/{id}', { params: { path: { id } } })), [id]);
  if (c.loading && !c.data) return <Loading what="the call" />;
  if (c.error) return <ErrorNote error={c.error} onRetry={c.reload} />;
  const x = c.data!;
  return (
    <article aria-labelledby="call-h">
      <p><a href="/ai/calls">← Call logs</a></p>
      <h1 id="call-h">{x.model} <span class="muted">· {x.client_style} · {x.status}</span></h1>
      <p><Time at={x.created_at} />{x.truncated && ' · the bodies were cut at the size limit'}</p>
      <div class="side-by-side">
        <section aria-labelledby="req-h"><h2 id="req-h">Request</h2><pre aria-label="Request body">{show(x.request)}</pre></section>
        <section aria-labelledby="ans-h"><h2 id="ans-h">Answer</h2><pre aria-label="Answer body">{show(x.response)}</pre></section>
      </div>
    </article>
  );
}
