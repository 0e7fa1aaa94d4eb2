-- The schema level: raised by a migration that builds from before it cannot write against (the partitioning of
-- 20261124T2000–2002 is level 2: older builds' inserts name unique keys the partitioned tables no longer have). A
-- node whose build knows a lower level refuses to start and says why (core/db/migrate.ts), instead of serving and
-- failing its writes. Additive migrations leave it alone (docs/deployment.md, "Upgrades").
CREATE TABLE schema_level (
  id int PRIMARY KEY CHECK (id = 1),
  level int NOT NULL
);
INSERT INTO schema_level VALUES (1, 2);
