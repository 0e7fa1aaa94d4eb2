-- The default of keep_last_turns follows the service's (core/ai/compression-settings.ts): 2, the last tool call and
-- its result (docs/compression.md says why). A row saved before keeps the value it was saved with.
ALTER TABLE compression_settings ALTER COLUMN keep_last_turns SET DEFAULT 2;
