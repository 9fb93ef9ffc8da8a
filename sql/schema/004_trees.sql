-- 004_trees.sql: trees the robot follows (DESIGN.md section 7).
--
-- A tree is a git repository: robotd keeps a bare mirror of it, fetches
-- it every poll interval (one robotd at a time: the fetch is claimed),
-- records its new commits and the heads of its watched branches, and
-- tests each new head against its base (the merge-base with the tree's
-- base ref).  A head that a force-push dropped has its queued runs
-- cancelled.  A run cancelled is a state of its own.

ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
	CHECK (state IN ('queued', 'leased', 'done', 'failed', 'cancelled'));
CREATE TABLE trees (
	name text PRIMARY KEY,
	url text NOT NULL,
	branches text[] NOT NULL,        -- globs of branch names
	base_ref text NOT NULL,          -- a ref, or a glob of tags: the newest
	jobs json NOT NULL,              -- [{"name", "text"}]: the job files
	tbox_groups text[] NOT NULL,
	runs int NOT NULL,               -- per side
	max_runs int NOT NULL,           -- per side, that analysis may ask for
	poll int NOT NULL,               -- seconds between fetches
	next_fetch timestamptz NOT NULL DEFAULT now(),
	fetching_until timestamptz,      -- a robotd fetches it until then
	fetched timestamptz,             -- the last good fetch
	fetch_error text,                -- the last fetch's, if it failed
	fetch_failures int NOT NULL DEFAULT 0,
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE tree_commits (
	tree text NOT NULL REFERENCES trees ON DELETE CASCADE,
	sha text NOT NULL,
	parents text[] NOT NULL,
	author text NOT NULL,
	date timestamptz NOT NULL,
	subject text NOT NULL,
	PRIMARY KEY (tree, sha)
);
CREATE TABLE tree_heads (
	tree text NOT NULL REFERENCES trees ON DELETE CASCADE,
	branch text NOT NULL,
	sha text NOT NULL,
	base text,                       -- the merge-base with the base ref
	updated timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tree, branch)
);
