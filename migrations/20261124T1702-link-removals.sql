-- Deleting a project unlinks its apps and aliases on the peers first, best effort; a link whose peer did not confirm
-- (down, an error, no answer in time) is kept here, and the links job retries the unlink with backoff for 7 days
-- (control-plane/links/link-removals.ts). The project is gone: project_id is the record of which one it was.
CREATE TABLE link_removals (
  kind text NOT NULL CHECK (kind IN ('app', 'alias')),
  target text NOT NULL,
  link_id text NOT NULL,
  project_id bigint NOT NULL,
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz,
  leased_until timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (kind, target)
);
