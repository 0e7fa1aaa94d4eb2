-- The daily rows ('day', 'day_key') of the day rolled_until falls in hold that day's hours so far: the usage-rollups
-- job recomputes them as hours complete, and GET /api/v1/usage reads today from them instead of from every hourly
-- row of today (at 10 M records a month, about 2,000 hourly rows per hour against 800 daily rows per day). days_until
-- is the rolled_until up to which the job kept them so; a run of an earlier build leaves it behind, and readers then
-- read today's hours as before.
ALTER TABLE usage_rollup_state ADD COLUMN days_until timestamptz;
