-- Gateway key limits: kept call bodies and budget alerts (docs/limits.md).

-- Request and response bodies of the calls of keys whose log_bodies is not 'off', kept until expires_at
-- (created_at + 1, 7 or 30 days). Written by the proxy in batches, off the request path, and only while the key
-- still asks for it (the insert joins gateway_keys under FOR SHARE, so switching a key to 'off' and deleting its
-- rows cannot race with a batch in flight). A scheduler deletes expired rows; readers also hide them.
-- No foreign key to gateway_keys on purpose: inserts stay cheap and rows may outlive a deleted key until they expire.
CREATE TABLE call_bodies (
  id text PRIMARY KEY,                                   -- call_<hex>
  key_id text NOT NULL,
  team_id text NOT NULL,
  model text NOT NULL,                                   -- as asked by the client (may be an alias)
  served_model text,
  client_style text NOT NULL,                            -- chat | messages | generative
  stream boolean NOT NULL,
  status int NOT NULL,                                   -- HTTP status sent to the client
  error_code text,
  -- The request body as received (UTF-8 text of the JSON) and the answer as the client got it; a stream is kept as
  -- the assembled answer in the client's non-streaming shape. Each is cut at 1 MiB (truncated = true then).
  request text NOT NULL,
  response text,
  truncated boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX call_bodies_key ON call_bodies (key_id, created_at DESC, id DESC);
CREATE INDEX call_bodies_team ON call_bodies (team_id, created_at DESC, id DESC);
CREATE INDEX call_bodies_expires ON call_bodies (expires_at);

-- One row per (key, month, limit) whose 80 % budget alert was sent: the unique key makes the alert once per month
-- per key across every proxy node; the row and the outbox event are inserted in one transaction.
CREATE TABLE budget_alerts (
  key_id text NOT NULL,
  month text NOT NULL,                                   -- YYYY-MM, calendar month in UTC
  limit_name text NOT NULL CHECK (limit_name IN ('tokens_per_month', 'dollars_per_month')),
  outbox_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, month, limit_name)
);
