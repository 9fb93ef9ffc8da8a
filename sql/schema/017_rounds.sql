-- 017_rounds.sql: a pair's runs taken in rounds on one box (issue 26,
-- docs/statistics.md "Rounds").  A round is one run of each of a few
-- commits of one series, run back to back on one box in a random order
-- (round_pos): a pair compares its base and head within each round, so
-- that what a box drifts by between rounds cancels out.  A box that
-- begins a round has its other runs pinned to it (jobs.box while
-- queued); a round cut short is measured again, all of it.  Every
-- value a run gives keeps its job (metric_values.jobs, in step with
-- vals), so that a pair finds the values of its own rounds; a row stored
-- before has NULL there, taken for as many unknown jobs as it has values.
ALTER TABLE jobs ADD COLUMN round bigint;
ALTER TABLE jobs ADD COLUMN round_pos int;
CREATE SEQUENCE rounds_id;
CREATE INDEX jobs_round ON jobs (round) WHERE round IS NOT NULL;
CREATE INDEX jobs_pinned ON jobs (box, round_pos, id)
	WHERE state = 'queued' AND box IS NOT NULL;
ALTER TABLE metric_values ADD COLUMN jobs bigint[];
-- The runs a side (rounds) a pair had asked for when it was last
-- compared: the look before the next, whose share of the false-alarm
-- budget the next one does not spend again (robot/analysis/decide.h).
ALTER TABLE pairs ADD COLUMN looked int NOT NULL DEFAULT 0;
