-- ingest_inbox rows live for milliseconds (inserted at the acknowledgement, deleted by the processing transaction):
-- compressing their data is CPU spent for nothing. A row is only compressed (or moved out of line) past
-- toast_tuple_target, so at its most (8160 bytes) a typical event (a few KB) is written as it is; a larger one is
-- compressed with lz4 where the server has it (the default pglz costs about three times the CPU).
ALTER TABLE ingest_inbox SET (toast_tuple_target = 8160);
DO $$
BEGIN
  ALTER TABLE ingest_inbox ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'lz4 compression is not available; the inbox keeps the default compression';
END $$;
