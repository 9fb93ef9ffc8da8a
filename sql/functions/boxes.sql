-- boxes.sql: the boxes: registration and reset.

-- A box (re)registers.  Leases it held go back to the queue at once, and
-- each run lost so counts as a failure of the box; a round it was in is
-- measured again, all of it (robot_round_again()), as when a lease
-- expires: its runs done on this box are not finished on another.
CREATE FUNCTION robot_register(p_box text, p_group text, p_facts jsonb,
	p_broken_after int)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	st text;
	jst text;
	rnd bigint;
	lost int := 0;
	bound text[];
BEGIN
	IF EXISTS (SELECT 1 FROM boxes WHERE name = p_box
		AND revoked IS NOT NULL) THEN
		RAISE EXCEPTION 'box % was revoked: enroll it again (robotd box enroll %, then robot-box enroll URL CODE)',
			p_box, p_box USING ERRCODE = 'RB401';
	END IF;
	-- A box token does not pick its group: its own names it, else
	-- the group the box first registered in does.
	SELECT coalesce(array_agg(DISTINCT tbox_group ORDER BY tbox_group),
		'{}') INTO bound FROM tokens WHERE kind = 'box' AND name = p_box
		AND revoked IS NULL AND tbox_group IS NOT NULL;
	IF cardinality(bound) = 0 THEN
		SELECT ARRAY[tbox_group] INTO bound FROM boxes
			WHERE name = p_box;
	END IF;
	IF cardinality(bound) > 0 AND NOT p_group = ANY (bound) THEN
		RAISE EXCEPTION 'box % may register in group % only, not %: an admin moves it (robotd box enroll % --group %, or robotd token create --kind box --name % --group %)',
			p_box, array_to_string(bound, ' or '), p_group, p_box,
			p_group, p_box, p_group USING ERRCODE = 'RB403';
	END IF;
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
			WHERE id = r.job AND state = 'leased'
			RETURNING round, state INTO rnd, jst;
		IF jst IS NOT NULL THEN
			PERFORM robot_round_again(rnd, jst = 'queued');
		END IF;
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

-- An operator takes a box out of the lab (p_by: who): its tokens are
-- revoked, its leases end as 'revoked' and their runs go back to the
-- queue at once (the attempt not counted: the box did not fail), and the
-- rounds pinned to it are measured again elsewhere.  Every robotd
-- forgets what it cached of tokens (NOTIFY ':tokens').  {box, tokens,
-- leases}: how many of each it ended; RB404 for a box robotd never knew.
CREATE FUNCTION robot_box_revoke(p_box text, p_by text) RETURNS json
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	ntok int;
	nlease int := 0;
	grp text;
	rnd bigint;
BEGIN
	UPDATE tokens SET revoked = now(), revoked_by = p_by
		WHERE kind = 'box' AND name = p_box AND revoked IS NULL;
	GET DIAGNOSTICS ntok = ROW_COUNT;
	UPDATE boxes SET revoked = coalesce(revoked, now()),
		state = CASE WHEN state = 'busy' THEN 'idle' ELSE state END
		WHERE name = p_box;
	IF NOT FOUND AND ntok = 0 AND NOT EXISTS (SELECT 1 FROM tokens
		WHERE kind = 'box' AND name = p_box) THEN
		RAISE EXCEPTION 'no box %', p_box USING ERRCODE = 'RB404';
	END IF;
	FOR r IN UPDATE leases SET state = 'revoked'
		WHERE box = p_box AND state = 'active' RETURNING job LOOP
		UPDATE jobs SET state = 'queued',
			attempts = greatest(attempts - 1, 0), box = NULL,
			updated = now()
			WHERE id = r.job AND state = 'leased'
			RETURNING tbox_group, round INTO grp, rnd;
		PERFORM robot_round_again(rnd, true);
		IF grp IS NOT NULL THEN
			PERFORM pg_notify('robot_jobs', grp);
		END IF;
		nlease := nlease + 1;
	END LOOP;
	UPDATE jobs SET state = 'cancelled', updated = now(),
		error = format('%s was revoked', p_box)
		WHERE state = 'queued' AND box = p_box AND round IS NULL;
	FOR r IN SELECT DISTINCT round FROM jobs WHERE state = 'queued'
		AND box = p_box AND round IS NOT NULL LOOP
		PERFORM robot_round_again(r.round, true);
	END LOOP;
	PERFORM pg_notify('robot_jobs', ':tokens');
	RETURN json_build_object('box', p_box, 'tokens', ntok,
		'leases', nlease);
END $$;

