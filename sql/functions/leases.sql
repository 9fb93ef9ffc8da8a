-- leases.sql: leases: claims, heartbeats, uploads, expiry.

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
	IF b.revoked IS NOT NULL THEN
		RAISE EXCEPTION 'box % was revoked: enroll it again (robotd box enroll %, then robot-box enroll URL CODE)',
			p_box, p_box USING ERRCODE = 'RB401';
	END IF;
	IF b.state = 'broken' THEN
		RAISE EXCEPTION 'box % is broken after % failed jobs in a row; an operator must reset it',
			p_box, b.failures USING ERRCODE = 'RB409';
	END IF;
	-- A box runs one job at a time: a lease it holds and asks past was
	-- never its to run (robotd's answer was lost on the way), and goes
	-- back now, its round with it, rather than when its deadline comes.
	PERFORM robot_release(x.id) FROM leases x
		WHERE x.box = p_box AND x.state = 'active';
	-- The rest of a round the box began comes first, in its order; a
	-- suspect box (robot_box_suspect()) takes nothing.
	SELECT * INTO j FROM jobs WHERE state = 'queued' AND box = p_box
		AND b.suspect IS NULL
		ORDER BY round_pos, id LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF NOT FOUND AND b.suspect IS NULL THEN
		-- A round is begun by its first run still to come.
		SELECT * INTO j FROM jobs
			WHERE state = 'queued' AND tbox_group = b.tbox_group
				AND box IS NULL
				AND robot_unfit(needs, b.facts) IS NULL
				AND (round IS NULL OR round_pos = 1
				OR NOT EXISTS (SELECT 1 FROM jobs s
					WHERE s.round = jobs.round
					AND s.round_pos < jobs.round_pos
					AND s.state IN ('queued', 'leased')))
			ORDER BY priority DESC, id LIMIT 1
			FOR UPDATE SKIP LOCKED;
	END IF;
	IF j.id IS NULL THEN
		UPDATE boxes SET last_seen = now(), last_asked = now()
			WHERE name = p_box;
		RETURN QUERY SELECT NULL::bigint, NULL::timestamptz,
			NULL::bigint, NULL::text, NULL::text, NULL::text,
			NULL::json, NULL::int, NULL::int, NULL::int,
			b.tbox_group;
		RETURN;
	END IF;
	UPDATE jobs SET state = 'leased', attempts = jobs.attempts + 1,
		box = p_box, updated = now() WHERE id = j.id;
	IF j.round IS NOT NULL THEN
		UPDATE jobs SET box = p_box WHERE round = j.round
			AND state = 'queued' AND id <> j.id;
	END IF;
	INSERT INTO leases (job, box, deadline)
		VALUES (j.id, p_box, now() + make_interval(secs => p_seconds))
		RETURNING * INTO l;
	UPDATE boxes SET state = 'busy', last_seen = now(), last_asked = now()
		WHERE name = p_box;
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
	rnd bigint;
BEGIN
	UPDATE leases SET state = 'released'
		WHERE id = p_lease AND state = 'active' RETURNING * INTO l;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0),
		box = NULL, updated = now()
		WHERE id = l.job AND state = 'leased'
		RETURNING tbox_group, round INTO grp, rnd;
	PERFORM robot_round_again(rnd, true);
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

-- A heartbeat: the lease's deadline p_seconds off, but never past
-- p_max_life seconds after the lease was made (NULL: no bound), so that
-- no box holds a run, and the pair waiting for it, for ever.
CREATE FUNCTION robot_heartbeat(p_lease bigint, p_box text, p_seconds int,
	p_max_life int DEFAULT NULL)
RETURNS timestamptz LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	l leases;
	last timestamptz;
BEGIN
	l := robot_own_lease(p_lease, p_box);
	IF l.state <> 'active' OR l.deadline < now() THEN
		RAISE EXCEPTION 'lease % has expired', p_lease
			USING ERRCODE = 'RB409';
	END IF;
	last := l.created + make_interval(secs => coalesce(p_max_life,
		2147483647));
	IF last <= now() THEN
		RAISE EXCEPTION 'lease % has lived % s, this robotd''s lease_max_life: the job goes back to the queue',
			p_lease, p_max_life USING ERRCODE = 'RB409';
	END IF;
	UPDATE leases SET deadline = least(now() + make_interval(secs =>
		p_seconds), last)
		WHERE id = p_lease RETURNING deadline INTO l.deadline;
	UPDATE boxes SET last_seen = now() WHERE name = p_box;
	RETURN l.deadline;
END $$;

-- Whether a box may upload a result for a lease, before its document is
-- read: 'active', or 'stored' when it has one already (a repeat); an
-- error for a lease that is not the box's or that expired.
CREATE FUNCTION robot_lease_check(p_lease bigint, p_box text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	l leases := robot_own_lease(p_lease, p_box);
BEGIN
	IF EXISTS (SELECT 1 FROM results WHERE lease = p_lease) THEN
		RETURN 'stored';
	END IF;
	IF l.state <> 'active' OR l.deadline < now() THEN
		RAISE EXCEPTION 'lease % has expired: the job went back to the queue',
			p_lease USING ERRCODE = 'RB409';
	END IF;
	RETURN 'active';
END $$;

-- A box's result for its lease: 'stored', 'duplicate' (this very
-- document was stored before), or 'requeued' (an incomplete run: the box
-- gave the job back).  The document must be of the lease's job: its key,
-- tbox_group and commit, and (when it names one) the lease's box.  A
-- failure that is the job's (p_job_fault: the commit cannot be
-- provisioned) fails the job and leaves the box's count of failures as
-- it was.
CREATE FUNCTION robot_upload(p_lease bigint, p_box text, p_key text,
	p_group text, p_doc_box text, p_commit text, p_status text,
	p_error text, p_doc json, p_broken_after int, p_job_fault boolean)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	l leases;
	j jobs;
	stored text;
	st text;
