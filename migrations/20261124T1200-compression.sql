-- Conversation compression before upstream (issue 13, docs/compression.md).
--
-- The instance setting is one row: the mode (`off` by default, `audit-only`, `on`), how many last turns are never
-- touched, and model rules [{"pattern": "claude-*", "mode": "on", "min_tokens": 8000, ...}] whose most specific
-- match refines the mode and the thresholds for a model. Teams and keys carry an optional mode (NULL inherits).
-- The effective mode of a call is the lowest of instance, rule, team and key (off < audit-only < on); the
-- X-Svc-Compress request header may only lower it further.
CREATE TABLE compression_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  mode text NOT NULL DEFAULT 'off' CHECK (mode IN ('off', 'audit-only', 'on')),
  keep_last_turns integer NOT NULL DEFAULT 4 CHECK (keep_last_turns BETWEEN 0 AND 1000),
  rules jsonb NOT NULL DEFAULT '[]'::jsonb,
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE teams ADD COLUMN compression text CHECK (compression IN ('off', 'audit-only', 'on'));
ALTER TABLE gateway_keys ADD COLUMN compression text CHECK (compression IN ('off', 'audit-only', 'on'));

-- What compression did (`on`) or would have done (`audit-only`) to each call that went through the compressor;
-- kept apart from usage_records, which count what went upstream. Token counts are estimates (characters / 4) of
-- the conversation's turns. `level` is the compressor's growth level: a change of level within one session is a
-- rewrite that broke the provider's cached prefix once. `record_id` makes a repeated write idempotent.
CREATE TABLE compression_records (
  record_id uuid PRIMARY KEY,
  at timestamptz NOT NULL,
  key_id text NOT NULL,
  team_id text NOT NULL,
  model text NOT NULL,
  provider text,
  session text,
  mode text NOT NULL CHECK (mode IN ('audit-only', 'on')),
  tokens_before integer NOT NULL,
  tokens_after integer NOT NULL,
  level integer NOT NULL,
  saved jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX compression_records_at ON compression_records (at);
CREATE INDEX compression_records_session ON compression_records (session, at) WHERE session IS NOT NULL;
