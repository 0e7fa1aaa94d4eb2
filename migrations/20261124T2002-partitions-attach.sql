-- Partitioned storage, step 3 of 3 (see step 1): each table is renamed <name>_legacy, a parent partitioned by range
-- of expires_at takes its name, and the old table is attached as the partition of every expiry before its bound
-- (proven by step 2, so ATTACH does not scan it). Indexes the old table already has are attached as they are; an
-- index it lacks (a unique key that now includes expires_at) is built on it here.
--
-- A DEFAULT partition under each parent takes a row whose day has no partition yet, so an insert never fails for
-- want of one; the leader's partitions job creates the day's partition and moves such rows into it, and creates the
-- days ahead that current retentions will need (core/db/partitions.ts).
--
-- Partitioned tables cannot hold a unique key without the partition key, and a repeated event_id may arrive days
-- later with another expiry: that dedupe moves to event_ids, one row per (project, event_id) with its own expiry.

-- events
ALTER TABLE events RENAME TO events_legacy;
ALTER TABLE events_legacy RENAME CONSTRAINT events_pkey TO events_legacy_pkey;
ALTER INDEX events_project_received RENAME TO events_legacy_project_received;
ALTER INDEX events_issue_received RENAME TO events_legacy_issue_received;
CREATE TABLE events (LIKE events_legacy INCLUDING DEFAULTS INCLUDING COMPRESSION) PARTITION BY RANGE (expires_at);
ALTER TABLE events ALTER COLUMN expires_at SET DEFAULT now() + interval '30 days';
ALTER TABLE events ADD CONSTRAINT events_event_id_check CHECK (event_id ~ '^[0-9a-f]{32}$');
ALTER TABLE events ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
ALTER TABLE events ADD FOREIGN KEY (issue_id) REFERENCES issues(id) ON DELETE CASCADE;
CREATE INDEX events_project_received ON events (project_id, received_at);
CREATE INDEX events_issue_received ON events (issue_id, received_at DESC);
CREATE INDEX events_project_event ON events (project_id, event_id);

CREATE TABLE event_ids (
  project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  -- The stored event's expiry: the id is forgotten when the event is.
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, event_id)
);
CREATE INDEX event_ids_expires ON event_ids (expires_at);

-- usage_records (id keeps its sequence, now owned by the parent; nothing looks rows up by it)
ALTER TABLE usage_records RENAME TO usage_records_legacy;
ALTER TABLE usage_records_legacy RENAME CONSTRAINT usage_records_pkey TO usage_records_legacy_pkey;
ALTER INDEX usage_records_key_at RENAME TO usage_records_legacy_key_at;
ALTER INDEX usage_records_team_at RENAME TO usage_records_legacy_team_at;
ALTER INDEX usage_records_at RENAME TO usage_records_legacy_at;
ALTER INDEX usage_records_record_id RENAME TO usage_records_legacy_record_id;
ALTER INDEX usage_records_written_xid RENAME TO usage_records_legacy_written_xid;
CREATE TABLE usage_records (LIKE usage_records_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (expires_at);
ALTER SEQUENCE usage_records_id_seq OWNED BY usage_records.id;
ALTER TABLE usage_records ALTER COLUMN expires_at SET DEFAULT now() + interval '90 days';
ALTER TABLE usage_records ADD CONSTRAINT usage_records_usage_source_check CHECK (usage_source IN ('reported', 'estimated', 'unknown'));
CREATE INDEX usage_records_key_at ON usage_records (key_id, at);
CREATE INDEX usage_records_team_at ON usage_records (team_id, at);
CREATE INDEX usage_records_at ON usage_records (at);
-- A record's expiry follows from its time, so a write repeated after a crash has the same and is stored once.
CREATE UNIQUE INDEX usage_records_record_id ON usage_records (record_id, expires_at);
CREATE INDEX usage_records_written_xid ON usage_records USING brin (written_xid) WITH (pages_per_range = 32, autosummarize = on);

-- call_bodies
ALTER TABLE call_bodies RENAME TO call_bodies_legacy;
ALTER TABLE call_bodies_legacy RENAME CONSTRAINT call_bodies_pkey TO call_bodies_legacy_pkey;
ALTER INDEX call_bodies_key RENAME TO call_bodies_legacy_key;
ALTER INDEX call_bodies_team RENAME TO call_bodies_legacy_team;
ALTER INDEX call_bodies_expires RENAME TO call_bodies_legacy_expires;
CREATE TABLE call_bodies (LIKE call_bodies_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (expires_at);
CREATE UNIQUE INDEX call_bodies_id ON call_bodies (id, expires_at);
CREATE INDEX call_bodies_key ON call_bodies (key_id, created_at DESC, id DESC);
CREATE INDEX call_bodies_team ON call_bodies (team_id, created_at DESC, id DESC);
CREATE INDEX call_bodies_expires ON call_bodies (expires_at);

-- ingest_outcomes (an hour's counts expire with the hour, so its upsert key may include the expiry)
ALTER TABLE ingest_outcomes RENAME TO ingest_outcomes_legacy;
ALTER TABLE ingest_outcomes_legacy RENAME CONSTRAINT ingest_outcomes_pkey TO ingest_outcomes_legacy_pkey;
CREATE TABLE ingest_outcomes (LIKE ingest_outcomes_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (expires_at);
ALTER TABLE ingest_outcomes ALTER COLUMN expires_at SET DEFAULT now() + interval '90 days';
ALTER TABLE ingest_outcomes ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX ingest_outcomes_key ON ingest_outcomes (project_id, hour, outcome, reason, category, expires_at);

-- Each old table attached under its parent as the partition of the expiries before its bound (the CHECK that step 2
-- validated proves the range, so ATTACH does not scan it; the CHECK then goes), and a DEFAULT partition beside it.
DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT table_name, until FROM partition_legacy LOOP
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', t.table_name, t.table_name || '_legacy', t.until);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t.table_name || '_legacy', t.table_name || '_legacy_range');
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', t.table_name || '_default', t.table_name);
  END LOOP;
END $$;

-- Its old unique key on record_id alone would refuse, instead of skipping, a record whose expiry differs.
DROP INDEX usage_records_legacy_record_id;
-- An hour counted before and after partitioning has a row of each expiry: the old key without it would refuse one.
ALTER TABLE ingest_outcomes_legacy DROP CONSTRAINT ingest_outcomes_legacy_pkey;
