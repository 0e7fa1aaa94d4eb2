-- Events acknowledged but not yet processed (issue 11: acknowledged means durable). The fast path answers 200 once
-- an event's row is committed here (one INSERT per group of events); the node then processes it from memory and
-- deletes the row in the transaction that stores the event. `data` is the queued event as the events journal
-- stores it (ingest/writer/queued-event-codec.ts: project, ids, times, and the payload as received).
-- `claimed_until` is the lease of the node processing the row: a row whose lease ran out (its node crashed before
-- processing it) is claimed by any node's periodic sweep (FOR UPDATE SKIP LOCKED, so two nodes never claim one row).
CREATE TABLE ingest_inbox (
  id uuid PRIMARY KEY,
  project_id bigint NOT NULL,
  event_id text NOT NULL,
  received_at timestamptz NOT NULL,
  data bytea NOT NULL,
  claimed_until timestamptz
);
CREATE INDEX ingest_inbox_claimed_until ON ingest_inbox (claimed_until);
