-- A usage record replaced after it was written (the leader's estimate of a call lost with its node, replaced by the
-- real record when the node's journal is replayed: the upsert of proxy/metering/usage-writer.ts) leaves its earlier
-- version here, whole, with the transaction that replaced it. The usage rollups may have counted that version; until
-- the usage-rollups job's next run recomputes its hour, GET /api/v1/usage takes it back out (the replacing version is
-- read raw, as any row the last run did not see), so the report never counts a call twice. The job recomputes the
-- hour of the earlier version too (its time may differ) and deletes the rows whose replacement its snapshot sees.
--
-- A trigger on UPDATE only: inserts, the writers' path, do not fire it, and the replacement is rare. It also gives
-- every updated row a new written_xid, so that the job sees any update as it sees a new row.
CREATE TABLE usage_records_replaced (
  replaced_xid bigint NOT NULL DEFAULT txid_current(),   -- the transaction that replaced it
  old jsonb NOT NULL                                      -- the earlier version (to_jsonb of the usage_records row)
);

CREATE FUNCTION usage_records_keep_replaced() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_records_replaced (old) VALUES (to_jsonb(OLD));
  NEW.written_xid := txid_current();
  RETURN NEW;
END
$$;

CREATE TRIGGER usage_records_keep_replaced BEFORE UPDATE ON usage_records
  FOR EACH ROW EXECUTE FUNCTION usage_records_keep_replaced();
