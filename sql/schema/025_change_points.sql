-- 025_change_points.sql: regressions found as change points of a
-- branch's history (issue 30; robot/analysis/changes.c), beside those a
-- pair found.  A change point's record is a regression (kind) found by
-- 'change point', with the segments on either side of it (history:
-- {index, points, before, after}, each segment {from, to, runs, mean});
-- its base is the history's point before it, so that its bisection runs
-- between its neighbouring points.
ALTER TABLE regressions ADD COLUMN found_by text NOT NULL DEFAULT 'pair'
	CHECK (found_by IN ('pair', 'change point'));
ALTER TABLE regressions ADD COLUMN history json;
