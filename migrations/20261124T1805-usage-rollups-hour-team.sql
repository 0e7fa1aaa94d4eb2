-- Hourly rollup rows summed over keys, models and accounts, one per team and hour ('hour_team': key_id and model
-- '', account_id NULL), kept by the usage-rollups job beside the 'hour' rows they sum. GET /api/v1/usage reads them
-- for the hourly time series of a caller who sees every key of the teams read (superusers, and team admins within
-- their teams): over 30 days that is teams × 720 rows instead of every hourly row (about one per call at 100,000
-- records a month). Members who may not see other members' own keys keep reading the 'hour' rows.
ALTER TABLE usage_rollups DROP CONSTRAINT usage_rollups_period_check;
ALTER TABLE usage_rollups ADD CONSTRAINT usage_rollups_period_check CHECK (period IN ('hour', 'day', 'day_key', 'hour_team'));

-- The hours already rolled up get theirs now, so that readers find them from the start.
INSERT INTO usage_rollups (period, bucket, team_id, key_id, model, account_id, calls, errors, input_tokens, output_tokens,
                           cache_read_tokens, cache_write_tokens, cost_usd, latency_histogram)
SELECT 'hour_team', bucket, team_id, '', '', NULL, sum(calls), sum(errors), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd), sum(latency_histogram)
  FROM usage_rollups WHERE period = 'hour'
 GROUP BY bucket, team_id;
