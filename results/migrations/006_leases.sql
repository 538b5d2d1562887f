-- Schema version 6: leases, so that tuners sharing one database measure no configuration twice. A
-- tuner claims (device, problem, variant, configuration) before measuring it and drops the claim
-- when the evaluation is stored. A claim whose owner is gone (its pid no longer runs on its host, or
-- it started at another time: a reused pid) or older than the lease time is taken over.
CREATE TABLE leases (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  config_hash TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pid_start TEXT NOT NULL,
  claimed_at REAL NOT NULL,
  PRIMARY KEY (device_id, problem_id, variant_id, config_hash)
);
