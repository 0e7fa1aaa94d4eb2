/**
 * Prices per model in USD per million tokens: the list price the service ships, the instance's override, and the
 * effective price used for cost, read page by page (the list prices and every override can outgrow one page).
 * Superusers set and remove overrides. GET /api/v1/prices, PUT/DELETE /api/v1/prices/{model}.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { List, Me, PriceFields, PriceItem } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { usePages } from '../components/use-pages.ts';
import { onSubmit, useAction } from '../components/use-action.ts';

const per = (v: number | null | undefined) => (v == null ? '—' : `$${v} / Mtok`);

export function Prices({ me }: { me: Me }) {
  const prices = usePages((cursor) => call<List<PriceItem>>(api.GET('/api/v1/prices', { params: { query: { limit: '100', ...(cursor ? { cursor } : {}) } } })), []);
  const removeOverride = useAction((model: string) => call(api.DELETE('/api/v1/prices/{model}', { params: { path: { model } } })), prices.reload);
  return (
    <section aria-labelledby="prices-h">
      <h1 id="prices-h">Prices</h1>
      <p class="muted">USD per million tokens. Cost of a call = its tokens × the effective price of the model that served it.</p>
      {me.is_superuser && <OverrideForm onDone={prices.reload} />}
      {removeOverride.error && <ErrorNote error={removeOverride.error} />}
      {prices.loading && !prices.items && <Loading what="prices" />}
      {prices.error && <ErrorNote error={prices.error} onRetry={prices.reload} />}
      {prices.items && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Prices">
            <thead><tr><th scope="col">Model</th><th scope="col" class="num">Input</th><th scope="col" class="num">Output</th><th scope="col" class="num">Cache read</th><th scope="col" class="num">Cache write</th><th scope="col">Source</th>{me.is_superuser && <th scope="col"><span class="muted">Actions</span></th>}</tr></thead>
            <tbody>
              {prices.items.map((p) => (
                <tr key={p.model}>
                  <td><code>{p.model}</code></td>
                  <td class="num">{per(p.effective?.input_per_mtok)}</td>
                  <td class="num">{per(p.effective?.output_per_mtok)}</td>
                  <td class="num">{per(p.effective?.cache_read_per_mtok)}</td>
                  <td class="num">{per(p.effective?.cache_write_per_mtok)}</td>
                  <td>{p.override ? `override${p.list ? ` (list: ${per(p.list.input_per_mtok)} in, ${per(p.list.output_per_mtok)} out)` : ''}` : p.effective?.source ?? 'none'}</td>
                  {me.is_superuser && <td>{p.override && <button type="button" onClick={() => removeOverride.run(p.model)} aria-label={`Remove override of ${p.model}`}>Remove override</button>}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton pages={prices} what="prices" />
    </section>
  );
}

function OverrideForm({ onDone }: { onDone: () => void }) {
  const [v, setV] = useState({ model: '', input_per_mtok: '', output_per_mtok: '' });
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.currentTarget as HTMLInputElement).value });
  const setPrice = useAction(async () => {
    await call(api.PUT('/api/v1/prices/{model}', { params: { path: { model: v.model.trim() } }, body: { input_per_mtok: Number(v.input_per_mtok), output_per_mtok: Number(v.output_per_mtok) } }));
    setV({ model: '', input_per_mtok: '', output_per_mtok: '' });
  }, onDone);
  const { error } = setPrice;
  return (
    <form class="note row" aria-label="Set a price" onSubmit={onSubmit(setPrice)}>
      <Field label="Model or pattern" name="model" error={error}>{(p) => <input {...p} required value={v.model} onInput={set('model')} />}</Field>
      <Field label="Input ($ per Mtok)" name="input_per_mtok" error={error}>{(p) => <input {...p} type="number" min="0" step="any" required value={v.input_per_mtok} onInput={set('input_per_mtok')} />}</Field>
      <Field label="Output ($ per Mtok)" name="output_per_mtok" error={error}>{(p) => <input {...p} type="number" min="0" step="any" required value={v.output_per_mtok} onInput={set('output_per_mtok')} />}</Field>
      <button type="submit" class="primary">Set price</button>
      <FormError error={error} fields={['model', 'input_per_mtok', 'output_per_mtok']} />
    </form>
  );
}
