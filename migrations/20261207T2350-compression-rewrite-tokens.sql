-- What the compressor's step rewrote (estimated tokens from its first rewritten turn to where it was taken), on each
-- compression record: a cache break costs the provider's cache write of that much history instead of its cache read,
-- and the savings report prices it. NULL on the rows of earlier versions, which the report counts as 0. Adding a
-- nullable column without a default is a catalogue change only (no rewrite of the table, no long lock); a node of the
-- previous version goes on inserting its rows without it.
ALTER TABLE compression_records ADD COLUMN rewrite_tokens integer;
