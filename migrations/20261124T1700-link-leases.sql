-- A pass of the links job (or a rotation's own re-link) that calls a peer for a link holds it until leased_until, so
-- that no other pass calls the same peer for the same link at once (two passes would restart an app twice). Kept
-- apart from next_attempt_at, the retry backoff, which a rotation's re-link ignores but a lease it must not.
ALTER TABLE project_links ADD COLUMN leased_until timestamptz;