-- An operator puts a broken or suspect box back to work; the noise its
-- rounds showed until now leaves its series' histories
-- (robot_noise_obs()).
CREATE FUNCTION robot_reset(p_box text) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	st text;
BEGIN
	UPDATE boxes SET state = 'idle', failures = 0, suspect = NULL,
		noise_since = now(),
		canary_checked = coalesce((SELECT max(r.id) FROM results r
			JOIN jobs j ON j.id = r.job WHERE j.box = p_box), 0)
		WHERE name = p_box RETURNING state INTO st;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no box %', p_box USING ERRCODE = 'RB404';
	END IF;
	PERFORM pg_notify('robot_jobs', (SELECT tbox_group FROM boxes
		WHERE name = p_box));
	RETURN st;
END $$;

-- The next box with runs its canary has not been checked at, claimed
-- (marked checked): {box, checked (the last result checked before),
-- canaries: [{series, commit, kpi, values, ids}]}, for each series and
-- commit of its new ok runs that is a base (not a bisection's) and that
-- it ran at least 8 times, the KPI's values of its last 24 runs there and their
-- results' ids, oldest first (the KPI of the series' newest analysed
-- pair).  NULL when none is due.
CREATE FUNCTION robot_canary_next() RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	b boxes;
	top bigint;
BEGIN
	-- (results read from the last checked on, by their index)
	SELECT x.* INTO b FROM boxes x WHERE x.suspect IS NULL
		AND EXISTS (SELECT 1 FROM results r JOIN leases l
			ON l.id = r.lease WHERE r.id > x.canary_checked
			AND l.box = x.name)
		ORDER BY x.name LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT max(r.id) INTO top FROM results r JOIN leases l
		ON l.id = r.lease WHERE r.id > b.canary_checked
		AND l.box = b.name;
	UPDATE boxes SET canary_checked = top WHERE name = b.name;
	RETURN json_build_object('box', b.name, 'checked', b.canary_checked,
		'canaries',
		(SELECT coalesce(json_agg(c), '[]') FROM (SELECT f.series,
			f.commit, f.kpi, v.values, v.ids
			FROM (SELECT DISTINCT r.series, r.commit,
				(SELECT k->>'kpi' FROM pairs p,
					json_array_elements(p.kpis) k
					WHERE p.series = r.series
					AND p.kpis IS NOT NULL
					ORDER BY p.id DESC LIMIT 1) AS kpi
				FROM results r JOIN leases l ON l.id = r.lease
				WHERE r.id > b.canary_checked
				AND l.box = b.name
				AND r.status = 'ok' AND r.commit IS NOT NULL
				-- a base's runs only (a tree's, a
				-- submission's first commit): a commit
				-- under test, a bisection's bad end above
				-- all, may swing on its own (the demo's
				-- writeback stalls: 34% between runs)
				AND EXISTS (SELECT 1 FROM pairs p
					WHERE p.series = r.series
					AND p.base = r.commit
					AND p.bisection IS NULL)) f,
			LATERAL (SELECT array_agg(y.v ORDER BY y.id) AS values,
				array_agg(y.id ORDER BY y.id) AS ids
				FROM (SELECT r.id, (r.doc->'stats'->>f.kpi)::float8
					AS v FROM jobs j JOIN results r
					ON r.job = j.id WHERE j.box = b.name
					AND j.series = f.series
					AND j.commit = f.commit AND r.status = 'ok'
					AND json_typeof(r.doc->'stats'->f.kpi)
						= 'number'
					ORDER BY r.id DESC LIMIT 24) y) v
			WHERE f.kpi IS NOT NULL) c
		WHERE cardinality(c.values) >= 8));
END $$;

