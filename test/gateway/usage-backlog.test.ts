/**
 * Usage records are never dropped: with the usage_records table locked (a database that cannot take writes), the
 * records of served calls wait, and so do the last bytes of those calls' answers (an answer completes only once its
 * record is durable); once SVC_USAGE_MAX_QUEUED of them wait, new calls are refused at once with 503
 * usage_backlog and Retry-After in the caller's style; when the database takes writes again, every record (the
 * served calls' and the refusals') is written and calls are served again. Needs a real Postgres: the lock is taken
 * from a second connection.
 */
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_PG } from '../support/test-db.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;

beforeAll(async () => {
  if (!REAL_PG) return;
  g = await startGatewayEnv({ SVC_USAGE_MAX_QUEUED: '3' });
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
});
afterAll(async () => g?.close());

const ask = () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });

describe.runIf(REAL_PG)('a database that cannot take usage records', () => {
  it('refuses new calls with 503 usage_backlog once the backlog is full, and loses no record', async () => {
    const locker = new pg.Client({ connectionString: g.s.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE usage_records IN ACCESS EXCLUSIVE MODE');
      const calls: Promise<unknown>[] = [];
      let refusal: InstanceType<typeof OpenAI.APIError> | undefined;
      for (let i = 0; i < 20 && !refusal; i++) {
        const call = ask();
        calls.push(call);
        // A refusal comes at once; a served call's answer waits for its record, so move on after the writer's flush
        // delay (its first batch is then stuck on the lock and the rest queue behind it).
        refusal = await Promise.race([
          call.then(() => undefined, (err: unknown) => (err instanceof OpenAI.APIError ? err : Promise.reject(err))),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 250)),
        ]);
      }
      expect(refusal, 'a call refused while the backlog is full').toBeDefined();
      expect(refusal?.status).toBe(503);
      expect((refusal?.error as { code?: string }).code).toBe('usage_backlog');
      expect(refusal?.headers?.get('retry-after')).toBe('5');

      await locker.query('COMMIT');
      // The held answers complete once their records are written.
      const settled = await Promise.allSettled(calls);
      const served = settled.filter((r) => r.status === 'fulfilled').length;
      expect(served).toBeGreaterThanOrEqual(3);
      expect(settled.filter((r) => r.status === 'rejected')).toHaveLength(1);
      // Every call made, served or refused, has its record once the database takes writes again.
      const rows = await g.usage(served + 1);
      expect(rows).toHaveLength(served + 1);
      expect(rows.filter((r) => r.status === 200)).toHaveLength(served);
      expect(rows.filter((r) => r.error_code === 'usage_backlog')).toHaveLength(1);

      // Served again.
      const deadline = Date.now() + 5000;
      let answer: Awaited<ReturnType<typeof ask>> | undefined;
      while (!answer && Date.now() < deadline) {
        answer = await ask().catch(async () => {
          await new Promise((r) => setTimeout(r, 100));
          return undefined;
        });
      }
      expect(answer?.choices[0].message.content).toBeTruthy();
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
    }
  }, 30_000);
});
