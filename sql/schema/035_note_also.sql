-- 035_note_also.sql: the other series a noisy box was too noisy for on
-- the day of its note.  The operators are told once a day per box, not
-- once per series (issue 61: a matrix of 30 jobs on a noisy box mailed
-- them 30 times at once); the note names the others.
ALTER TABLE lab_notes ADD COLUMN also text[] NOT NULL DEFAULT '{}';
