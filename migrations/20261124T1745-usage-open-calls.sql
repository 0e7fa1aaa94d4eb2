-- Streamed gateway calls in progress (issue 11 point 2: a call cut off mid-stream is recorded from its reservation
-- estimate, even when the node serving it is killed). Before a streamed answer's first byte, the proxy node makes
-- one row durable here through its usage writer (proxy/metering/usage-writer.ts: batched, journaled while Postgres
-- is down); the transaction that writes the call's usage record deletes it. A row whose node stopped renewing its
-- lease (the node was killed, lost its disk or its database) is turned into the usage record by the leader's
-- `usage-open-calls` job (control-plane/usage/close-lost-calls.ts): the estimate below, usage_source `estimated`,
-- error_code `node_lost`. record_id is the id the call's usage record has (or will have): usage_records.record_id
-- is unique, so a call is never recorded twice, whichever of the two arrives first.
--
-- Small and short-lived (one row per stream in flight): no index beyond the key; the renewal (one UPDATE per node
-- every third of the lease) and the job (every few seconds) read the whole table.
CREATE TABLE usage_open_calls (
  record_id uuid PRIMARY KEY,
  node_id text NOT NULL,                                 -- the node serving the call (it renews the lease)
  lease_until timestamptz NOT NULL,                      -- past it, the call is taken as lost with its node
  renewed_at timestamptz NOT NULL,                       -- the node's last sign of life for this call
  at timestamptz NOT NULL,                               -- when the call started (usage_records.at)
  key_id text NOT NULL,
  team_id text NOT NULL,
  model text NOT NULL,
  served_model text,
  alias text,
  provider text,
  account_id text,
  client_style text NOT NULL,
  upstream_style text,
  stream boolean NOT NULL,
  -- The reservation estimate (proxy/limits/call-estimate.ts): the prompt as request bytes / 4, the request's max
  -- output tokens (or the model's default), priced for the serving model (overrides, else list price).
  input_tokens int NOT NULL,
  output_tokens int NOT NULL,
  cost_usd double precision NOT NULL
);
