-- Pages aliases: the release the pages service writes into the script's data-release, `<alias>@<deploy id>` of the
-- newest deploy that did not fail (null before the first deploy), with that deploy's time; the deploy poller moves
-- it forward, and the link is out of date (re-sent by the links job) while synced_release, the release the peer
-- last accepted, differs from it. Apps keep all three null: the apps service places CLIENT_RELEASE itself.
ALTER TABLE project_links ADD COLUMN release text;
ALTER TABLE project_links ADD COLUMN release_at timestamptz;
ALTER TABLE project_links ADD COLUMN synced_release text;
