-- Deliveries of one webhook, newest first (GET /api/v1/webhooks/{id}/deliveries).
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
