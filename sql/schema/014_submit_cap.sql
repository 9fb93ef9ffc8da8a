-- 014_submit_cap.sql: a submission may cap the runs per side that
-- analysis adds (robot submit --max-runs, the API's max_runs); NULL:
-- robotd's max_runs.  Its pairs take the cap.
ALTER TABLE submissions ADD COLUMN max_runs int;
