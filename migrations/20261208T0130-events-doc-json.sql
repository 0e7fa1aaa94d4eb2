-- The stored event as `json` (its text, checked once) beside `data` (`jsonb`, parsed into a binary tree): parsing a
-- 5 KB event into jsonb is the largest single part of Postgres' work per ingested event, and nothing queries inside
-- the document. Which column new events go to is SVC_EVENT_DOCUMENTS (docs/errors.md#event-documents): `jsonb`
-- (data) until every node reads both, so this version keeps writing `data`; readers take whichever holds the event.
--
-- Expand only: a nullable column without a default and a NOT NULL dropped are catalogue changes (no rewrite of the
-- table, no long lock), and a node of the previous version goes on inserting its rows as before.
ALTER TABLE events ADD COLUMN doc json;
ALTER TABLE events ALTER COLUMN data DROP NOT NULL;
-- lz4 where the server has it, as `data` (20261122T0214-events-lz4.sql): on the parent for the partitions created
-- from now on, and on each existing one, which a parent's setting does not reach.
DO $$
DECLARE
  part regclass;
BEGIN
  ALTER TABLE events ALTER COLUMN doc SET COMPRESSION lz4;
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'events'::regclass LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN doc SET COMPRESSION lz4', part);
  END LOOP;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'lz4 compression is not available; event documents keep the default compression';
END $$;
-- Exactly one of the two holds the event: checked on new rows (NOT VALID spares a scan of every stored event; each
-- row stored before holds `data`, which was NOT NULL).
ALTER TABLE events ADD CONSTRAINT events_one_document CHECK ((data IS NULL) <> (doc IS NULL)) NOT VALID;
