-- Partitioned storage, step 2 of 3 (see step 1): the legacy ranges are proven here, under a lock that lets writes go
-- on, so that step 3 attaches each table without scanning it.
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_range;
ALTER TABLE usage_records VALIDATE CONSTRAINT usage_records_legacy_range;
ALTER TABLE call_bodies VALIDATE CONSTRAINT call_bodies_legacy_range;
ALTER TABLE ingest_outcomes VALIDATE CONSTRAINT ingest_outcomes_legacy_range;
