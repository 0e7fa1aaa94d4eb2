-- Links of error-tracking projects to the family's apps and pages services (docs/links.md).
-- A link is out of date while synced_key differs from the project's active client key: rotation needs no extra
-- rows, the sync job (control-plane/links/link-sync.ts) re-links every such link until the peer takes the new DSN.
CREATE TABLE project_links (
  id text PRIMARY KEY,
  project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  -- 'app' (the apps service) or 'alias' (the pages service).
  kind text NOT NULL CHECK (kind IN ('app', 'alias')),
  target text NOT NULL,
  environment text,
  -- The public key the peer last accepted.
  synced_key text,
  state text NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'stale')),
  last_error text,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- The person asked to restart the app once it has the new DSN (apps only).
  restart_requested boolean NOT NULL DEFAULT false,
  -- Deploy polling: the newest deploy time seen; deploys at or after it are read again (idempotent).
  watermark timestamptz,
  polled_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (kind, target)
);
CREATE INDEX project_links_project ON project_links (project_id, created_at, id);
