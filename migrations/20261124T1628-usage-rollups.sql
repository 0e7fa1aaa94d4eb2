-- Hourly and daily rollups of usage_records, kept by the leader's usage-rollups job (control-plane/usage/
-- roll-up-usage.ts) and read by GET /api/v1/usage for whole rolled-up hours and days; the recent part and rows that
-- arrived late are read raw.
--
-- written_xid: the transaction that wrote the row (pg_current_xact_id as a number). A row that arrives late (a
-- node's journal replayed after an outage, with its original time) lands in an hour already rolled up; the job
-- finds it by its transaction and recomputes the whole hours it touched. Rows written before this migration have
-- none (they are older than the first run). Added without a default first and then given one, so the existing rows
-- are not rewritten; a BRIN index (cheap for the writer: transactions grow in the order rows are appended), whose
-- page ranges are summarised as they fill (autosummarize) so that only the newest rows are scanned for it.
ALTER TABLE usage_records ADD COLUMN written_xid bigint;
ALTER TABLE usage_records ALTER COLUMN written_xid SET DEFAULT txid_current();
CREATE INDEX usage_records_written_xid ON usage_records USING brin (written_xid) WITH (pages_per_range = 32, autosummarize = on);

-- One row per period ('hour' | 'day'), bucket start (UTC) and the dimensions the usage API groups by and filters
-- on: team, key (visibility of own keys follows gateway_keys.owner_user_id), model (the one that answered, else the
-- one asked for) and account; 'day_key' rows are the day's summed over accounts (account_id NULL), for the reports
-- that do not group by account (fewer rows to read). Sums are exact: tokens as bigint, cost as numeric (the sum of cost_usd::numeric, the
-- same figure the raw query adds up). Latency is a histogram over fixed log-spaced buckets (latency-histogram.ts)
-- packed into one exact number: the count of bucket b is digits 12·b to 12·b+11 (from the right), so that plain
-- sum() adds histograms bucket by bucket (far cheaper than unnesting arrays: one addition per row).
CREATE TABLE usage_rollups (
  period text NOT NULL CHECK (period IN ('hour', 'day', 'day_key')),
  bucket timestamptz NOT NULL,
  team_id text NOT NULL,
  key_id text NOT NULL,
  model text NOT NULL,
  account_id text,
  calls bigint NOT NULL,
  errors bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  latency_histogram numeric NOT NULL
);
-- One row per bucket and dimensions: a recompute that ran twice can never count twice.
CREATE UNIQUE INDEX usage_rollups_unique ON usage_rollups (period, bucket, team_id, key_id, model, (coalesce(account_id, '')));

-- The weight of each latency bucket in a packed histogram: 10^(12·bucket).
CREATE TABLE usage_latency_weights (
  bucket smallint PRIMARY KEY,
  weight numeric NOT NULL
);
INSERT INTO usage_latency_weights (bucket, weight) SELECT b, 10::numeric ^ (12 * b) FROM generate_series(0, 255) AS b;

-- Where the rollups stand: every hour before rolled_until is rolled up, holding the rows visible in `snapshot` (a
-- pg_snapshot as text); rows of transactions from snapshot_xmin on that it did not see are read raw until the next
-- run recomputes their hours.
CREATE TABLE usage_rollup_state (
  id int PRIMARY KEY CHECK (id = 1),
  rolled_until timestamptz NOT NULL,
  snapshot text NOT NULL,
  snapshot_xmin bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
