-- Deleting the open rows of calls whose usage records are written (proxy/metering/usage-writer.ts), always through
-- the primary key. The table is tiny by its live rows but churns (a row in and out per streamed call), so between
-- two vacuums it holds many dead tuples; a plan made while it looked empty (the writer's statement is prepared once
-- per connection) read it whole on every batch: measured, about 100 µs of Postgres CPU per streamed call, growing
-- with the churn. Planned inside this function with sequential scans off, the delete is an index scan per id.
CREATE FUNCTION usage_close_open_calls(ids uuid[]) RETURNS int
LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  closed int;
BEGIN
  DELETE FROM usage_open_calls WHERE record_id = ANY(ids);
  GET DIAGNOSTICS closed = ROW_COUNT;
  RETURN closed;
END
$$;
