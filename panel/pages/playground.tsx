/**
 * The playground: a call through this service's gateway with one of your keys, in the client style you choose,
 * streamed token by token, with tokens, cost, latency, time to first token, X-Svc-Model and X-Svc-Warning, and the
 * request exactly as sent. Key secrets are stored hashed, so the panel never holds one: it asks the control plane for
 * a short-lived credential of the key you picked (POST /api/v1/keys/{id}/playground-credential), which also says
 * where the gateway is (another origin with separate roles). The call is metered against that key like any other.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, call } from '../api/client.ts';
import type { GatewayKey, List, Me, PlaygroundCredential } from '../api/views.ts';
import { fmtMs, fmtTokens, fmtUsd } from '../components/format.ts';
import { readSse } from '../components/read-sse.ts';
import { ErrorNote, Loading } from '../components/states.tsx';
import { useLoad } from '../components/use-load.ts';
import { STYLES, type Style } from './playground-styles.ts';

/** A credential is reused for the key until shortly before it expires. */
const usable = (c: PlaygroundCredential | undefined, keyId: string): c is PlaygroundCredential => !!c && c.key_id === keyId && Date.parse(c.expires_at) - Date.now() > 30_000;

interface Price { effective: { input_per_mtok: number; output_per_mtok: number } | null }

interface Result {
  text: string;
  error?: string;
  status?: number;
  model?: string | null;
  warning?: string | null;
  ttftMs?: number;
  latencyMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number | null;
}

const allows = (patterns: string[], model: string) =>
  patterns.length === 0 || patterns.some((p) => new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(model));

