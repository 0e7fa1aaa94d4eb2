-- The node that currently runs the schedulers (one row).
CREATE TABLE scheduler_leader (
  id int PRIMARY KEY CHECK (id = 1),
  node text NOT NULL,
  since timestamptz NOT NULL
);
