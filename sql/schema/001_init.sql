-- 001_init.sql: the robot's state (DESIGN.md section 2: PostgreSQL is the
-- only state): tokens, boxes, submissions, jobs, their leases and
-- results.  Every change of a job, lease or box happens inside one of the
-- robot_* functions of sql/functions/, each one transaction, so that
-- several robotd instances on one database never disagree.

CREATE TABLE tokens (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('submit', 'box', 'admin')),
	name text NOT NULL,
	hash bytea NOT NULL UNIQUE,      -- sha256 of the token; never the token
	created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE boxes (
	name text PRIMARY KEY,
	tbox_group text NOT NULL,
	facts jsonb NOT NULL DEFAULT '{}',
	state text NOT NULL DEFAULT 'idle'
		CHECK (state IN ('idle', 'busy', 'broken')),
	failures int NOT NULL DEFAULT 0, -- failed jobs in a row
	last_seen timestamptz NOT NULL DEFAULT now(),
	registered timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE submissions (
	id bigserial PRIMARY KEY,
	submitter text NOT NULL,
	file_name text,
	body text NOT NULL,
	created timestamptz NOT NULL DEFAULT now()
);

-- One row per run: an atomic job at one commit, one of its repeats.
CREATE TABLE jobs (
	id bigserial PRIMARY KEY,
	submission bigint NOT NULL REFERENCES submissions,
	key text NOT NULL,
	tbox_group text NOT NULL,
	series text NOT NULL,            -- key/tbox_group
	commit text,
	tree text,
	job json NOT NULL,               -- the atomic job (key order kept)
	needs jsonb NOT NULL DEFAULT '{}', -- see robot_unfit()
	run int NOT NULL DEFAULT 1,
	runs int NOT NULL DEFAULT 1,
	priority int NOT NULL DEFAULT 0,
	state text NOT NULL DEFAULT 'queued'
		CHECK (state IN ('queued', 'leased', 'done', 'failed')),
	attempts int NOT NULL DEFAULT 0,
	max_attempts int NOT NULL DEFAULT 3,
	box text,
	error text,
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_queue ON jobs (tbox_group, priority DESC, id)
	WHERE state = 'queued';
CREATE INDEX jobs_state ON jobs (state, id);
CREATE INDEX jobs_series ON jobs (series, commit);
-- Every run passes through queued, leased and done: vacuum and analyze
-- the queue often, or the claim walks dead index entries and plans with
-- stale counts.
ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0.02,
	autovacuum_analyze_scale_factor = 0.02);
CREATE TABLE leases (
	id bigserial PRIMARY KEY,
	job bigint NOT NULL REFERENCES jobs,
	box text NOT NULL REFERENCES boxes,
	state text NOT NULL DEFAULT 'active'
		CHECK (state IN ('active', 'done', 'expired', 'released')),
	deadline timestamptz NOT NULL,
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leases_active ON leases (deadline) WHERE state = 'active';
CREATE INDEX leases_box ON leases (box) WHERE state = 'active';
CREATE INDEX leases_job ON leases (job);
ALTER TABLE leases SET (autovacuum_vacuum_scale_factor = 0.02,
	autovacuum_analyze_scale_factor = 0.02);

-- One result document per run, ever: the UNIQUE job makes a repeated
-- upload harmless.
CREATE TABLE results (
	id bigserial PRIMARY KEY,
	job bigint NOT NULL UNIQUE REFERENCES jobs,
	lease bigint NOT NULL UNIQUE REFERENCES leases,
	series text NOT NULL,
	commit text,
	status text NOT NULL,
	doc json NOT NULL,               -- as uploaded (key order kept)
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX results_series ON results (series, commit);
