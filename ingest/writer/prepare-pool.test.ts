import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import type { IngestProject } from '../project-lookup.ts';
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
    expect({ ...a, rows: a.rows.toString() }).toEqual({ ...b, rows: b.rows.toString() });
    expect(Buffer.isBuffer(a.rows)).toBe(true);
    expect(a.metas.map((m) => m.index)).toEqual([0, 1, 2]);
    expect(a.metas[0]).toMatchObject({ projectId: 7, eventId: '1'.padStart(32, '0'), type: 'default', release: 'web@1', title: 'Order 12 failed', personHash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(a.metas[1]).toMatchObject({ type: 'error', title: 'TypeError: x' });
    expect(a.failures).toEqual([{ index: 3, eventId: '4'.padStart(32, '0'), message: expect.any(String) }]);
    const rows = JSON.parse(a.rows.toString()) as Array<{ event_id: string; fingerprint: string; data: Record<string, unknown> }>;
    expect(rows).toHaveLength(3);
    expect(rows[0].fingerprint).toBe(a.metas[0].fingerprint);
    expect(a.rows.toString()).not.toContain('DE89370400440532013000');
    expect(a.rows.toString()).not.toMatch(/\\u0000|\\ud800/);
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
