-- Schema version 4: per-run communication time (MPI backends: the part of kernel_ms spent in
-- scatters, halo exchanges and gathers; 0 for single-process backends).
ALTER TABLE samples ADD COLUMN comm_ms REAL NOT NULL DEFAULT 0;
