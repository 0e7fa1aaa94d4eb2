/**
 * Team webhooks: a URL, the event kinds it receives (`*` for all) and a signing secret generated at creation, shown
 * once and stored sealed (core/secret-box). Team readers see a team's webhooks; team admins create, delete and test
 * them. Used by the REST routes, MCP tools and search alike.
 */
import type { AppContext } from '../../core/context.ts';
import { readableTeams, requireTeam, type Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { newId, newSecret } from '../../core/ids.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { announceEvents, emitEvent, EVENT_KINDS } from '../../core/outbox.ts';
import { seal } from '../../core/secret-box.ts';
import { checkWebhookUrl } from './webhook-url.ts';

/** What a webhook may subscribe to: every kind of the outbox, or `*`. */
export const WEBHOOK_EVENTS: readonly string[] = ['*', ...EVENT_KINDS];

export interface WebhookRow {
  id: string;
  team_id: string;
  url: string;
  events: string[];
  created_by: string | null;
  created_at: Date;
}

export interface WebhookView {
  id: string;
  team: string;
  url: string;
  events: string[];
  created_by: string | null;
  created_at: string | null;
}

export const webhookView = (w: WebhookRow): WebhookView => ({ id: w.id, team: w.team_id, url: w.url, events: w.events, created_by: w.created_by, created_at: rfc3339(w.created_at) });

export async function createWebhook(ctx: AppContext, p: Principal, teamId: string, input: { url: string; events: string[] }): Promise<WebhookView & { secret: string }> {
  requireTeam(p, teamId, 'manage');
  const url = checkWebhookUrl(input.url, ctx.config.allowPrivateWebhooks);
  const unknown = input.events.filter((e) => !WEBHOOK_EVENTS.includes(e));
  if (unknown.length) throw svcError('validation_failed', `Unknown event kinds: ${unknown.join(', ')}. Use * or some of: ${EVENT_KINDS.join(', ')}.`, { unknown });
  const events = input.events.includes('*') ? ['*'] : [...new Set(input.events)];
  const secret = newSecret('whsec_');
  const r = await ctx.db.query<WebhookRow>(
    'INSERT INTO webhooks (id, team_id, url, events, secret_sealed, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
    [newId('wh_'), teamId, url, events, seal(ctx.secretKey, secret), p.userId, new Date(ctx.clock.now())],
  );
  return { ...webhookView(r.rows[0]), secret };
}

/** Loads a webhook the caller may `need` on; others' webhooks are not_found (no existence leak). */
export async function loadWebhook(ctx: AppContext, p: Principal, id: string, need: 'read' | 'manage'): Promise<WebhookRow> {
  const r = await ctx.db.query<WebhookRow>('SELECT id, team_id, url, events, created_by, created_at FROM webhooks WHERE id = $1', [id]);
  const w = r.rows[0];
  if (!w || (!p.isSuperuser && !p.teams.has(w.team_id))) throw svcError('not_found', `Webhook ${id} was not found.`);
  requireTeam(p, w.team_id, need);
  return w;
}

export async function listWebhooks(ctx: AppContext, p: Principal, filter: { teamId?: string }, page: ListParams): Promise<{ items: WebhookView[]; next_cursor: string | null }> {
  if (filter.teamId) requireTeam(p, filter.teamId, 'read');
  const params: unknown[] = [page.limit + 1];
  const where: string[] = [];
  const visible = readableTeams(p);
  if (visible) where.push(`team_id = ANY($${params.push(visible)})`);
  if (filter.teamId) where.push(`team_id = $${params.push(filter.teamId)}`);
  if (page.after) where.push(`(created_at, id) < ($${params.push(page.after[0])}::timestamptz, $${params.push(page.after[1])})`);
  const r = await ctx.db.query<WebhookRow>(
    `SELECT id, team_id, url, events, created_by, created_at FROM webhooks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (w) => [w.created_at.toISOString(), w.id], webhookView);
}

export async function deleteWebhook(ctx: AppContext, p: Principal, id: string): Promise<WebhookView> {
  const w = await loadWebhook(ctx, p, id, 'manage');
  await ctx.db.query('DELETE FROM webhooks WHERE id = $1', [w.id]);
  return webhookView(w);
}

/**
 * Emits a `webhook.test` event that the dispatcher delivers to this webhook only. A URL stored while the instance
 * allowed private targets, and refused now, is refused here at once (the delivery would be refused anyway).
 */
export async function testWebhook(ctx: AppContext, p: Principal, id: string): Promise<{ event: string; kind: 'webhook.test'; webhook: string }> {
  const w = await loadWebhook(ctx, p, id, 'manage');
  checkWebhookUrl(w.url, ctx.config.allowPrivateWebhooks);
  const eventId = await ctx.db.tx((q) => emitEvent(q, w.team_id, 'webhook.test', { webhook_id: w.id, url: w.url, message: 'This is a test delivery from svc.' }));
  await announceEvents(ctx.counters);
  return { event: `evt_${eventId}`, kind: 'webhook.test', webhook: w.id };
}
