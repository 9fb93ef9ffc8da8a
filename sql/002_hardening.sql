-- 002_hardening.sql: what probing robotd as an attacker and an unlucky
-- operator found (issue 9).
--
-- - robot_unfit() reads a box's facts without casts that fail: facts are
--   checked when a box registers, but rows from before, or from another
--   robotd, must not make every submit to their group fail.
-- - A box that re-registers while it holds leases (it restarted during a
--   job) loses those runs: that counts against the box like a failed run,
--   so a box that keeps restarting is marked broken.
-- - A result document is tied to its lease: its key, group, box and
--   commit are the lease's job's; a different document for a lease that
--   has one is a conflict, the same one again a duplicate.
-- - robot_lease_check() answers, before a document is read, whether the
--   lease is the box's and can take one.

-- The number at key in facts when it is a non-negative number, else 0.
CREATE FUNCTION robot_fact_num(f jsonb, key text) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN jsonb_typeof(f->key) = 'number'
		AND (f->>key)::numeric >= 0 THEN (f->>key)::numeric ELSE 0 END
$$;

CREATE OR REPLACE FUNCTION robot_unfit(n jsonb, f jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
	WHEN robot_fact_num(n, 'ram') > robot_fact_num(f, 'ram_disk_limit')
		THEN format('needs %s bytes of RAM disks, allows %s',
			robot_fact_num(n, 'ram'),
			robot_fact_num(f, 'ram_disk_limit'))
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

-- A box (re)registers.  Leases it held go back to the queue at once, and
-- each run lost so counts as a failure of the box.
CREATE FUNCTION robot_register(p_box text, p_group text, p_facts jsonb,
	p_broken_after int)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	st text;
	lost int := 0;
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
		lost := lost + 1;
	END LOOP;
	IF lost > 0 THEN
		UPDATE boxes SET failures = failures + lost,
			state = CASE WHEN failures + lost >= p_broken_after
				THEN 'broken' ELSE state END
			WHERE name = p_box RETURNING state INTO st;
	END IF;
	RETURN st;
END $$;

-- Whether a box may upload a result for a lease, before its document is
-- read: 'active', or 'stored' when it has one already (a repeat); an
-- error for a lease that is not the box's or that expired.
CREATE FUNCTION robot_lease_check(p_lease bigint, p_box text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	l leases;
BEGIN
	SELECT * INTO l FROM leases WHERE id = p_lease;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no lease %', p_lease USING ERRCODE = 'RB404';
	END IF;
	IF l.box <> p_box THEN
		RAISE EXCEPTION 'lease % is not yours', p_lease
			USING ERRCODE = 'RB403';
	END IF;
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
-- tbox_group and commit, and (when it names one) the lease's box.
CREATE FUNCTION robot_upload(p_lease bigint, p_box text, p_key text,
	p_group text, p_doc_box text, p_commit text, p_status text,
	p_error text, p_doc json, p_broken_after int)
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
	UPDATE boxes SET failures = CASE WHEN p_status = 'ok' THEN 0
		ELSE failures + 1 END, last_seen = now(),
		state = CASE WHEN p_status <> 'ok' AND
			failures + 1 >= p_broken_after THEN 'broken'
			ELSE 'idle' END
		WHERE name = p_box;
	RETURN 'stored';
END $$;

-- The functions 002 replaced by ones with more parameters.
DROP FUNCTION robot_register(text, text, jsonb);
DROP FUNCTION robot_upload(bigint, text, text, text, text, json, int);
