/**
 * Open calls through the gateway (issue 11 point 2; docs/operations.md "Open calls"): a streamed call has its open
 * row durable before its first byte (head included) reaches the client, with the call's identity and reservation
 * estimate, under the id its usage record then has; the record deletes it. A call moved to another upstream
 * before its first byte names the upstream that answered. A JSON call writes none.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LookupCache } from '../../core/cache.ts';
import { PRICES_CACHE } from '../../core/ai/cache-names.ts';
import { UsageWriter } from '../../proxy/metering/usage-writer.ts';
import type { OpenCall } from '../../proxy/metering/open-call.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
/** open() calls seen, and whether the next ones are held (their durability promise waits for the test). */
const opens: { id: string; call: OpenCall }[] = [];
let hold = false;
const held: (() => void)[] = [];
const realOpen = UsageWriter.prototype.open;

beforeAll(async () => {
  vi.spyOn(UsageWriter.prototype, 'open').mockImplementation(function (this: UsageWriter, id: string, call: OpenCall) {
    opens.push({ id, call });
    const written = realOpen.call(this, id, call);
    if (!hold) return written;
    return new Promise<void>((resolve) => held.push(() => void written.then(resolve)));
  });
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => {
  hold = false;
  for (const h of held.splice(0)) h();
  await g?.close();
  vi.restoreAllMocks();
});

const chat = (body: Record<string, unknown>) => fetch(`${g.s.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const openRows = async () => (await g.s.db.query<{ record_id: string; served_model: string; account_id: string; input_tokens: number; output_tokens: number; cost_usd: number }>(
  'SELECT record_id::text, served_model, account_id, input_tokens, output_tokens, cost_usd FROM usage_open_calls WHERE key_id = $1', [g.keyId])).rows;

describe('open calls of streamed gateway calls', () => {
  it('is durable, with the call and its estimate, while the stream runs; the record takes its id and deletes it', async () => {
    opens.length = 0;
    g.chat.script({ slow: { delayMs: 150, events: 8 } });
    const body = { model: 'gpt-4o-mini', stream: true, max_tokens: 777, messages: [{ role: 'user', content: 'open call' }] };
    const res = await chat(body);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const rows = await openRows();
    expect(rows).toHaveLength(1);
    expect(opens).toHaveLength(1);
    expect(rows[0]).toMatchObject({ record_id: opens[0].id, served_model: 'gpt-4o-mini', output_tokens: 777 });
    // The reservation's prompt estimate: request bytes / 4; priced at the model's list price.
    expect(rows[0].input_tokens).toBe(Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4));
    expect(rows[0].cost_usd).toBeGreaterThan(0);
    while (!(await reader.read()).done);
    await until(async () => (await openRows()).length === 0, 'the record to delete the open row');
    const rec = await g.s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE record_id = $1 AND error_code IS NULL', [opens[0].id]);
    expect(rec.rows[0].n).toBe(1);
  });

  it('sends no byte, not even the head, before the open row is durable', async () => {
    opens.length = 0;
    hold = true;
    let headers = false;
    const pending = chat({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'held' }] }).then(async (res) => {
      headers = true;
      return res.text();
    });
    try {
      await until(() => held.length === 1 && g.chat.calls.length > 0, 'the open row to be held and the upstream asked');
      // The upstream has answered by now (the fake answers at once); the client still has nothing.
      await new Promise((r) => setTimeout(r, 300));
      expect(headers, 'the head reached the client before the open row was durable').toBe(false);
    } finally {
      hold = false;
      held.splice(0).forEach((h) => h());
    }
    expect(await pending).toContain('[DONE]');
  });

  it('writes none for a JSON call', async () => {
    opens.length = 0;
    const res = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'whole' }] });
    expect(res.status).toBe(200);
    await res.text();
    expect(opens).toEqual([]);
  });

  it('names the upstream that answered when the first one failed before any byte', async () => {
    opens.length = 0;
    const second = await g.addAccount({ name: 'openai-fake-2', provider: 'openai', api_key: 'sk-fake-openai-second-0123456789', base_url: `${g.chat.url}/v1`, models: ['gpt-4o'] });
    g.chat.script({ error: 503 }, { slow: { delayMs: 150, events: 6 } });
    const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'moved' }] });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    expect(opens.length).toBe(2);
    expect(opens[0].id).toBe(opens[1].id);
    const rows = await openRows();
    expect(rows).toHaveLength(1);
    expect(rows[0].account_id).toBe(opens[1].call.accountId);
    expect([opens[0].call.accountId, opens[1].call.accountId]).toContain(second);
    while (!(await reader.read()).done);
    await until(async () => (await openRows()).length === 0, 'the record to delete the open row');
  });

  it('still records a call whose price overrides cannot be read when it ends (list prices), closing its open row', async () => {
    opens.length = 0;
    let failing = false;
    const realPeek = LookupCache.prototype.peek;
    const realGet = LookupCache.prototype.get;
    const peek = vi.spyOn(LookupCache.prototype, 'peek').mockImplementation(function (this: LookupCache<unknown>, key: string) {
      return failing && this.name === PRICES_CACHE ? undefined : realPeek.call(this, key);
    });
    const get = vi.spyOn(LookupCache.prototype, 'get').mockImplementation(function (this: LookupCache<unknown>, key: string, load: (k: string) => Promise<unknown>) {
      return failing && this.name === PRICES_CACHE ? Promise.reject(new Error('database unreachable')) : realGet.call(this, key, load);
    });
    try {
      g.chat.script({ slow: { delayMs: 100, events: 4 } });
      const res = await chat({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'prices gone' }] });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      expect(await openRows()).toHaveLength(1);
      failing = true;
      while (!(await reader.read()).done);
      await until(async () => (await openRows()).length === 0, 'the record to delete the open row');
      const rec = await g.s.db.query<{ n: number; cost: number }>(
        'SELECT count(*)::int AS n, max(cost_usd)::float8 AS cost FROM usage_records WHERE record_id = $1 AND error_code IS NULL', [opens[0].id]);
      expect(rec.rows[0].n).toBe(1);
      expect(rec.rows[0].cost).toBeGreaterThan(0);
    } finally {
      peek.mockRestore();
      get.mockRestore();
    }
  });
});
