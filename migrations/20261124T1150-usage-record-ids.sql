-- Each usage record carries the id its node gave it when the call ended, and the insert skips an id already stored:
-- a write repeated after a crash (a journal replay after the commit but before the segment was deleted, or a retry
-- after a connection lost during COMMIT) is stored once, so money is never counted twice (core/writes). Rows
-- written before have none (NULLs never collide in a unique index).
ALTER TABLE usage_records ADD COLUMN record_id uuid;
CREATE UNIQUE INDEX usage_records_record_id ON usage_records (record_id);
