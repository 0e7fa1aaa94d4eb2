/** Response schemas of webhooks, their deliveries and the notifications (webhook-service.ts, delivery-service.ts, notification-service.ts). */
import { ANY, INTEGER_OR_NULL, object, STRING_OR_NULL, STRINGS, TIME, TIME_OR_NULL } from '../../core/http/response-schema.ts';
import { DELIVERY_STATES } from './delivery-service.ts';

const WEBHOOK_FIELDS = {
  id: { type: 'string' },
  team: { type: 'string' },
  url: { type: 'string' },
  events: STRINGS,
  created_by: STRING_OR_NULL,
  created_at: TIME,
};
export const WEBHOOK_VIEW = object(WEBHOOK_FIELDS);
export const CREATED_WEBHOOK = object({ ...WEBHOOK_FIELDS, secret: { type: 'string', description: 'The whsec_ signing secret, shown once.' } });

export const WEBHOOK_TEST_SENT = object({ event: { type: 'string' }, kind: { type: 'string', enum: ['webhook.test'] }, webhook: { type: 'string' } });

export const DELIVERY_VIEW = object({
  id: { type: 'string' },
  webhook: { type: 'string' },
  event: { type: 'string', description: 'evt_<n>, as in notifications and the payload.' },
  kind: { type: 'string' },
  state: { type: 'string', enum: [...DELIVERY_STATES] },
  attempt_count: { type: 'integer' },
  next_attempt_at: TIME_OR_NULL,
  delivered_at: TIME_OR_NULL,
  created_at: TIME,
  attempts: {
    type: 'array',
    items: object({ attempt: { type: 'integer' }, status: INTEGER_OR_NULL, error: STRING_OR_NULL, duration_ms: { type: 'integer' }, attempted_at: TIME }),
  },
});

export const NOTIFICATION_VIEW = object({
  id: { type: 'string' },
  team: { type: 'string' },
  kind: { type: 'string' },
  data: { ...ANY, description: 'The payload the webhooks received.' },
  created_at: TIME,
  dispatched_at: TIME_OR_NULL,
  deliveries: object({ total: { type: 'integer' }, pending: { type: 'integer' }, delivered: { type: 'integer' }, failed: { type: 'integer' } }),
});
