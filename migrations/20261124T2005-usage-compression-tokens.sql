-- Compression in the usage records (issue 13 point 4, docs/compression.md "Records and the savings report"): the
-- mode a call went through the compressor in, and for `on` the estimated input tokens of the conversation before
-- and after compression (characters / 4 of its turns; what went upstream is the "after"). NULL mode: the call did
-- not go through the compressor (mode `off`, or records written before this migration). In `audit-only` the
-- compressor runs after the answer, once the record is written, so the tokens stay NULL and what `on` would have
-- saved is in compression_records. Plain nullable columns: no rewrite of existing rows, and on a partitioned
-- usage_records the columns reach every partition.
ALTER TABLE usage_records ADD COLUMN compression_mode text CHECK (compression_mode IN ('audit-only', 'on'));
ALTER TABLE usage_records ADD COLUMN compression_tokens_before integer;
ALTER TABLE usage_records ADD COLUMN compression_tokens_after integer;

-- The rollups carry their sums over the calls compressed in `on` (0 for rows rolled up before: their records have
-- none), so that GET /api/v1/usage reads the same figures from rollups as from the records.
ALTER TABLE usage_rollups ADD COLUMN compressed_calls bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_rollups ADD COLUMN compression_tokens_before bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_rollups ADD COLUMN compression_tokens_after bigint NOT NULL DEFAULT 0;
