-- 029_measured.sql: what was mailed stays as mailed (issue 55).  A
-- reported regression's pair measured again (more rounds, a
-- reproduction's runs) leaves the record's figures as its report gave
-- them, and is an event of its own, "measured", with the new figures,
-- the runs a side, and the newest submission whose runs it read.
ALTER TABLE regression_events DROP CONSTRAINT regression_events_kind_check;
ALTER TABLE regression_events ADD CONSTRAINT regression_events_kind_check
	CHECK (kind IN ('still', 'fixed', 'bisected', 'measured'));
ALTER TABLE regression_events ADD COLUMN base_runs int;
ALTER TABLE regression_events ADD COLUMN head_runs int;
ALTER TABLE regression_events ADD COLUMN submission bigint;
