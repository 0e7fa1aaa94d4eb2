/**
 * Wires the webhook dispatcher into a control-plane node: its scheduler job (leader only), the early wake-up on
 * announced outbox rows, a clean stop when the server closes, and the retention job of the outbox and deliveries.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { outboxRetentionJob } from './outbox-retention.ts';

export async function installWebhookDispatcher(app: FastifyInstance, ctx: AppContext, scheduler: Scheduler): Promise<WebhookDispatcher> {
  const dispatcher = new WebhookDispatcher(ctx);
  scheduler.add(dispatcher.job());
  scheduler.add(outboxRetentionJob());
  await dispatcher.listen(() => scheduler.isLeader);
  app.addHook('onClose', () => dispatcher.stop());
  return dispatcher;
}
