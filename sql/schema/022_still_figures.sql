-- 022_still_figures.sql: a later head that still shows a regression no
-- longer rewrites it (issue 29, item 4).  The record keeps the change, p
-- and runs of the commit it was found at, which its chart, commit and
-- report show; what the latest head showed goes beside them (last_*),
-- and each "still there" event keeps the figures of its head, which its
-- follow-up mail tells.
ALTER TABLE regressions ADD COLUMN last_change_pct float8;
ALTER TABLE regressions ADD COLUMN last_p_value float8;
ALTER TABLE regressions ADD COLUMN last_runs int;
ALTER TABLE regression_events ADD COLUMN change_pct float8;
ALTER TABLE regression_events ADD COLUMN p_value float8;
ALTER TABLE regression_events ADD COLUMN runs int;
