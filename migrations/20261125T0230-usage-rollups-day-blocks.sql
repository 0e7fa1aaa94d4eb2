-- Daily rollup rows summed over aligned blocks of 2, 4, 8 and 16 whole days ('day_2' … 'day_16' of the 'day' rows,
-- likewise 'day_key_2' … and 'day_model_2' …; a block of n days starts on a day whose number since 1970-01-01 is a
-- multiple of n), kept by the usage-rollups job for every block of days before the current one. GET
-- /api/v1/usage reads a report's groups over many days from them: 30 days are at most eight blocks and a few days,
-- so a report by key and model adds up about 6,000 rows instead of 24,000 (each with a packed histogram of about
-- 1,300 digits). The daily series still reads the days. blocks_snapshot is the snapshot of the run that last kept
-- them: readers use them only while it is the state's snapshot, so a run of an earlier build (which recomputes days
-- but not their blocks, and leaves this column as it was) turns them off until the next run rebuilds them.
-- The wider CHECK is added NOT VALID (new rows are checked at once) and proven by the next migration, under a lock that
-- lets reads and writes go on, instead of scanning millions of rollup rows under this one.
ALTER TABLE usage_rollups DROP CONSTRAINT usage_rollups_period_check;
ALTER TABLE usage_rollups ADD CONSTRAINT usage_rollups_period_check CHECK (period IN ('hour', 'day', 'day_key', 'hour_team', 'day_model',
  'day_2', 'day_4', 'day_8', 'day_16', 'day_key_2', 'day_key_4', 'day_key_8', 'day_key_16', 'day_model_2', 'day_model_4', 'day_model_8', 'day_model_16')) NOT VALID;
ALTER TABLE usage_rollup_state ADD COLUMN blocks_snapshot text;
