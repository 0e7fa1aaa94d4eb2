-- The 80 % alert of a team's monthly token budget (`ai.tokens`, docs/limits.md): one row per (team, month, limit)
-- whose `team.budget_alert` was sent. As for budget_alerts (keys), the primary key makes the alert once per month
-- per team across every proxy node; the row and the outbox event are inserted in one transaction.
CREATE TABLE team_budget_alerts (
  team_id text NOT NULL,
  month text NOT NULL,                                   -- YYYY-MM, calendar month in UTC
  limit_name text NOT NULL CHECK (limit_name IN ('ai.tokens')),
  outbox_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, month, limit_name)
);
