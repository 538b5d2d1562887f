-- Schema version 5: how each number was measured, and room for every further measurement.
-- * evaluations: the status CHECK is dropped (statuses are validated by the code that writes them, so a
--   new status such as 'harness_error' or 'env_error' needs no table rebuild); `method` names the timing
--   method (e.g. "cuda-events spin cold-l2"), `ci_low_ms`/`ci_high_ms` the 95% confidence interval of the
--   median, `identity` the hash of everything that made the run (expanded plan, host-side build, the
--   family's reference version), `flags` what the environment observed (throttled, loaded, ...), and
--   `stage` whether the row comes from the search or from the confirmation stage.
-- * metrics: a generic per-evaluation measurement (name, unit, value; seq = the timed run, or -1 for a
--   value of the whole evaluation), so an observer needs no migration.
-- * bandwidth: the run that measured it, how, and on what working set.
-- * runs: the build id of the host-side code.
DROP VIEW latest;
CREATE TABLE evaluations_v5 (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  status TEXT NOT NULL,
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
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  method TEXT NOT NULL DEFAULT '',
  ci_low_ms REAL NOT NULL DEFAULT 0,
  ci_high_ms REAL NOT NULL DEFAULT 0,
  identity TEXT NOT NULL DEFAULT '',
  flags TEXT NOT NULL DEFAULT '',
  stage TEXT NOT NULL DEFAULT 'search'
);
INSERT INTO evaluations_v5 (id, run_id, device_id, problem_id, variant_id, config_id, status, log, validation,
  compile_ms, compile_cached, h2d_ms, d2h_ms, min_ms, median_ms, mean_ms, stddev_ms, eval_ms, created_at)
  SELECT id, run_id, device_id, problem_id, variant_id, config_id, status, log, validation,
  compile_ms, compile_cached, h2d_ms, d2h_ms, min_ms, median_ms, mean_ms, stddev_ms, eval_ms, created_at
  FROM evaluations;
DROP TABLE evaluations;
ALTER TABLE evaluations_v5 RENAME TO evaluations;
CREATE INDEX evaluations_key ON evaluations (device_id, problem_id, variant_id, config_id);
-- The latest search evaluation of each key (confirmation rows are read apart).
CREATE VIEW latest AS
  SELECT e.* FROM evaluations e
  WHERE e.id = (SELECT MAX(e2.id) FROM evaluations e2
                WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id
                  AND e2.variant_id = e.variant_id AND e2.config_id = e.config_id AND e2.stage = 'search')
    AND e.stage = 'search';
CREATE TABLE metrics (
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
  name TEXT NOT NULL,
  unit TEXT NOT NULL,
  seq INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (evaluation_id, name, seq)
) WITHOUT ROWID;
ALTER TABLE bandwidth ADD COLUMN run_id INTEGER REFERENCES runs(id);
ALTER TABLE bandwidth ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN build_id TEXT NOT NULL DEFAULT '';
