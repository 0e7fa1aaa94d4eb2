-- A compressed document stays in its row up to 4 KB instead of going to the TOAST table past about 2 KB (an insert
-- and an index entry more per event): on every existing partition here, on new ones where they are created
-- (core/db/partitions.ts). A storage parameter: no rewrite, rows stored before keep their form.
DO $$
DECLARE
  part regclass;
BEGIN
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'events'::regclass LOOP
    EXECUTE format('ALTER TABLE %s SET (toast_tuple_target = 4096)', part);
  END LOOP;
END $$;
