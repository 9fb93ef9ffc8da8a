-- 001_init.sql: the robot's state (DESIGN.md section 2: PostgreSQL is the
-- only state).  Every change of a job, lease or box happens inside one of
-- the robot_* functions below, each one transaction, so that several
-- robotd instances on one database never disagree: jobs are claimed with
-- FOR UPDATE SKIP LOCKED, and pg_notify('robot_jobs', tbox_group) wakes
-- the boxes waiting for work in every instance.
--
-- Errors the API turns into HTTP answers carry SQLSTATE codes of class
-- RB: RB400 bad request, RB403 forbidden, RB404 not found, RB409 conflict.

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

-- Why a box with these facts cannot run a job with these needs, or NULL
-- when it can.  Needs (jobs/needs.c): ram (bytes of RAM disks), hdd and
-- ssd (partitions), fs (a filesystem to make), fs2 and md (never
-- supported).  Facts: ram_disk_limit, hdd, ssd, fs (the mkfs it has).
CREATE FUNCTION robot_unfit(n jsonb, f jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
	WHEN coalesce((n->>'ram')::numeric, 0) >
	     coalesce((f->>'ram_disk_limit')::numeric, 0)
		THEN format('needs %s bytes of RAM disks, allows %s',
			n->>'ram', coalesce(f->>'ram_disk_limit', '0'))
	WHEN coalesce((n->>'hdd')::int, 0) > coalesce((f->>'hdd')::int, 0)
		THEN format('needs %s HDD partitions, has %s', n->>'hdd',
			coalesce(f->>'hdd', '0'))
	WHEN coalesce((n->>'ssd')::int, 0) > coalesce((f->>'ssd')::int, 0)
		THEN format('needs %s SSD partitions, has %s', n->>'ssd',
			coalesce(f->>'ssd', '0'))
	WHEN n->>'fs' IS NOT NULL AND
	     NOT coalesce(f->'fs' ? (n->>'fs'), false)
		THEN format('cannot make %s filesystems', n->>'fs')
	WHEN coalesce((n->>'fs2')::boolean, false)
		THEN 'cannot export filesystems (fs2)'
	WHEN coalesce((n->>'md')::boolean, false)
		THEN 'cannot assemble md RAID'
	END
$$;

-- A box (re)registers: its facts, and the leases it held before a restart
-- go back to the queue at once instead of at their deadline.
CREATE FUNCTION robot_register(p_box text, p_group text, p_facts jsonb)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	st text;
BEGIN
	INSERT INTO boxes (name, tbox_group, facts)
		VALUES (p_box, p_group, p_facts)
	ON CONFLICT (name) DO UPDATE
		SET tbox_group = p_group, facts = p_facts, last_seen = now(),
		state = CASE WHEN boxes.state = 'busy' THEN 'idle'
			ELSE boxes.state END
		RETURNING state INTO st;
	FOR r IN UPDATE leases SET state = 'expired'
		WHERE box = p_box AND state = 'active' RETURNING job LOOP
		UPDATE jobs SET state = CASE WHEN attempts >= max_attempts
			THEN 'failed' ELSE 'queued' END,
			error = CASE WHEN attempts >= max_attempts
			THEN format('%s restarted during its attempt %s', p_box,
				attempts) ELSE error END,
			box = NULL, updated = now()
			WHERE id = r.job AND state = 'leased';
		PERFORM pg_notify('robot_jobs', p_group);
	END LOOP;
	RETURN st;
END $$;

-- The next job for a box: its group's, highest priority first, then
-- oldest, among those it can run.  When there is none, one row with only
-- the box's group (the long-poll waits on it).
-- The queue is read in the order of its index (jobs_queue), whatever the
-- statistics say: a sort of every queued job of the group, which a plan
-- made on stale counts picks, costs a thousand times more.
CREATE FUNCTION robot_claim(p_box text, p_seconds int)
RETURNS TABLE (lease bigint, deadline timestamptz, job_id bigint, key text,
	commit text, tree text, job json, run int, runs int, attempts int,
	tbox_group text)
LANGUAGE plpgsql SET enable_sort = off SET enable_bitmapscan = off AS $$
#variable_conflict use_column
DECLARE
	b boxes;
	j jobs;
	l leases;
BEGIN
	SELECT * INTO b FROM boxes WHERE name = p_box FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'box % is not registered', p_box
			USING ERRCODE = 'RB404';
	END IF;
	IF b.state = 'broken' THEN
		RAISE EXCEPTION 'box % is broken after % failed jobs in a row; an operator must reset it',
			p_box, b.failures USING ERRCODE = 'RB409';
	END IF;
	SELECT * INTO j FROM jobs
		WHERE state = 'queued' AND tbox_group = b.tbox_group
			AND robot_unfit(needs, b.facts) IS NULL
		ORDER BY priority DESC, id LIMIT 1
		FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		UPDATE boxes SET last_seen = now() WHERE name = p_box;
		RETURN QUERY SELECT NULL::bigint, NULL::timestamptz,
			NULL::bigint, NULL::text, NULL::text, NULL::text,
			NULL::json, NULL::int, NULL::int, NULL::int,
			b.tbox_group;
		RETURN;
	END IF;
	UPDATE jobs SET state = 'leased', attempts = jobs.attempts + 1,
		box = p_box, updated = now() WHERE id = j.id;
	INSERT INTO leases (job, box, deadline)
		VALUES (j.id, p_box, now() + make_interval(secs => p_seconds))
		RETURNING * INTO l;
	UPDATE boxes SET state = 'busy', last_seen = now() WHERE name = p_box;
	RETURN QUERY SELECT l.id, l.deadline, j.id, j.key, j.commit, j.tree,
		j.job, j.run, j.runs, j.attempts + 1, j.tbox_group;
END $$;

-- A lease robotd could not deliver (the box hung up while it waited):
-- the job goes back at once, and the attempt does not count.
CREATE FUNCTION robot_release(p_lease bigint) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	l leases;
	grp text;
BEGIN
	UPDATE leases SET state = 'released'
		WHERE id = p_lease AND state = 'active' RETURNING * INTO l;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0),
		box = NULL, updated = now()
		WHERE id = l.job AND state = 'leased'
		RETURNING tbox_group INTO grp;
	UPDATE boxes SET state = 'idle' WHERE name = l.box AND state = 'busy';
	IF grp IS NOT NULL THEN
		PERFORM pg_notify('robot_jobs', grp);
	END IF;
