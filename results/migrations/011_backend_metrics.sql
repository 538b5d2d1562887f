-- Schema version 11: a backend's own per-run measurements are metrics (issue 37), so that a new one needs no
-- column, wire field or migration. The MPI backend's communication times move from the samples' column of
-- version 4 to metrics named mpi.comm_ms (seq: the timed run); new rows leave that column at its default, 0.
INSERT OR IGNORE INTO metrics (evaluation_id, name, unit, seq, value)
  SELECT evaluation_id, 'mpi.comm_ms', 'ms', seq, comm_ms FROM samples WHERE comm_ms != 0;
