/**
 * What a team was told: the outbox rows of the teams the caller can read, newest first, each with a summary of its
 * webhook deliveries. Ids are `evt_<n>`, the same as the `event` field of webhook payloads.
 */
import type { AppContext } from '../../core/context.ts';
import { readableTeams, requireTeam, type Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import type { EventKind } from '../../core/outbox.ts';

interface NotificationRow {
  id: number;
  team_id: string;
  kind: string;
  payload: unknown;
  created_at: Date;
  dispatched_at: Date | null;
  total: number;
  pending: number;
  delivered: number;
  failed: number;
}

export interface NotificationView {
  id: string;
  team: string;
  kind: string;
  data: unknown;
  created_at: string | null;
  dispatched_at: string | null;
  deliveries: { total: number; pending: number; delivered: number; failed: number };
}

const view = (n: NotificationRow): NotificationView => ({
  id: `evt_${n.id}`,
  team: n.team_id,
  kind: n.kind,
  data: n.payload,
  created_at: rfc3339(n.created_at),
  dispatched_at: rfc3339(n.dispatched_at),
  deliveries: { total: n.total, pending: n.pending, delivered: n.delivered, failed: n.failed },
});

export async function listNotifications(ctx: AppContext, p: Principal, filter: { teamId?: string; kind?: EventKind }, page: ListParams): Promise<{ items: NotificationView[]; next_cursor: string | null }> {
  if (filter.teamId) requireTeam(p, filter.teamId, 'read');
  const params: unknown[] = [page.limit + 1];
  const where: string[] = [];
  const visible = readableTeams(p);
  if (visible) where.push(`o.team_id = ANY($${params.push(visible)})`);
  if (filter.teamId) where.push(`o.team_id = $${params.push(filter.teamId)}`);
  if (filter.kind) where.push(`o.kind = $${params.push(filter.kind)}`);
  if (page.after) where.push(`o.id < $${params.push(Number(page.after[0]))}`);
  const r = await ctx.db.query<NotificationRow>(
    `SELECT o.id, o.team_id, o.kind, o.payload, o.created_at, o.dispatched_at,
            count(d.id)::int AS total,
            (count(d.id) FILTER (WHERE d.state = 'pending'))::int AS pending,
            (count(d.id) FILTER (WHERE d.state = 'delivered'))::int AS delivered,
            (count(d.id) FILTER (WHERE d.state = 'failed'))::int AS failed
       FROM outbox o LEFT JOIN webhook_deliveries d ON d.outbox_id = o.id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      GROUP BY o.id ORDER BY o.id DESC LIMIT $1`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (n) => [n.id], view);
}
