-- boxes.sql: the boxes: registration and reset.

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