-- Reference runs (021_reference_runs.sql): each box that took no run for
-- p_every seconds, and is alive (seen in the last minute, neither broken
-- nor suspect, nothing queued for it), is given one run of its canary,
-- pinned to it: of the series and commits that are bases (not a
-- bisection's) among its last 200 runs, the one it ran ok most often,
-- the newest when tied.  A submission of its own (submitter robotd)
-- holds it; it makes no pair, and its result is read as any other
-- (robot_canary_next()).  A box that never ran a base gets none.
-- Returns what was queued: [{box, series, commit, job}].
CREATE FUNCTION robot_reference_due(p_every int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	b boxes;
	c record;
	t jobs;
	sub bigint;
	jid bigint;
	out json[] := '{}';
BEGIN
	IF p_every <= 0 THEN
		RETURN '[]';
	END IF;
	FOR b IN SELECT x.* FROM boxes x WHERE x.state <> 'broken'
		AND x.suspect IS NULL
		AND x.last_seen > now() - interval '60 seconds'
		AND x.registered < now() - make_interval(secs => p_every)
		AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.box = x.name
			AND (l.created > now() - make_interval(secs => p_every)
			OR l.state = 'active'))
		AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.box = x.name
			AND j.state = 'queued')
		ORDER BY x.name FOR UPDATE SKIP LOCKED LOOP
		SELECT j.series, j.commit INTO c
			FROM (SELECT l.job FROM leases l WHERE l.box = b.name
				AND l.state = 'done'
				ORDER BY l.created DESC LIMIT 200) y
			JOIN jobs j ON j.id = y.job
			JOIN results r ON r.job = j.id AND r.status = 'ok'
			WHERE j.commit IS NOT NULL AND EXISTS (SELECT 1
				FROM pairs p WHERE p.series = j.series
				AND p.base = j.commit AND p.bisection IS NULL)
			GROUP BY j.series, j.commit
			ORDER BY count(*) DESC, max(y.job) DESC LIMIT 1;
		IF NOT FOUND THEN
			CONTINUE;
		END IF;
		t := robot_run_like(c.series, c.commit, c.commit);
		INSERT INTO submissions (submitter, file_name, body)
			VALUES ('robotd', format('reference run of box %s',
				b.name), t.job::text)
			RETURNING id INTO sub;
		INSERT INTO jobs (submission, key, tbox_group, series, commit,
			tree, job, needs, priority, max_attempts, box)
		VALUES (sub, t.key, t.tbox_group, t.series, t.commit, t.tree,
			t.job, t.needs, t.priority, t.max_attempts, b.name)
		RETURNING id INTO jid;
		PERFORM pg_notify('robot_jobs', t.tbox_group);
		out := out || json_build_object('box', b.name, 'series',
			t.series, 'commit', t.commit, 'job', jid);
	END LOOP;
	RETURN array_to_json(out);
END $$;

-- Box p_box changed under us (robotd read its canary): it is suspect
-- since its run of result p_since, with p_message for the operators.
-- It takes no work; the rounds it began are measured again elsewhere
-- (a reference run queued for it is cancelled); each pair with a round
-- on it since then, whatever its state (an analysis under way ends
-- stale), has those rounds measured again on other boxes (its
-- regressions held meanwhile: robot_report_pending()).  A pair's rounds
-- are counted before any round is dropped: a round of a submission of
-- several commits is in several pairs, and a pair that only shares a
-- commit with the box's rounds (a base's other heads) is not one of
-- them.  The note says when no other box of its group may take work.
-- Returns the pairs measured again.
CREATE FUNCTION robot_box_suspect(p_box text, p_since bigint,
	p_kpi text, p_series text, p_message text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	since timestamptz;
	r bigint;
	dropped bigint[];
	ids bigint[];
	asked int[];
	p pairs;
	last text;
BEGIN
	SELECT l.created INTO since FROM results x JOIN leases l
		ON l.id = x.lease WHERE x.id = p_since;
	UPDATE boxes SET suspect = coalesce(since, now()), noise_since = now()
		WHERE name = p_box AND suspect IS NULL;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	since := coalesce(since, now());
	FOR r IN SELECT DISTINCT round FROM jobs WHERE box = p_box
		AND state = 'queued' AND round IS NOT NULL LOOP
		PERFORM robot_round_again(r, true);
	END LOOP;
	UPDATE jobs SET state = 'cancelled', updated = now(),
		error = format('%s is suspect', p_box)
		WHERE box = p_box AND state = 'queued' AND round IS NULL;
	SELECT coalesce(array_agg(DISTINCT j.round), '{}') INTO dropped
		FROM jobs j JOIN leases l ON l.job = j.id AND l.box = p_box
		WHERE j.round IS NOT NULL AND l.created >= since;
	SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}'),
		coalesce(array_agg(c.n ORDER BY x.id), '{}') INTO ids, asked
		FROM pairs x, LATERAL (SELECT count(*) AS n,
			count(*) FILTER (WHERE y.round = ANY (dropped)) AS hit
			FROM robot_pair_rounds(x.series, x.base, x.head) y) c
		WHERE x.state IN ('waiting', 'ready', 'analysing', 'final')
		AND x.id IN (SELECT y.id FROM pairs y JOIN jobs j
			ON j.series = y.series AND j.commit IN (y.base, y.head)
			WHERE j.round = ANY (dropped))
		AND c.hit > 0;
	UPDATE jobs SET round = NULL, round_pos = NULL
		WHERE round = ANY (dropped);
	FOR i IN 1 .. cardinality(ids) LOOP
		SELECT * INTO p FROM pairs WHERE id = ids[i] FOR UPDATE;
		PERFORM robot_pair_again(p, asked[i]);
	END LOOP;
	SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM boxes o
			WHERE o.tbox_group = b.tbox_group AND o.name <> b.name
			AND o.suspect IS NULL AND o.state <> 'broken')
		THEN format(' It was the last box of group %s that may take '
			'work: the group''s jobs wait until an operator runs '
			'robot box reset %s.', b.tbox_group, b.name)
		ELSE '' END INTO last
		FROM boxes b WHERE b.name = p_box;
	INSERT INTO lab_notes (kind, series, boxes, kpi, message)
		VALUES ('suspect', p_series, ARRAY[p_box], p_kpi,
			p_message || coalesce(last, ''));
	PERFORM pg_notify('robot_jobs', ':reports');
	RETURN cardinality(ids);
