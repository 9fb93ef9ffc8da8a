-- trees.sql: the trees robotd watches.

-- p_text with the credentials of the URLs in it taken out
-- ("https://user:TOKEN@host/x.git" is "https://host/x.git"): a tree's
-- URL, or git's error about it, as anyone may read it.  Only git is
-- given the URL as it was added.
CREATE FUNCTION robot_redact(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT regexp_replace(p_text,
		'([A-Za-z][A-Za-z0-9+.-]*://)[^/@[:space:]]*@', '\1', 'g')
$$;

-- The next tree due for a fetch, claimed for p_seconds: its name, url,
-- branches, base ref and known heads, its poll interval and the fetches
-- that failed in a row (robotd's backoff); NULL when none is due.  Its
-- next fetch moves to the claim's end: a fetch asked for meanwhile (a
-- setting given) moves it back, and the fetch's end keeps it so.
CREATE FUNCTION robot_tree_claim(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	t trees;
BEGIN
	UPDATE trees SET fetching_until = now() + make_interval(secs =>
		p_seconds), next_fetch = now() + make_interval(secs =>
		p_seconds)
		WHERE name = (SELECT name FROM trees WHERE next_fetch <= now()
			AND (fetching_until IS NULL OR fetching_until < now())
			ORDER BY next_fetch LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING * INTO t;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	RETURN json_build_object('name', t.name, 'url', t.url,
		'branches', t.branches, 'base_ref', t.base_ref,
		'poll', t.poll, 'failures', t.fetch_failures,
		'heads', (SELECT coalesce(json_object_agg(branch, sha), '{}')
			FROM tree_heads WHERE tree = t.name));
END $$;

-- A fetch that failed: the error kept for `robot tree list`, the next
-- try in p_retry_in seconds (robotd's backoff), or at once when one was
-- asked for during the fetch (a URL set right).  Returns {error,
-- retry_in}.
CREATE FUNCTION robot_tree_failed(p_name text, p_error text, p_retry_in int)
RETURNS json LANGUAGE sql AS $$
	UPDATE trees SET fetch_error = p_error,
		fetch_failures = fetch_failures + 1, fetching_until = NULL,
		next_fetch = CASE WHEN next_fetch < fetching_until
			THEN next_fetch
			ELSE now() + make_interval(secs => p_retry_in) END
		WHERE name = p_name
		RETURNING json_build_object('error', fetch_error, 'retry_in',
			round(extract(epoch FROM next_fetch - now())))
$$;

-- A fetch that went well: p_commits ([{sha, parents, author, email,
-- date, subject}]) recorded, the heads ([{branch, sha, base, forced}]) kept; a
-- head that moved by a force-push has its old head's queued runs (and
-- the base's in its rounds) cancelled and its pairs ended.  Returns what to test: the tree's jobs,
-- groups and runs, and its new heads, newest first.
CREATE FUNCTION robot_tree_fetched(p_name text, p_heads json,
	p_commits json) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	t trees;
	h record;
	old text;
	fresh json := '[]';
BEGIN
	SELECT * INTO t FROM trees WHERE name = p_name FOR UPDATE;
	IF NOT FOUND THEN
		RETURN NULL; -- removed meanwhile
	END IF;
	INSERT INTO tree_commits (tree, sha, parents, author, email, date,
		subject)
	SELECT p_name, c.sha, c.parents, c.author, c.email, c.date, c.subject
	FROM json_to_recordset(p_commits) AS c(sha text, parents text[],
		author text, email text, date timestamptz, subject text)
	ON CONFLICT DO NOTHING;
	FOR h IN SELECT * FROM json_to_recordset(p_heads) AS x(branch text,
		sha text, base text, forced boolean) LOOP
		SELECT sha INTO old FROM tree_heads WHERE tree = p_name
			AND branch = h.branch;
		IF old IS NOT DISTINCT FROM h.sha THEN
			CONTINUE;
		END IF;
		IF old IS NOT NULL AND h.forced THEN
			UPDATE jobs SET state = 'cancelled', updated = now(),
				error = format('%s was force-pushed from %s',
					h.branch, old)
				WHERE state = 'queued' AND ((tree = p_name
				AND commit = old) OR round IN (SELECT x.round
				FROM jobs x WHERE x.tree = p_name
				AND x.commit = old AND x.round IS NOT NULL));
			UPDATE pairs SET state = 'final', verdict = 'cancelled',
				updated = now()
				WHERE tree = p_name AND branch = h.branch
				AND head = old AND state <> 'final';
		END IF;
		INSERT INTO tree_heads (tree, branch, sha, base)
			VALUES (p_name, h.branch, h.sha, h.base)
			ON CONFLICT (tree, branch) DO UPDATE SET sha = h.sha,
				base = h.base, updated = now();
		fresh := (fresh::jsonb || jsonb_build_array(jsonb_build_object(
			'branch', h.branch, 'sha', h.sha, 'base', h.base,
			'date', (SELECT date FROM tree_commits
				WHERE tree = p_name AND sha = h.sha))))::json;
	END LOOP;
	UPDATE trees SET fetched = now(), fetch_error = NULL,
		fetch_failures = 0, fetching_until = NULL,
		next_fetch = CASE WHEN next_fetch < fetching_until
			THEN next_fetch
			ELSE now() + make_interval(secs => poll) END
		WHERE name = p_name;
	RETURN json_build_object('name', t.name, 'jobs', t.jobs,
		'tbox_groups', t.tbox_groups, 'runs', t.runs,
		'max_runs', t.max_runs,
		'heads', (SELECT coalesce(json_agg(x ORDER BY x->>'date' DESC
			NULLS LAST), '[]') FROM json_array_elements(fresh) x));
END $$;

-- The runs of a tree's head and its base (robot_submit's p_jobs), in
-- rounds (robot_rounds_form()): the head's pair measures its base in its
-- own rounds, whatever runs the base had before; a series whose pair has
-- its rounds already is not queued again.  Every series gets its pair
-- (base, head) on the branch; a pair whose runs are all there already is
-- ready at once.
CREATE FUNCTION robot_tree_submit(p_submitter text, p_file text,
	p_body text, p_jobs json, p_tree text, p_branch text, p_base text,
	p_head text, p_max_runs int)
RETURNS TABLE (id bigint, key text, commit text, run int, series text,
	submission bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	todo json;
	n int;
BEGIN
	-- One tree submit at a time: two heads on one base queue the base's
	-- runs once, whichever robotd watches which tree.
	PERFORM pg_advisory_xact_lock(hashtext('robot_tree_submit'));
	-- The pairs are this function's: none from robot_jobs_queued().
	PERFORM set_config('robot.tree_submit', 'on', true);
	SELECT json_agg(x.j ORDER BY x.n) INTO todo FROM (SELECT j, n FROM
		json_array_elements(p_jobs) WITH ORDINALITY AS e(j, n)
		WHERE NOT EXISTS (SELECT 1 FROM robot_pair_rounds((j->>'key')
			|| '/' || (j->>'tbox_group'), p_base, p_head))) x;
	IF todo IS NOT NULL THEN
		RETURN QUERY SELECT * FROM robot_submit(p_submitter, p_file,
			p_body, todo);
	END IF;
	INSERT INTO pairs AS p (series, base, head, tree, branch, max_runs)
	SELECT DISTINCT (j->>'key') || '/' || (j->>'tbox_group'), p_base,
		p_head, p_tree, p_branch, p_max_runs
	FROM json_array_elements(p_jobs) j
	ON CONFLICT (series, base, head) DO UPDATE SET tree = p_tree,
		branch = p_branch, max_runs = p_max_runs;
	UPDATE pairs p SET state = 'ready', ready_at = now(), updated = now()
		WHERE p.base = p_base AND p.head = p_head AND p.tree = p_tree
		AND p.state = 'waiting' AND robot_pair_ended(p);
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
	PERFORM set_config('robot.tree_submit', 'off', true);
END $$;

-- A tree added from its JSON (robot/daemon/trees.c checked it): 409
-- when one of that name exists.
CREATE FUNCTION robot_tree_add(p json) RETURNS json
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trees (name, url, branches, base_ref, jobs, tbox_groups,
		runs, max_runs, poll, mail_author, bisect)
	SELECT x.name, x.url, x.branches, x.base_ref, x.jobs, x.tbox_groups,
		x.runs, x.max_runs, x.poll, coalesce(x.mail_author, false),
		coalesce(x.bisect, true)
	FROM json_to_record(p) AS x(name text, url text, branches text[],
		base_ref text, jobs json, tbox_groups text[], runs int,
		max_runs int, poll int, mail_author boolean, bisect boolean);
	RETURN json_build_object('name', p->>'name', 'added', true);
EXCEPTION WHEN unique_violation THEN
	RAISE EXCEPTION 'tree % exists: robot tree set changes it',
		p->>'name' USING ERRCODE = 'RB409';
END $$;

-- A tree's settings changed (the members given): 404 when there is no
-- such tree.  A changed URL or branch set is fetched at once.
CREATE FUNCTION robot_tree_set(p json) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	t trees;
BEGIN
	SELECT * INTO t FROM trees WHERE name = p->>'name' FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no tree %', p->>'name' USING ERRCODE = 'RB404';
	END IF;
	IF coalesce((p->>'max_runs')::int, t.max_runs) <
		coalesce((p->>'runs')::int, t.runs) THEN
		RAISE EXCEPTION 'max_runs (%) is at least runs (%)',
			coalesce((p->>'max_runs')::int, t.max_runs),
			coalesce((p->>'runs')::int, t.runs)
			USING ERRCODE = 'RB400';
	END IF;
	UPDATE trees SET
		url = coalesce(p->>'url', url),
		branches = coalesce((SELECT array_agg(b) FROM
			json_array_elements_text(p->'branches') b), branches),
		base_ref = coalesce(p->>'base_ref', base_ref),
		jobs = coalesce(p->'jobs', jobs),
		tbox_groups = coalesce((SELECT array_agg(g) FROM
			json_array_elements_text(p->'tbox_groups') g),
			tbox_groups),
		runs = coalesce((p->>'runs')::int, runs),
		max_runs = coalesce((p->>'max_runs')::int, max_runs),
		poll = coalesce((p->>'poll')::int, poll),
		mail_author = coalesce((p->>'mail_author')::boolean,
			mail_author),
		bisect = coalesce((p->>'bisect')::boolean, bisect),
		next_fetch = now(), updated = now()
		WHERE name = t.name;
	RETURN json_build_object('name', t.name, 'changed', true);
END $$;
