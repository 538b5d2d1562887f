-- Schema version 2: whether a variant is a baseline (the serial reference or a vendor/library
-- implementation such as OpenCV or NPP) rather than a tuned kernel; reports show baselines apart.
ALTER TABLE variants ADD COLUMN baseline INTEGER NOT NULL DEFAULT 0;
UPDATE variants SET baseline = 1 WHERE backend = 'host';
