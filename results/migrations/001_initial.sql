-- Schema version 1: runs, devices, problems, variants, configurations, evaluations and their raw
-- samples, and measured device bandwidth. Rows are never updated; a re-measurement adds a row.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  host TEXT NOT NULL,
  started_at TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  command_line TEXT NOT NULL,
  version TEXT NOT NULL
);
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  backend TEXT NOT NULL,
  name TEXT NOT NULL,
  vendor TEXT NOT NULL,
  driver TEXT NOT NULL,
  platform TEXT NOT NULL,
  compute_units INTEGER NOT NULL,
  global_mem_bytes INTEGER NOT NULL,
  local_mem_bytes INTEGER NOT NULL,
  max_work_group_size INTEGER NOT NULL,
  UNIQUE (backend, name, driver, platform)
);
CREATE TABLE problems (
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  canonical TEXT NOT NULL UNIQUE,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  channels INTEGER NOT NULL,
  work REAL NOT NULL,
  unit TEXT NOT NULL,
  min_bytes REAL NOT NULL,
  min_ops REAL NOT NULL
);
CREATE TABLE variants (
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  name TEXT NOT NULL,
  backend TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  UNIQUE (family, name, backend, source_hash)
);
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  canonical TEXT NOT NULL
);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  status TEXT NOT NULL CHECK (status IN ('ok','compile_error','launch_error','timeout','wrong_result')),
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
CREATE INDEX evaluations_key ON evaluations (device_id, problem_id, variant_id, config_id);
CREATE TABLE samples (
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
  seq INTEGER NOT NULL,
  kernel_ms REAL NOT NULL,
  wall_ms REAL NOT NULL,
  PRIMARY KEY (evaluation_id, seq)
) WITHOUT ROWID;
CREATE TABLE bandwidth (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  bytes REAL NOT NULL,
  gbs REAL NOT NULL,
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
-- The latest evaluation of each key: what queries and reports read.
CREATE VIEW latest AS
  SELECT e.* FROM evaluations e
  WHERE e.id = (SELECT MAX(e2.id) FROM evaluations e2
                WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id
                  AND e2.variant_id = e.variant_id AND e2.config_id = e.config_id);
