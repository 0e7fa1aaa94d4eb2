-- Stored events are compressed with lz4 where the server has it (PostgreSQL 14+ built with lz4): about a third
-- less CPU than the default pglz on the ingest writer's inserts, at a similar size. Elsewhere (the embedded
-- database) the default stays.
DO $$
BEGIN
  ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'lz4 compression is not available; events keep the default compression';
END $$;
