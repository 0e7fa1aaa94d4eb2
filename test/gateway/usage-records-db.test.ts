/**
 * The usage writer against real databases (Postgres from DATABASE_URL, and the embedded one): every column type
 * survives the column-array INSERT, including NULLs and text that looks like array syntax.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPgliteDb } from '../../core/db/pglite-db.ts';
import type { Db } from '../../core/db/db.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createLogger } from '../../core/logger.ts';
import { UsageWriter } from '../../proxy/metering/usage-writer.ts';
import type { UsageRecord } from '../../proxy/metering/usage-record.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { createTestDatabase, REAL_PG, type TestDatabase } from '../support/test-db.ts';

const log = createLogger('silent');
const opened: TestDatabase[] = [];
const embedded: Db[] = [];

afterAll(async () => {
  for (const t of opened) await t.db.close().then(() => t.drop());
  for (const db of embedded) await db.close();
});

const AWKWARD = ['a,b', '{x}', '"quoted"', 'NULL', 'back\\slash', 'ünïcödé ✓', ''];

function record(i: number): UsageRecord {
  return {
    at: new Date(Date.UTC(2026, 10, 22, 12, 0, i)), keyId: `key_${i}`, teamId: 'team_1', model: AWKWARD[i % AWKWARD.length] || 'm',
    servedModel: i % 2 ? null : 'gpt-4o-mini', alias: i % 3 ? null : 'fast', provider: 'openai', accountId: i % 2 ? null : 'acc_1',
    clientStyle: 'chat', upstreamStyle: i % 2 ? null : 'messages', status: i % 2 ? 429 : 200, errorCode: i % 2 ? 'key_requests_per_minute' : null,
    inputTokens: 10 + i, outputTokens: 2 * i, cacheReadTokens: i, cacheWriteTokens: 0, reasoningTokens: i % 2 ? null : 3,
    usageSource: i % 2 ? 'reported' : 'estimated', latencyMs: 12.6, ttfbMs: i % 2 ? null : 3.2, costUsd: 0.000123 * i, stream: i % 2 === 0,
  };
}

async function databases(): Promise<[string, Db][]> {
  const out: [string, Db][] = [];
  if (REAL_PG) {
    const t = await createTestDatabase();
    opened.push(t);
    out.push(['postgres', t.db]);
  }
  const e = await createPgliteDb('memory');
  embedded.push(e);
  out.push(['embedded', e]);
  return out;
}

describe('usage records in the database', () => {
  it('round-trips every column through the batched INSERT', async () => {
    for (const [name, db] of await databases()) {
      await migrate(db, MIGRATIONS_DIR);
      const w = new UsageWriter(db, log, { flushMs: 5, batchSize: 4 });
      const sent = Array.from({ length: 9 }, (_, i) => record(i));
      for (const r of sent) w.write(r);
      await w.drain();
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM usage_records ORDER BY key_id');
      expect(rows, name).toHaveLength(9);
      rows.forEach((row, i) => {
        const r = sent[i];
        expect({
          at: new Date(row.at as string).getTime(), key: row.key_id, model: row.model, served: row.served_model, alias: row.alias,
          account: row.account_id, up: row.upstream_style, status: row.status, code: row.error_code, input: row.input_tokens,
          output: row.output_tokens, reasoning: row.reasoning_tokens, source: row.usage_source, latency: row.latency_ms,
          ttfb: row.ttfb_ms, cost: Number(row.cost_usd), stream: row.stream,
        }, `${name} row ${i}`).toEqual({
          at: r.at.getTime(), key: r.keyId, model: r.model, served: r.servedModel, alias: r.alias, account: r.accountId,
          up: r.upstreamStyle, status: r.status, code: r.errorCode, input: r.inputTokens, output: r.outputTokens,
          reasoning: r.reasoningTokens, source: r.usageSource, latency: 13, ttfb: r.ttfbMs === null ? null : 3,
          cost: r.costUsd, stream: r.stream,
        });
      });
    }
  });
});
