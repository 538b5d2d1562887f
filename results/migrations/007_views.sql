-- Schema version 7: views for the questions people ask the store with SQL (docs/store.md).
-- * latest_confirm: the latest confirmation-stage evaluation of each key (what decides a winner).
-- * results: every latest evaluation (search or confirm) joined with its device, problem, variant and
--   configuration, one readable row each; `problem_json` is the problem with its numeric attributes as
--   JSON numbers (problems.canonical keeps them as strings: it is the problem's identity).
-- * best_per_problem_device: the fastest ok row of each (problem, device), search and confirm stages apart.
-- * config_samples: every raw timed run of every evaluation, with what it measured.
-- * failures_by_status: failed evaluations counted by family, variant, device and status.
-- * run_summary: each run with its evaluation counts and time span.
CREATE VIEW latest_confirm AS
  SELECT e.* FROM evaluations e
  WHERE e.stage = 'confirm'
    AND e.id = (SELECT MAX(e2.id) FROM evaluations e2
                WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id
                  AND e2.variant_id = e.variant_id AND e2.config_id = e.config_id AND e2.stage = 'confirm');
CREATE VIEW results AS
  SELECT e.id AS evaluation_id, e.run_id, e.stage, p.family, p.canonical AS problem,
         (SELECT json_group_object(j.key, CASE WHEN j.type = 'text' AND j.value GLOB '[0-9]*'
                                                    AND NOT j.value GLOB '*[^0-9]*' AND length(j.value) < 16
                                               THEN CAST(j.value AS INTEGER) ELSE j.value END)
          FROM json_each(p.canonical) j) AS problem_json,
         p.width || 'x' || p.height AS size, p.channels, d.backend, d.name AS device, d.driver,
         v.name AS variant, v.baseline, c.canonical AS config, e.status, e.median_ms, e.ci_low_ms, e.ci_high_ms,
         e.min_ms, e.mean_ms, e.stddev_ms, e.method, e.flags, e.created_at
  FROM (SELECT * FROM latest UNION ALL SELECT * FROM latest_confirm) e
  JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
  JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id;
CREATE VIEW best_per_problem_device AS
  SELECT r.* FROM results r
  WHERE r.status = 'ok'
    AND r.evaluation_id = (SELECT r2.evaluation_id FROM results r2
                           WHERE r2.status = 'ok' AND r2.stage = r.stage AND r2.problem = r.problem
                             AND r2.backend = r.backend AND r2.device = r.device AND r2.driver = r.driver
                           ORDER BY r2.median_ms, r2.evaluation_id LIMIT 1);
CREATE VIEW config_samples AS
  SELECT e.id AS evaluation_id, e.run_id, e.stage, p.family, p.canonical AS problem, d.backend,
         d.name AS device, v.name AS variant, c.canonical AS config, s.seq, s.kernel_ms, s.wall_ms, s.comm_ms
  FROM samples s JOIN evaluations e ON e.id = s.evaluation_id
  JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
  JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id;
CREATE VIEW failures_by_status AS
  SELECT p.family, v.name AS variant, d.backend, d.name AS device, e.status, count(*) AS evaluations
  FROM latest e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
  JOIN variants v ON v.id = e.variant_id
  WHERE e.status <> 'ok'
  GROUP BY p.family, v.name, d.backend, d.name, e.status;
CREATE VIEW run_summary AS
  SELECT r.id AS run_id, r.host, r.started_at, r.git_commit, r.version, r.command_line,
         count(e.id) AS evaluations, sum(e.status = 'ok') AS ok, sum(e.status <> 'ok') AS failed,
         sum(e.stage = 'confirm') AS confirm, min(e.created_at) AS first_at, max(e.created_at) AS last_at
  FROM runs r LEFT JOIN evaluations e ON e.run_id = r.id
  GROUP BY r.id;
