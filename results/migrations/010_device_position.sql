-- Schema version 10: the position each device had in its backend's device list when a tuner last saw it (the
-- index of `pimg-tune devices`, "opencl:0"), so that best_config() resolves the device ids the tool prints on the
-- machine that tuned. -1: not known (rows written before this version until a tuner sees the device again, and
-- imported results).
ALTER TABLE devices ADD COLUMN position INTEGER NOT NULL DEFAULT -1;
