-- 024_job_counts.sql: the jobs in each state, kept as they change
-- (issue 28: /api/status counted 100,000 jobs at every call, 14 ms of
-- its time on a quiet robotd).  Rows are added, never updated, so that
-- no two writers wait on one row: a state's count is the sum of its
-- rows.  The triggers that add them are jobs_counted
-- (sql/functions/jobs.sql); robot_job_counts_fold(), from the janitor's
-- sweep, folds the rows of each state into one.
CREATE TABLE job_counts (
	state text NOT NULL,
	n bigint NOT NULL
);
INSERT INTO job_counts (state, n)
	SELECT state, count(*) FROM jobs GROUP BY state;