END $$;

-- The boxes to power-cycle now: those whose lease expired after they
-- were last heard from (silent in the middle of a run), still silent
-- p_grace seconds after that, and not power-cycled since.  Each is
-- marked and gets a lab note for the operators; the JSON [{box, series,
-- lease}] says which.
CREATE FUNCTION robot_power_cycle_due(p_grace int) RETURNS json
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	r record;
	out json[] := '{}';
BEGIN
	FOR r IN SELECT b.name, b.last_seen, x.id, x.deadline, x.series
		-- Only silent boxes' leases are read: the live ones were
		-- seen within p_grace.
		FROM boxes b, LATERAL (SELECT l.id, l.deadline, j.series
			FROM leases l JOIN jobs j ON j.id = l.job
			WHERE l.box = b.name AND l.state = 'expired'
			AND l.deadline >= b.last_seen
			AND l.deadline < now() - make_interval(secs => p_grace)
			ORDER BY l.deadline DESC LIMIT 1) x
		WHERE b.last_seen < now() - make_interval(secs => p_grace)
		AND (b.power_cycled IS NULL OR b.power_cycled < b.last_seen)
		ORDER BY b.name
		FOR UPDATE OF b SKIP LOCKED LOOP
		UPDATE boxes SET power_cycled = now() WHERE name = r.name;
		INSERT INTO lab_notes (kind, series, boxes, message)
			VALUES ('power-cycle', r.series, ARRAY[r.name], format(
			'box %s went silent in the middle of a run of %s: last '
			'heard from at %s, its lease %s expired at %s; robotd '
			'ran the lab''s power_cycle command on it, and its run '
			'went back to the queue',
			r.name, r.series,
			to_char(r.last_seen AT TIME ZONE 'UTC',
				'YYYY-MM-DD HH24:MI:SS UTC'), r.id,
			to_char(r.deadline AT TIME ZONE 'UTC',
				'YYYY-MM-DD HH24:MI:SS UTC')));
		out := out || json_build_object('box', r.name, 'series',
			r.series, 'lease', r.id);
	END LOOP;
	IF cardinality(out) > 0 THEN
		PERFORM pg_notify('robot_jobs', ':reports');
	END IF;
	RETURN array_to_json(out);
END $$;

-- A box's page (/boxes/NAME, /api/boxes/NAME): its record (its state
-- suspect while its health says so), the facts it registered, its
-- newest 20 runs and the lab's notes that name it; NULL when there is
-- no such box.
CREATE FUNCTION robot_box(p_name text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('name', b.name, 'tbox_group', b.tbox_group,
		'state', CASE WHEN b.revoked IS NOT NULL THEN 'revoked'
			WHEN b.suspect IS NOT NULL THEN 'suspect'
			ELSE b.state END,
		'suspect', b.suspect, 'revoked', b.revoked, 'failures', b.failures,
		'last_seen', b.last_seen, 'registered', b.registered,
		'power_cycled', b.power_cycled, 'facts', b.facts,
		'runs', (SELECT coalesce(json_agg(r ORDER BY r.id DESC), '[]')
			FROM (SELECT id, state, series, commit, error, updated
			FROM jobs WHERE box = b.name
			ORDER BY id DESC LIMIT 20) r),
		'notes', (SELECT coalesce(json_agg(json_build_object(
			'series', n.series, 'message', n.message,
			'created', n.created) ORDER BY n.id DESC), '[]')
			FROM (SELECT * FROM lab_notes WHERE b.name = ANY (boxes)
			ORDER BY id DESC LIMIT 5) n))
	FROM boxes b WHERE b.name = p_name
$$;
