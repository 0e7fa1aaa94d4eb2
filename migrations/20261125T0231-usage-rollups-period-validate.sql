-- The wider period CHECK of 20261125T0230, proven over the existing rollup rows in a transaction of its own: VALIDATE
-- takes a lock that lets reads and writes go on while it scans.
ALTER TABLE usage_rollups VALIDATE CONSTRAINT usage_rollups_period_check;