END $$;

-- A box's lease, locked; an error unless it exists and is the box's.
CREATE FUNCTION robot_own_lease(p_lease bigint, p_box text)
RETURNS leases LANGUAGE plpgsql AS $$
DECLARE
	l leases;
BEGIN
	SELECT * INTO l FROM leases WHERE id = p_lease FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no lease %', p_lease USING ERRCODE = 'RB404';
	END IF;
	IF l.box <> p_box THEN
		RAISE EXCEPTION 'lease % is not yours', p_lease
			USING ERRCODE = 'RB403';
	END IF;
	RETURN l;
END $$;

CREATE FUNCTION robot_heartbeat(p_lease bigint, p_box text, p_seconds int)
RETURNS timestamptz LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	l leases;
BEGIN
	l := robot_own_lease(p_lease, p_box);
	IF l.state <> 'active' OR l.deadline < now() THEN
		RAISE EXCEPTION 'lease % has expired', p_lease
			USING ERRCODE = 'RB409';
	END IF;
	UPDATE leases SET deadline = now() + make_interval(secs => p_seconds)
		WHERE id = p_lease RETURNING deadline INTO l.deadline;
	UPDATE boxes SET last_seen = now() WHERE name = p_box;
	RETURN l.deadline;
END $$;

-- A box's result for its lease.  'stored', 'duplicate' (stored before),
-- or 'requeued' (an incomplete run: the box gave the job back).
CREATE FUNCTION robot_upload(p_lease bigint, p_box text, p_key text,
	p_status text, p_error text, p_doc json, p_broken_after int)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	l leases;
	j jobs;
BEGIN
	l := robot_own_lease(p_lease, p_box);
	IF EXISTS (SELECT 1 FROM results WHERE lease = p_lease) THEN
		RETURN 'duplicate';
	END IF;
	IF l.state <> 'active' OR l.deadline < now() THEN
		RAISE EXCEPTION 'lease % has expired: the job went back to the queue',
			p_lease USING ERRCODE = 'RB409';
	END IF;
	SELECT * INTO j FROM jobs WHERE id = l.job FOR UPDATE;
	IF j.key <> p_key THEN
		RAISE EXCEPTION 'the result is of %, the lease of %', p_key, j.key
			USING ERRCODE = 'RB400';
	END IF;
	UPDATE leases SET state = 'done' WHERE id = p_lease;
	IF p_status = 'incomplete' THEN
		UPDATE jobs SET state = CASE WHEN attempts >= max_attempts
			THEN 'failed' ELSE 'queued' END,
			error = p_error, box = NULL, updated = now()
			WHERE id = j.id;
		UPDATE boxes SET state = 'idle' WHERE name = p_box;
		PERFORM pg_notify('robot_jobs', j.tbox_group);
		RETURN 'requeued';
	END IF;
	INSERT INTO results (job, lease, series, commit, status, doc)
		VALUES (j.id, p_lease, j.series, j.commit, p_status, p_doc);
	UPDATE jobs SET state = CASE WHEN p_status = 'ok' THEN 'done'
		ELSE 'failed' END, error = p_error, updated = now()
		WHERE id = j.id;
	UPDATE boxes SET failures = CASE WHEN p_status = 'ok' THEN 0
		ELSE failures + 1 END, last_seen = now(),
		state = CASE WHEN p_status <> 'ok' AND
			failures + 1 >= p_broken_after THEN 'broken'
			ELSE 'idle' END
		WHERE name = p_box;
	RETURN 'stored';
