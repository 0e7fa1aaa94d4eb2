/** The deliveries of one webhook, newest first, each with every attempt made (status, error, duration). */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { loadWebhook } from './webhook-service.ts';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

interface DeliveryRow {
  id: string;
  webhook_id: string;
  outbox_id: number;
  kind: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

export interface AttemptView {
  attempt: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string | null;
}

const attemptView = (a: AttemptRow): AttemptView => ({ attempt: a.attempt, status: a.response_status, error: a.error, duration_ms: a.duration_ms, attempted_at: rfc3339(a.attempted_at) });

export async function listDeliveries(ctx: AppContext, p: Principal, webhookId: string, filter: { state?: DeliveryState }, page: ListParams) {
  const w = await loadWebhook(ctx, p, webhookId, 'read');
  const params: unknown[] = [page.limit + 1, w.id];
  const where = ['d.webhook_id = $2'];
  if (filter.state) where.push(`d.state = $${params.push(filter.state)}`);
  if (page.after) where.push(`(d.created_at, d.id) < ($${params.push(page.after[0])}::timestamptz, $${params.push(page.after[1])})`);
  const r = await ctx.db.query<DeliveryRow>(
    `SELECT d.id, d.webhook_id, d.outbox_id, o.kind, d.state, d.attempts, d.next_attempt_at, d.delivered_at, d.created_at
       FROM webhook_deliveries d JOIN outbox o ON o.id = d.outbox_id
      WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT $1`,
    params,
  );
  const ids = r.rows.slice(0, page.limit).map((d) => d.id);
  const attempts = new Map<string, AttemptView[]>();
  if (ids.length) {
    const a = await ctx.db.query<AttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt, id', [ids]);
    for (const row of a.rows) attempts.set(row.delivery_id, [...(attempts.get(row.delivery_id) ?? []), attemptView(row)]);
  }
  return listEnvelope(r.rows, page.limit, (d) => [d.created_at.toISOString(), d.id], (d) => ({
    id: d.id,
    webhook: d.webhook_id,
    event: `evt_${d.outbox_id}`,
    kind: d.kind,
    state: d.state,
    attempt_count: d.attempts,
    next_attempt_at: d.state === 'pending' ? rfc3339(d.next_attempt_at) : null,
    delivered_at: rfc3339(d.delivered_at),
    created_at: rfc3339(d.created_at),
    attempts: attempts.get(d.id) ?? [],
  }));
}
