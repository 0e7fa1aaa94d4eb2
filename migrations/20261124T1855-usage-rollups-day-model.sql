-- A day's rollup rows summed over keys and accounts, one per team and model ('day_model': key_id '', account_id
-- NULL), kept by the usage-rollups job beside the 'day' rows they sum. GET /api/v1/usage reads them for callers who
-- see every key of the teams read (superusers, team admins within their teams) when the report does not group by
-- key or account (by model or team, and the totals and daily series of those): teams × models rows a day instead of
-- one per key and model (800 a day at 10 keys × 10 teams × 8 models).
ALTER TABLE usage_rollups DROP CONSTRAINT usage_rollups_period_check;
ALTER TABLE usage_rollups ADD CONSTRAINT usage_rollups_period_check CHECK (period IN ('hour', 'day', 'day_key', 'hour_team', 'day_model'));

-- The days already rolled up get theirs now, so that readers find them from the start.
INSERT INTO usage_rollups (period, bucket, team_id, key_id, model, account_id, calls, errors, input_tokens, output_tokens,
                           cache_read_tokens, cache_write_tokens, cost_usd, latency_histogram)
SELECT 'day_model', bucket, team_id, '', model, NULL, sum(calls), sum(errors), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd), sum(latency_histogram)
  FROM usage_rollups WHERE period = 'day'
 GROUP BY bucket, team_id, model;
