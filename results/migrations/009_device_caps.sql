-- Schema version 9: what each device is (DeviceCaps::stored(): the names of its flags that are set, such as
-- host_cores, space-separated, or "none"), so that reports decide by capabilities instead of backend names.
-- Rows written before this version keep '' (not known) until a tuner sees the device again.
ALTER TABLE devices ADD COLUMN caps TEXT NOT NULL DEFAULT '';
