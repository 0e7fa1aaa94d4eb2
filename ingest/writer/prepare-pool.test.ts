import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import type { IngestProject } from '../project-lookup.ts';
import { DOCUMENT_SEPARATOR } from './prepare-batch.ts';
import { PreparePool } from './prepare-pool.ts';
import type { QueuedEvent } from './queued-event.ts';

const project = { id: 7, scrubKeys: ['iban'], retentionDays: 30 } as IngestProject;
const log = createLogger('silent');
const threaded = new PreparePool(1, log);
const inline = new PreparePool(0, log);
afterAll(async () => {
  await threaded.close();
});

function queued(i: number, payload: unknown): QueuedEvent {
  return { project, eventId: String(i).padStart(32, '0'), payload: Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)), receivedAt: Date.UTC(2026, 0, 15, 12), bytes: 0 };
}

const events = [
  queued(1, { message: 'Order 12 failed', user: { id: 'u1' }, release: 'web@1', extra: { iban: 'DE89370400440532013000' } }),
  queued(2, { exception: { values: [{ type: 'TypeError', value: 'x', stacktrace: { frames: [{ function: 'f', filename: 'a.js', in_app: true }] } }] } }),
  queued(3, '{"message": "bad \\u0000 nul and lone \\ud800"}'),
  queued(4, 'not json'),
];

describe('PreparePool', () => {
  it('prepares the same in a worker thread as inline: metadata, scrubbed rows, failures', async () => {
    const a = await threaded.prepare(events);
    const b = await inline.prepare(events);
    const text = (x: typeof a) => ({ ...x, rows: { columns: x.rows.columns.toString(), documents: x.rows.documents.toString() } });
    expect(text(a)).toEqual(text(b));
    expect(Buffer.isBuffer(a.rows.columns) && Buffer.isBuffer(a.rows.documents)).toBe(true);
    expect(a.metas.map((m) => m.index)).toEqual([0, 1, 2]);
    expect(a.metas[0]).toMatchObject({ projectId: 7, eventId: '1'.padStart(32, '0'), type: 'default', release: 'web@1', title: 'Order 12 failed', personHash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(a.metas[1]).toMatchObject({ type: 'error', title: 'TypeError: x' });
    expect(a.failures).toEqual([{ index: 3, eventId: '4'.padStart(32, '0'), message: expect.any(String) }]);
    const rows = JSON.parse(a.rows.columns.toString()) as Array<{ event_id: string; fingerprint: string; data?: unknown }>;
    expect(rows).toHaveLength(3);
    expect(rows[0].fingerprint).toBe(a.metas[0].fingerprint);
    expect(rows[0].data).toBeUndefined();
    // The documents, in the rows' order, one per row, each JSON that holds no RS of its own.
    const documents = a.rows.documents.toString().split(DOCUMENT_SEPARATOR).map((d) => JSON.parse(d) as Record<string, unknown>);
    expect(documents).toHaveLength(3);
    expect(documents[0].event_id).toBe(rows[0].event_id);
    expect(documents[1].exception).toBeDefined();
    expect(a.rows.documents.toString()).not.toContain('DE89370400440532013000');
    expect(a.rows.documents.toString()).not.toMatch(/\\u0000|\\ud800/);
  });

  it('keeps a separator inside an event\'s strings escaped, so documents stay apart', async () => {
    const sneaky = [queued(5, { message: `one\u001etwo`, extra: { ['k\u001e']: 'v\u001e' } })];
    for (const pool of [threaded, inline]) {
      const r = await pool.prepare(sneaky);
      const parts = r.rows.documents.toString().split(DOCUMENT_SEPARATOR);
      expect(parts).toHaveLength(1);
      expect(JSON.stringify(JSON.parse(parts[0]))).toContain('one\\u001etwo');
    }
  });

  it('keeps the caller\'s buffers usable (only a packed copy is transferred)', async () => {
    await threaded.prepare(events);
    expect(JSON.parse(events[0].payload.toString()).message).toBe('Order 12 failed');
  });

  it('prepares inline once closed', async () => {
    const pool = new PreparePool(1, log);
    await pool.close();
    expect((await pool.prepare(events)).metas).toHaveLength(3);
  });
});
