-- Schema version 8: ladders (docs/spaces.md "ladder"). A ladder step's evaluation is an ordinary
-- evaluations row with stage 'ladder' (so rankings, which read the 'search' and 'confirm' stages, never
-- see it); this table says which ladder and step it measured, and the step's place in the ladder.
CREATE TABLE ladder_steps (
  evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id),
  ladder TEXT NOT NULL,
  seq INTEGER NOT NULL,
  step TEXT NOT NULL
);
CREATE INDEX ladder_steps_by_ladder ON ladder_steps(ladder, seq);