END $$;

-- Leases past their deadline: the job goes back to the queue with its
-- attempt counted, or fails after max_attempts.  Returns how many.
CREATE FUNCTION robot_expire() RETURNS int LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	n int := 0;
	grp text;
BEGIN
	FOR r IN UPDATE leases SET state = 'expired'
		WHERE state = 'active' AND deadline < now()
		RETURNING job, box LOOP
		UPDATE jobs SET state = CASE WHEN attempts >= max_attempts
			THEN 'failed' ELSE 'queued' END,
			error = CASE WHEN attempts >= max_attempts
			THEN format('the lease expired %s times (last on %s)',
				attempts, r.box) ELSE error END,
			box = NULL, updated = now()
			WHERE id = r.job AND state = 'leased'
			RETURNING tbox_group INTO grp;
		UPDATE boxes SET state = 'idle'
			WHERE name = r.box AND state = 'busy';
		IF grp IS NOT NULL THEN
			PERFORM pg_notify('robot_jobs', grp);
		END IF;
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;

-- A submission: the runs of its atomic jobs, given as a JSON array of
-- {key, tbox_group, commit, tree, job, needs, run, runs, priority,
-- max_attempts}.  A job that no registered box of its group can run is
-- refused (RB400, one line per job and box); a group without boxes yet
-- keeps its jobs queued.
CREATE FUNCTION robot_submit(p_submitter text, p_file text, p_body text,
	p_jobs json)
RETURNS TABLE (id bigint, key text, commit text, run int, series text,
	submission bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	sub bigint;
	grp text;
	why text;
BEGIN
	SELECT string_agg(format('%s on %s: %s', x.key, b.name,
			robot_unfit(x.needs, b.facts)), E'\n'
			ORDER BY x.key, b.name)
		INTO why
		FROM (SELECT DISTINCT y.key, y.tbox_group, y.needs
			FROM json_to_recordset(p_jobs) AS y(key text,
				tbox_group text, needs jsonb)) x
		JOIN boxes b ON b.tbox_group = x.tbox_group
		WHERE NOT EXISTS (SELECT 1 FROM boxes c
			WHERE c.tbox_group = x.tbox_group
			AND robot_unfit(x.needs, c.facts) IS NULL);
	IF why IS NOT NULL THEN
		RAISE EXCEPTION 'no box can run these jobs'
			USING ERRCODE = 'RB400', DETAIL = why;
	END IF;
	INSERT INTO submissions (submitter, file_name, body)
		VALUES (p_submitter, p_file, p_body) RETURNING submissions.id
		INTO sub;
	RETURN QUERY INSERT INTO jobs (submission, key, tbox_group, series,
		commit, tree, job, needs, run, runs, priority, max_attempts)
		SELECT sub, x.key, x.tbox_group, x.key || '/' || x.tbox_group,
			x.commit, x.tree, x.job, coalesce(x.needs, '{}'), x.run,
			x.runs, x.priority, x.max_attempts
		FROM json_to_recordset(p_jobs) AS x(key text,
			tbox_group text, commit text, tree text, job json,
			needs jsonb, run int, runs int, priority int,
			max_attempts int)
		RETURNING jobs.id, jobs.key, jobs.commit, jobs.run,
			jobs.series, jobs.submission;
	FOR grp IN SELECT DISTINCT x.tbox_group
		FROM json_to_recordset(p_jobs) AS x(tbox_group text) LOOP
		PERFORM pg_notify('robot_jobs', grp);
	END LOOP;
END $$;

-- An operator puts a broken box back to work.
CREATE FUNCTION robot_reset(p_box text) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	st text;
BEGIN
	UPDATE boxes SET state = 'idle', failures = 0 WHERE name = p_box
		RETURNING state INTO st;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no box %', p_box USING ERRCODE = 'RB404';
	END IF;
	PERFORM pg_notify('robot_jobs', (SELECT tbox_group FROM boxes
		WHERE name = p_box));
	RETURN st;
END $$;