export function Playground({ me }: { me: Me }) {
  const keys = useLoad(() => call<List<GatewayKey>>(api.GET('/api/v1/keys', { params: { query: { limit: '200' } } })), []);
  const mine = (keys.data?.items ?? []).filter((k) => !k.disabled && (k.own ? k.owner === me.id : true));
  const [keyId, setKeyId] = useState('');
  const key = mine.find((k) => k.id === keyId) ?? mine[0];
  const [cred, setCred] = useState<PlaygroundCredential>();
  const [style, setStyle] = useState<Style>('chat-completions');
  const [model, setModel] = useState('');
  const [system, setSystem] = useState('');
  const [message, setMessage] = useState('Say hello in five words.');
  const [result, setResult] = useState<Result>();
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController>();

  const req = useMemo(() => STYLES[style].request({ model, system, message, secret: '••••' }), [style, model, system, message]);
  const gateway = usable(cred, key?.id ?? '') ? (cred.gateway_url ?? '') : '';
  const refused = key && model && !allows(key.models, model) ? `The key "${key.name}" may not use ${model}; it allows ${key.models.join(', ')}.` : undefined;

  const send = async (e: Event) => {
    e.preventDefault();
    if (refused) return;
    abort.current?.abort();
    const ac = new AbortController();
    abort.current = ac;
    setBusy(true);
    let out: Result = { text: '' };
    setResult(out);
    try {
      let c = cred;
      if (!usable(c, key.id)) {
        c = await call<PlaygroundCredential>(api.POST('/api/v1/keys/{id}/playground-credential', { params: { path: { id: key.id } } }));
        setCred(c);
      }
      const r = STYLES[style].request({ model, system, message, secret: c.key });
      const t0 = performance.now();
      const res = await fetch(`${c.gateway_url ?? ''}${r.url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body), signal: ac.signal, credentials: 'omit' });
      out = { ...out, status: res.status, model: res.headers.get('x-svc-model'), warning: res.headers.get('x-svc-warning') };
      if (!res.ok || !res.body || !(res.headers.get('content-type') ?? '').includes('event-stream')) {
        const body = await res.text();
        let msg = body;
        try { msg = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body; } catch { /* not JSON: show as is */ }
        setResult({ ...out, error: msg || `The gateway answered ${res.status}.`, latencyMs: performance.now() - t0 });
        return;
      }
      for await (const ev of readSse(res.body)) {
        if (ev.data === '[DONE]') continue;
        let data: Record<string, unknown>;
        try { data = JSON.parse(ev.data) as Record<string, unknown>; } catch { continue; }
        const p = STYLES[style].read(ev.event, data);
        if (p.text) out = { ...out, text: out.text + p.text, ttftMs: out.ttftMs ?? performance.now() - t0 };
        if (p.inputTokens !== undefined) out = { ...out, inputTokens: p.inputTokens };
        if (p.outputTokens !== undefined) out = { ...out, outputTokens: p.outputTokens };
        if (p.error) out = { ...out, error: p.error };
        setResult(out);
      }
      out = { ...out, latencyMs: performance.now() - t0 };
      setResult(out);
      const served = out.model ?? model;
      const price = await call<List<Price>>(api.GET('/api/v1/prices', { params: { query: { model: served } } })).catch(() => undefined);
      const eff = price?.items[0]?.effective;
      setResult({ ...out, costUsd: eff ? ((out.inputTokens ?? 0) * eff.input_per_mtok + (out.outputTokens ?? 0) * eff.output_per_mtok) / 1e6 : null });
    } catch (err) {
      if ((err as Error).name !== 'AbortError') setResult({ ...out, error: err instanceof ApiError ? err.message : `The call failed: ${(err as Error).message}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="pg-h">
      <h1 id="pg-h">Playground</h1>
      {keys.loading && !keys.data && <Loading what="your keys" />}
      {keys.error && <ErrorNote error={keys.error} onRetry={keys.reload} />}
      {keys.data && mine.length === 0 && <p>You have no usable gateway key. <a href="/ai/keys">Create a key</a> first: playground calls are metered against it.</p>}
      {key && (
        <form onSubmit={send} aria-label="Playground call">
          <div class="row">
            <div class="field"><label for="pg-key">Key</label>
              <select id="pg-key" value={key.id} onChange={(e) => setKeyId(e.currentTarget.value)} aria-describedby="pg-key-hint">{mine.map((k) => <option key={k.id} value={k.id}>{k.name} ({k.hint})</option>)}</select>
              <small id="pg-key-hint" class="muted">Calls use a credential of this key that works for 5 minutes; its secret is not needed.</small></div>
          </div>
          <div class="row">
            <div class="field"><label for="pg-style">Client style</label>
              <select id="pg-style" value={style} onChange={(e) => setStyle(e.currentTarget.value as Style)}>{Object.entries(STYLES).map(([k, v]) => <option key={k} value={k}>{v.label}</option>)}</select></div>
            <div class="field"><label for="pg-model">Model or alias</label>
              <input id="pg-model" required list="pg-models" value={model} onInput={(e) => setModel(e.currentTarget.value)} aria-invalid={refused ? true : undefined} aria-describedby={refused ? 'pg-refused' : undefined} />
              <datalist id="pg-models">{key.models.filter((m) => !m.includes('*')).map((m) => <option key={m} value={m} />)}</datalist>
              {refused && <small id="pg-refused" class="field-error" role="alert">{refused}</small>}</div>
          </div>
          <div class="field"><label for="pg-system">System prompt</label><textarea id="pg-system" value={system} onInput={(e) => setSystem(e.currentTarget.value)} /></div>
          <div class="field"><label for="pg-message">Message</label><textarea id="pg-message" required value={message} onInput={(e) => setMessage(e.currentTarget.value)} /></div>
          <div class="row">
            <button type="submit" class="primary" disabled={busy || !!refused}>{busy ? 'Streaming…' : 'Send'}</button>
            {busy && <button type="button" onClick={() => abort.current?.abort()}>Stop</button>}
          </div>
        </form>
      )}
      {result && (
        <section aria-labelledby="pg-answer-h">
          <h2 id="pg-answer-h">Answer</h2>
          <div class="note stream" role="log" aria-live="polite" aria-label="Answer">{result.text}</div>
          {result.error && <p role="alert" class="field-error">{result.error}</p>}
          <dl class="cards" aria-label="Call figures">
            <div class="card"><dt class="muted">Model served (X-Svc-Model)</dt><dd>{result.model ?? '—'}</dd></div>
            <div class="card"><dt class="muted">Tokens in / out</dt><dd>{result.inputTokens !== undefined ? fmtTokens(result.inputTokens) : '—'} / {result.outputTokens !== undefined ? fmtTokens(result.outputTokens) : '—'}</dd></div>
            <div class="card"><dt class="muted">Cost</dt><dd>{result.costUsd == null ? '—' : fmtUsd(result.costUsd)}</dd></div>
            <div class="card"><dt class="muted">Time to first token</dt><dd>{fmtMs(result.ttftMs === undefined ? null : Math.round(result.ttftMs))}</dd></div>
            <div class="card"><dt class="muted">Latency</dt><dd>{fmtMs(result.latencyMs === undefined ? null : Math.round(result.latencyMs))}</dd></div>
          </dl>
          {result.warning && <p class="note" role="status">Warning (X-Svc-Warning): {result.warning}</p>}
        </section>
      )}
      <h2>Request as sent</h2>
      <pre aria-label="Request as sent">{`POST ${gateway}${req.url}\n${Object.entries({ 'content-type': 'application/json', ...req.headers }).map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${JSON.stringify(req.body, null, 2)}`}</pre>
    </section>
  );
}