BEGIN
	l := robot_own_lease(p_lease, p_box);
	SELECT doc::text INTO stored FROM results WHERE lease = p_lease;
	IF FOUND THEN
		IF stored = p_doc::text THEN
			RETURN 'duplicate';
		END IF;
		RAISE EXCEPTION 'a different result was stored for lease % already',
			p_lease USING ERRCODE = 'RB409';
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
	IF j.tbox_group <> p_group THEN
		RAISE EXCEPTION 'the result is of tbox_group %, the lease of %',
			p_group, j.tbox_group USING ERRCODE = 'RB400';
	END IF;
	IF p_doc_box IS NOT NULL AND p_doc_box <> p_box THEN
		RAISE EXCEPTION 'the result names box %, the lease is box %''s',
			p_doc_box, p_box USING ERRCODE = 'RB400';
	END IF;
	IF p_commit IS DISTINCT FROM j.commit THEN
		RAISE EXCEPTION 'the result is of commit %, the lease of %',
			coalesce(p_commit, 'none'), coalesce(j.commit, 'none')
			USING ERRCODE = 'RB400';
	END IF;
	UPDATE leases SET state = 'done' WHERE id = p_lease;
	IF p_status = 'incomplete' THEN
		UPDATE jobs SET state = CASE WHEN attempts >= max_attempts
			THEN 'failed' ELSE 'queued' END,
			error = p_error, box = NULL, updated = now()
			WHERE id = j.id RETURNING state INTO st;
		PERFORM robot_round_again(j.round, st = 'queued');
		-- A run given back counts against its box as a failed one
		-- does (issue 61: a box that gave back every run stayed idle
		-- with no failures); its next ok run clears it.
		UPDATE boxes SET failures = failures + 1, last_seen = now(),
			state = CASE WHEN failures + 1 >= p_broken_after
				THEN 'broken' ELSE 'idle' END
			WHERE name = p_box RETURNING state INTO st;
		IF st = 'broken' THEN
			PERFORM robot_round_again(x.round, true) FROM (SELECT
				DISTINCT round FROM jobs WHERE state = 'queued'
				AND box = p_box) x;
		END IF;
		PERFORM pg_notify('robot_jobs', j.tbox_group);
		RETURN 'requeued';
	END IF;
	INSERT INTO results (job, lease, series, commit, status, doc, bytes)
		VALUES (j.id, p_lease, j.series, j.commit, p_status, p_doc,
			octet_length(p_doc::text));
	UPDATE jobs SET state = CASE WHEN p_status = 'ok' THEN 'done'
		ELSE 'failed' END, error = p_error, updated = now()
		WHERE id = j.id;
	IF p_status <> 'ok' AND p_job_fault THEN
		UPDATE boxes SET last_seen = now(), state = 'idle'
			WHERE name = p_box;
		RETURN 'stored';
	END IF;
	UPDATE boxes SET failures = CASE WHEN p_status = 'ok' THEN 0
		ELSE failures + 1 END, last_seen = now(),
		state = CASE WHEN p_status <> 'ok' AND
			failures + 1 >= p_broken_after THEN 'broken'
			ELSE 'idle' END
		WHERE name = p_box RETURNING state INTO st;
	IF st = 'broken' THEN
		-- A broken box takes no more runs: its rounds are measured
		-- again elsewhere.
		PERFORM robot_round_again(x.round, true) FROM (SELECT DISTINCT
			round FROM jobs WHERE state = 'queued'
			AND box = p_box) x;
	END IF;
	RETURN 'stored';
END $$;

-- Leases past their deadline: the job goes back to the queue with its
-- attempt counted, or fails after max_attempts; its round is measured
-- again (robot_round_again()).  Returns how many.  First a deadline
-- further off than p_lease_seconds (robotd's lease time) is brought back
-- to it: a clock that stepped back would else give every lease the
-- step, and a box that died would keep its job that long.
CREATE FUNCTION robot_expire(p_lease_seconds int DEFAULT NULL) RETURNS int
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	n int := 0;
	grp text;
	rnd bigint;
	st text;
BEGIN
	IF p_lease_seconds IS NOT NULL THEN
		UPDATE leases SET deadline = now() + make_interval(secs =>
			p_lease_seconds)
			WHERE state = 'active' AND deadline > now() +
				make_interval(secs => p_lease_seconds);
	END IF;
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
			RETURNING tbox_group, round, state INTO grp, rnd, st;
		IF grp IS NOT NULL THEN
			PERFORM robot_round_again(rnd, st = 'queued');
		END IF;
		UPDATE boxes SET state = 'idle'
			WHERE name = r.box AND state = 'busy';
		IF grp IS NOT NULL THEN
			PERFORM pg_notify('robot_jobs', grp);
		END IF;
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
