-- Partitioned storage, step 1 of 3: events, usage records, call bodies and ingest outcomes become tables partitioned
-- by day of expiry (a row's expiry is its time plus its project's, key's or the instance's retention), so retention
-- drops whole partitions instead of deleting row by row (core/db/partitions.ts, docs/operations.md).
--
-- The existing tables are not copied: each becomes the "legacy" partition of its new parent, covering every expiry
-- before a bound U (a day boundary past the latest expiry any of its rows can have), and is dropped whole once U
-- passes. Until then the old row-by-row retention still runs on it. New rows whose expiry falls before U land in it
-- too; daily partitions start at U.
--
-- This step gives each table its expires_at column and a CHECK matching the legacy partition's range, added NOT
-- VALID (no scan, a moment's lock). Step 2 validates it in its own transaction (a scan that lets writes go on), so
-- that step 3's ATTACH finds the range proven and does not scan the table under its exclusive lock.
--
-- Legacy expiries: events and ingest outcomes get one constant (U minus a day) as a default that Postgres keeps in
-- its catalog (no table rewrite); their real retention is still enforced row by row until U. Call bodies already
-- carry their own expires_at.
CREATE TABLE partition_legacy (
  table_name text PRIMARY KEY,
  -- The legacy partition holds expiries before this day boundary and is dropped whole once it has passed.
  until timestamptz NOT NULL
);

DO $$
DECLARE
  today timestamptz := date_trunc('day', now(), 'UTC');
  -- An empty table (a new installation) gets today as its bound: it is dropped at the job's first run, and every
  -- row goes to its day's partition from the start.
  events_until timestamptz := CASE WHEN EXISTS (SELECT 1 FROM events) THEN
    date_trunc('day', now() + make_interval(days => (SELECT coalesce(max(retention_days), 30) FROM projects) + 2), 'UTC') ELSE today END;
  -- Usage records had no retention before; 90 days is the default of SVC_USAGE_RETENTION_DAYS.
  usage_until timestamptz := CASE WHEN EXISTS (SELECT 1 FROM usage_records) THEN
    date_trunc('day', now() + interval '92 days', 'UTC') ELSE today END;
  bodies_until timestamptz := CASE WHEN EXISTS (SELECT 1 FROM call_bodies) THEN
    date_trunc('day', greatest(now(), (SELECT max(expires_at) FROM call_bodies)) + interval '2 days', 'UTC') ELSE today END;
  -- Ingest outcomes are kept 90 days (the stats' horizon).
  outcomes_until timestamptz := CASE WHEN EXISTS (SELECT 1 FROM ingest_outcomes) THEN
    date_trunc('day', now() + interval '92 days', 'UTC') ELSE today END;
BEGIN
  INSERT INTO partition_legacy VALUES ('events', events_until), ('usage_records', usage_until),
    ('call_bodies', bodies_until), ('ingest_outcomes', outcomes_until);
  EXECUTE format('ALTER TABLE events ADD COLUMN expires_at timestamptz NOT NULL DEFAULT %L', events_until - interval '1 day');
  EXECUTE format('ALTER TABLE usage_records ADD COLUMN expires_at timestamptz NOT NULL DEFAULT %L', usage_until - interval '1 day');
  EXECUTE format('ALTER TABLE ingest_outcomes ADD COLUMN expires_at timestamptz NOT NULL DEFAULT %L', outcomes_until - interval '1 day');
  EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_legacy_range CHECK (expires_at < %L) NOT VALID', events_until);
  EXECUTE format('ALTER TABLE usage_records ADD CONSTRAINT usage_records_legacy_range CHECK (expires_at < %L) NOT VALID', usage_until);
  EXECUTE format('ALTER TABLE call_bodies ADD CONSTRAINT call_bodies_legacy_range CHECK (expires_at < %L) NOT VALID', bodies_until);
  EXECUTE format('ALTER TABLE ingest_outcomes ADD CONSTRAINT ingest_outcomes_legacy_range CHECK (expires_at < %L) NOT VALID', outcomes_until);
END $$;
