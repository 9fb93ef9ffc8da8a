-- jobs.sql: the queue of runs: what a box can run, submissions, cancels.

-- The number at key in facts when it is a non-negative number, else 0.
CREATE FUNCTION robot_fact_num(f jsonb, key text) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN jsonb_typeof(f->key) = 'number'
		AND (f->>key)::numeric >= 0 THEN (f->>key)::numeric ELSE 0 END
$$;

-- n bytes: the largest unit (K, M, G, T, P, E) that divides it, else B.
CREATE FUNCTION robot_size(n numeric) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	units text[] := ARRAY['K', 'M', 'G', 'T', 'P', 'E'];
	u int := 0;
BEGIN
	IF n IS NULL THEN
		RETURN NULL;
	END IF;
	WHILE n <> 0 AND mod(n, 1024) = 0 AND u < 6 LOOP
		n := div(n, 1024);
		u := u + 1;
	END LOOP;
	RETURN trunc(n)::text || CASE WHEN u = 0 THEN 'B' ELSE units[u] END;
END $$;

-- Why a box with facts f cannot run a job with needs n, or NULL when it
-- can.  Needs (jobs/needs.c): ram (bytes of RAM disks), hdd and ssd
-- (partitions), fs (a filesystem to make), fs2 and md (never supported).
-- Facts: ram_disk_limit, hdd, ssd, fs (the mkfs it has), read without
-- casts that fail (facts from another robotd must not make every submit
-- to their group fail); sizes as the job files write them.
CREATE FUNCTION robot_unfit(n jsonb, f jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
	WHEN robot_fact_num(n, 'ram') > robot_fact_num(f, 'ram_disk_limit')
		THEN format('needs %s of RAM disks, allows %s',
			robot_size(robot_fact_num(n, 'ram')),
			robot_size(robot_fact_num(f, 'ram_disk_limit')))
	WHEN robot_fact_num(n, 'hdd') > robot_fact_num(f, 'hdd')
		THEN format('needs %s HDD partitions, has %s',
			robot_fact_num(n, 'hdd'), robot_fact_num(f, 'hdd'))
	WHEN robot_fact_num(n, 'ssd') > robot_fact_num(f, 'ssd')
		THEN format('needs %s SSD partitions, has %s',
			robot_fact_num(n, 'ssd'), robot_fact_num(f, 'ssd'))
	WHEN n->>'fs' IS NOT NULL AND NOT (jsonb_typeof(f->'fs') = 'array'
		AND f->'fs' ? (n->>'fs'))
		THEN format('cannot make %s filesystems', n->>'fs')
	WHEN n->'fs2' = 'true'::jsonb
		THEN 'cannot export filesystems (fs2)'
	WHEN n->'md' = 'true'::jsonb
		THEN 'cannot assemble md RAID'
	END
$$;

-- The runs of submission p_sub in rounds (017_rounds.sql): the runs of
-- one series with one run number at two or more commits are a round, in
-- a random order.
CREATE FUNCTION robot_rounds_form(p_sub bigint) RETURNS void
LANGUAGE sql AS $$
	WITH g AS (SELECT j.series, j.run, nextval('rounds_id') AS round
		FROM jobs j WHERE j.submission = p_sub
		AND j.commit IS NOT NULL AND j.round IS NULL
		GROUP BY j.series, j.run HAVING count(DISTINCT j.commit) > 1),
	o AS (SELECT j.id, g.round, row_number() OVER (PARTITION BY g.round
		ORDER BY random()) AS pos
		FROM jobs j JOIN g ON g.series = j.series AND g.run = j.run
		WHERE j.submission = p_sub AND j.commit IS NOT NULL
		AND j.round IS NULL)
	UPDATE jobs SET round = o.round, round_pos = o.pos FROM o
		WHERE jobs.id = o.id
$$;

-- A run of round p_round went back to the queue, or failed for good:
-- none of the round stays pinned to its box.  When it went back
-- (p_again), the round is measured again, all of it, wherever it is
-- taken: its runs that ended or still run leave it (they stay, for
-- history) and copies of them are queued in their places.
CREATE FUNCTION robot_round_again(p_round bigint, p_again boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	j jobs;
BEGIN
	IF p_round IS NULL THEN
		RETURN;
	END IF;
	IF p_again THEN
		FOR j IN SELECT * FROM jobs WHERE round = p_round
			AND state IN ('done', 'failed', 'leased') ORDER BY id
			FOR UPDATE
		LOOP
			UPDATE jobs SET round = NULL, round_pos = NULL
				WHERE id = j.id;
			INSERT INTO jobs (submission, key, tbox_group, series,
				commit, tree, job, needs, run, runs, priority,
				max_attempts, pair, round, round_pos)
			VALUES (j.submission, j.key, j.tbox_group, j.series,
				j.commit, j.tree, j.job, j.needs, j.run, j.runs,
				j.priority, j.max_attempts, j.pair, j.round,
				j.round_pos);
		END LOOP;
	END IF;
	UPDATE jobs SET box = NULL WHERE round = p_round AND state = 'queued'
		AND box IS NOT NULL;
END $$;

-- Rounds pinned to a box that holds no lease and has asked for nothing
-- for a minute (it died between two runs of a round, or it keeps
-- registering without asking for work): measured again elsewhere.  A
-- run pinned outside a round (a reference run, robot_reference_due())
-- is of no use elsewhere: cancelled.  Returns how many rounds.
CREATE FUNCTION robot_box_idle(b boxes) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT coalesce(b.last_asked, b.last_seen) < now() - interval '60 seconds'
		AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.box = b.name
			AND l.state = 'active')
$$;
CREATE FUNCTION robot_rounds_orphaned() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	r bigint;
	n int := 0;
BEGIN
	UPDATE jobs j SET state = 'cancelled', updated = now(),
		error = format('%s asked for no work for a minute', j.box)
		FROM boxes b WHERE b.name = j.box AND j.state = 'queued'
		AND j.round IS NULL AND robot_box_idle(b);
	FOR r IN SELECT DISTINCT j.round FROM jobs j JOIN boxes b
		ON b.name = j.box
		WHERE j.state = 'queued' AND j.box IS NOT NULL
		AND j.round IS NOT NULL AND robot_box_idle(b) LOOP
		PERFORM robot_round_again(r, true);
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;

-- A submission: the runs of its atomic jobs, given as a JSON array of
-- {key, tbox_group, commit, tree, job, needs, run, runs, priority,
-- max_attempts}, whose analysis adds runs up to p_max_runs a side (NULL:
-- robotd's max_runs).  A job that no registered box of its group can run is
-- refused (RB400, one line per job and box); a group without boxes yet
-- keeps its jobs queued.
CREATE FUNCTION robot_submit(p_submitter text, p_file text, p_body text,
	p_jobs json, p_max_runs int DEFAULT NULL)
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
	INSERT INTO submissions (submitter, file_name, body, max_runs)
		VALUES (p_submitter, p_file, p_body, p_max_runs)
		RETURNING submissions.id INTO sub;
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
	PERFORM robot_rounds_form(sub);
	FOR grp IN SELECT DISTINCT x.tbox_group
		FROM json_to_recordset(p_jobs) AS x(tbox_group text) LOOP
		PERFORM pg_notify('robot_jobs', grp);
	END LOOP;
END $$;

-- Queued runs cancelled by a person: by job, submission or series.
-- An admin (p_admin) cancels any; anyone else only the runs of their
-- own submissions (submitter p_by): a tree's runs, or another's, are
-- left, and when that is all the runs named, refused.
CREATE FUNCTION robot_cancel(p_job bigint, p_submission bigint,
	p_series text, p_by text, p_admin boolean DEFAULT true) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	n int;
	others int;
BEGIN
	UPDATE jobs SET state = 'cancelled', updated = now(),
		error = format('cancelled by %s', p_by)
		WHERE state = 'queued'
		AND (p_job IS NULL OR id = p_job)
		AND (p_submission IS NULL OR submission = p_submission)
		AND (p_series IS NULL OR series = p_series)
		AND (p_admin OR submission IN (SELECT id FROM submissions
			WHERE submitter = p_by));
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 0 AND NOT p_admin THEN
		SELECT count(*) INTO others FROM jobs WHERE state = 'queued'
			AND (p_job IS NULL OR id = p_job)
			AND (p_submission IS NULL OR submission = p_submission)
			AND (p_series IS NULL OR series = p_series);
		IF others > 0 THEN
			RAISE EXCEPTION 'the % queued runs named are not yours: only their submitter or an admin may cancel them',
				others USING ERRCODE = 'RB403';
		END IF;
	END IF;
	RETURN n;
END $$;

-- The jobs in each state (job_counts, 024_job_counts.sql): each
-- statement that adds, moves or removes jobs adds a row for each state
-- it changed, by how much.  Statement triggers with the rows changed:
-- an update that moves no job between states adds nothing.
CREATE FUNCTION robot_jobs_counted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO job_counts (state, n)
			SELECT state, count(*) FROM new_jobs GROUP BY state;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO job_counts (state, n)
			SELECT state, -count(*) FROM old_jobs GROUP BY state;
	ELSE
		INSERT INTO job_counts (state, n)
			SELECT state, sum(d) FROM (SELECT state, -1 AS d
				FROM old_jobs UNION ALL SELECT state, 1
				FROM new_jobs) x
			GROUP BY state HAVING sum(d) <> 0;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_counted_insert AFTER INSERT ON jobs
	REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT
	EXECUTE FUNCTION robot_jobs_counted();
CREATE TRIGGER jobs_counted_update AFTER UPDATE ON jobs
	REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
	FOR EACH STATEMENT EXECUTE FUNCTION robot_jobs_counted();
CREATE TRIGGER jobs_counted_delete AFTER DELETE ON jobs
	REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT
	EXECUTE FUNCTION robot_jobs_counted();

-- The jobs in each state, as job_counts keeps them.
CREATE FUNCTION robot_job_counts() RETURNS TABLE (state text, n bigint)
LANGUAGE sql STABLE AS $$
	SELECT state, sum(n)::bigint FROM job_counts GROUP BY state
$$;

-- Folds job_counts' rows of each state into one (the janitor's sweep):
-- the rows this transaction sees are deleted and their sums added; rows
-- added meanwhile stay as they are.  Returns the rows left.
CREATE FUNCTION robot_job_counts_fold() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	left_rows int;
BEGIN
	WITH gone AS (DELETE FROM job_counts c RETURNING c.state, c.n)
	INSERT INTO job_counts (state, n)
		SELECT g.state, sum(g.n) FROM gone g GROUP BY g.state
		HAVING sum(g.n) <> 0;
	GET DIAGNOSTICS left_rows = ROW_COUNT;
	RETURN left_rows;
END $$;

-- The result documents of a series at a commit, oldest first, after
-- result p_after: as many as fit in p_max_bytes, and always one.
-- {series, commit, results: [documents], next}: next is the id to ask
-- after for the rest, null when there is none.
CREATE FUNCTION robot_results(p_series text, p_commit text, p_after bigint,
	p_max_bytes int) RETURNS json
LANGUAGE sql STABLE AS $$
	WITH r AS (SELECT x.id, x.doc, row_number() OVER w AS k,
		sum(coalesce(x.bytes, octet_length(x.doc::text))) OVER w
			AS upto
		FROM results x WHERE x.series = p_series
		AND x.commit IS NOT DISTINCT FROM p_commit
		AND x.id > coalesce(p_after, 0)
		WINDOW w AS (ORDER BY x.id)),
	page AS (SELECT id, doc FROM r WHERE k = 1 OR upto <= p_max_bytes)
	SELECT json_build_object('series', p_series, 'commit', p_commit,
		'results', (SELECT coalesce(json_agg(doc ORDER BY id), '[]')
			FROM page),
		'next', (SELECT max(id) FROM page WHERE EXISTS (SELECT 1
			FROM r WHERE r.id > (SELECT max(id) FROM page))))
$$;
