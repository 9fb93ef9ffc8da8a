-- 020_bisection_indexes.sql: a bisection's runs are found through its
-- pairs (pairs.bisection) and their runs (jobs.pair).  Neither was
-- indexed: robot_bisections() read every run for each bisection listed,
-- 2.1 s for 206 bisections over 100,000 runs (34 ms with these).
CREATE INDEX jobs_pair ON jobs (pair) WHERE pair IS NOT NULL;
CREATE INDEX pairs_bisection ON pairs (bisection) WHERE bisection IS NOT NULL;
