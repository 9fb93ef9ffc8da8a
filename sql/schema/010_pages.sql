-- 010_pages.sql: what the web pages show (DESIGN.md section 9,
-- docs/web.md), each one query, and the same JSON as the page's twin in
-- the API.  Every read is bounded (a limit, or one series) and walks an
-- index: docs/web.md has the plans.

-- The newest regressions by commit.
CREATE INDEX regressions_newest ON regressions (id DESC);
-- A series' runs over time (the history's commit order, its queue).
CREATE INDEX jobs_series_created ON jobs (series, created);

-- /api/status and the lab page: the counts by state through the state
-- indexes (the queue of 003 counted every row of jobs and pairs with a
-- scan of each table, 150 ms a call at 100,000 runs), the newest
-- failures through the failed ones only.
CREATE INDEX pairs_state ON pairs (state);
