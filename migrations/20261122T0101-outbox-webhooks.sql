-- Outbox: events written in the transaction that causes them; a dispatcher delivers them to team webhooks.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX outbox_pending ON outbox (id) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_team ON outbox (team_id, id DESC);

CREATE TABLE webhooks (
  id text PRIMARY KEY,
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  secret_sealed text NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_team ON webhooks (team_id, created_at DESC, id DESC);

-- One row per (event, webhook); attempts are recorded in webhook_attempts.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  outbox_id bigint NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (outbox_id, webhook_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt int NOT NULL,
  response_status int,
  error text,
  duration_ms int NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
