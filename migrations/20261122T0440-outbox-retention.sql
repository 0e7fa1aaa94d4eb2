-- Retention of the outbox and webhook deliveries (control-plane/webhooks/outbox-retention.ts) looks rows up by age;
-- without these indexes each of its batched deletes would scan the whole table.
CREATE INDEX outbox_created ON outbox (created_at);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
