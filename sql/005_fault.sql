-- 005_fault.sql: a failed run says whose fault it was (DESIGN.md
-- section 5, "fault").  A commit that cannot be provisioned fails its job
-- with the reason and does not count against the box: only failures of
-- the box itself (storage, crashes, timeouts) can mark a box broken.

DROP FUNCTION robot_upload(bigint, text, text, text, text, text, text,
	text, json, int);

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
		WHERE name = p_box;
	RETURN 'stored';
END $$;

