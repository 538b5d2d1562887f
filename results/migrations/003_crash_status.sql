-- Schema version 3: the status 'crash' (the worker process running the evaluation died: a
-- segfault, an abort, out of memory). SQLite cannot alter a CHECK constraint, so the evaluations
-- table is rebuilt (https://www.sqlite.org/lang_altertable.html, "other kinds of table schema
-- changes"); the store turns foreign keys off around migrations and checks them before commit.
DROP VIEW latest;
CREATE TABLE evaluations_v3 (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  status TEXT NOT NULL CHECK (status IN ('ok','compile_error','launch_error','timeout','wrong_result','crash')),
  log TEXT NOT NULL,
  validation TEXT NOT NULL,
  compile_ms REAL NOT NULL,
  compile_cached INTEGER NOT NULL,
  h2d_ms REAL NOT NULL,
  d2h_ms REAL NOT NULL,
  min_ms REAL NOT NULL,
  median_ms REAL NOT NULL,
  mean_ms REAL NOT NULL,
  stddev_ms REAL NOT NULL,
  eval_ms REAL NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
INSERT INTO evaluations_v3 SELECT * FROM evaluations;
DROP TABLE evaluations;
ALTER TABLE evaluations_v3 RENAME TO evaluations;
CREATE INDEX evaluations_key ON evaluations (device_id, problem_id, variant_id, config_id);
CREATE VIEW latest AS
  SELECT e.* FROM evaluations e
  WHERE e.id = (SELECT MAX(e2.id) FROM evaluations e2
                WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id
                  AND e2.variant_id = e.variant_id AND e2.config_id = e.config_id);
