-- 023_commit_pages.sql: a commit's page (/commits/SHA, issue 29) finds
-- the runs and the pairs of one commit whatever their series (the
-- indexes of 003 lead with the series).
CREATE INDEX jobs_commit ON jobs (commit) WHERE commit IS NOT NULL;
CREATE INDEX pairs_head_only ON pairs (head);
CREATE INDEX pairs_base_only ON pairs (base);
