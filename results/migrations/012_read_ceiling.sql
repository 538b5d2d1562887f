-- Schema version 12: the read ceiling (docs/measurement.md, "The bandwidth ceiling"). A bandwidth row says what it
-- measured (kind 'copy': every byte read and written once; 'read': every byte read once), and a problem how many of
-- its least bytes are written (NULL where its family does not say: its ceiling is the copy's).
ALTER TABLE bandwidth ADD COLUMN kind TEXT NOT NULL DEFAULT 'copy';
ALTER TABLE problems ADD COLUMN min_written REAL;
