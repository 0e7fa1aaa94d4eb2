-- Summaries of the oldest turns of a conversation (issue 13 point 2, docs/compression.md "Summaries").
--
-- The setting: {"model": "gpt-4o-mini", "key_id": "key_…", "min_tokens": 8000} or NULL (no summaries). The summary
-- calls go through the gateway as calls of that key (metered, limited, billed to it).
--
-- One row per span of oldest turns, keyed by the hash of exactly the turns a summary replaces. A node claims a span
-- (pending) before it asks the summary model, so one summary is made per span across nodes; a claim older than a few
-- minutes (a node that stopped) may be taken over. `failed` keeps why, so the calls that meet it say so.
ALTER TABLE compression_settings ADD COLUMN summary jsonb;

CREATE TABLE compression_summaries (
  span_hash text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
  model text NOT NULL,
  key_id text NOT NULL,
  turns integer NOT NULL,
  tokens_before integer NOT NULL,
  text text,
  error text,
  claimed_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX compression_summaries_updated ON compression_summaries (updated_at);
