-- Recorded token exchanges are pruned after 90 days (control-plane/identity/trust/exchange-retention.ts), but never
-- while the job token they consumed could still be presented: its jti is refused a second time only while its row
-- is there. job_expires_at is that token's exp (null for exchanges recorded before this migration).
ALTER TABLE trust_exchanges ADD COLUMN job_expires_at timestamptz;
CREATE INDEX trust_exchanges_created ON trust_exchanges (created_at);
