-- Error tracking management: what the issues list sorts on, releases registered by CI (ref and link), and the
-- indexes the retention job deletes by.

-- Keyset sorts of GET /api/v1/projects/{id}/issues besides last_seen (which 20261122T0116-errors.sql indexes).
CREATE INDEX issues_project_first_seen ON issues (project_id, first_seen DESC, id DESC);
CREATE INDEX issues_project_count ON issues (project_id, count DESC, id DESC);
CREATE INDEX issues_project_people ON issues (project_id, people DESC, id DESC);
-- New issues per release (issues whose first event carried that release).
CREATE INDEX issues_project_first_release ON issues (project_id, first_release) WHERE first_release IS NOT NULL;

-- A release registered through the API may name its source revision and a link (CI run, changelog).
ALTER TABLE releases ADD COLUMN ref text;
ALTER TABLE releases ADD COLUMN url text;
CREATE INDEX releases_project_id ON releases (project_id, id DESC);

-- Hourly counts are kept 90 days: the retention job deletes by hour.
CREATE INDEX issue_hourly_hour ON issue_hourly (hour);
