-- The rollups of the records from rolled_until on (the current hour so far), kept by the usage-rollups job: every run
-- replaces them whole with the records of that range its snapshot sees, so that GET /api/v1/usage reads raw only the
-- records written since (about a minute of calls) instead of the whole current hour (at 10 M records a month, about
-- 9,000 records 40 minutes into an hour). Rows 'hour' and 'hour_team' as in usage_rollups, in a table of their own:
-- replaced every minute, they leave a few thousand dead rows a minute, which a small table's autovacuum clears at
-- once, where in usage_rollups (millions of rows) they would pile up in its index for hours between two vacuums.
-- The daily rows never include them. open_until bounds their times (exclusive, whole ms): a window that ends before
-- it reads the range raw. open_snapshot is the snapshot they were made in: readers use them only while it is the
-- state's snapshot, so a run of an earlier build (which leaves both as they were) turns them off.
CREATE TABLE usage_rollups_open (LIKE usage_rollups INCLUDING ALL);
ALTER TABLE usage_rollup_state ADD COLUMN open_until timestamptz;
ALTER TABLE usage_rollup_state ADD COLUMN open_snapshot text;
