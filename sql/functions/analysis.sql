-- analysis.sql: pairs compared and decided, and comparisons asked for.

-- A run's values, appended to its series' at its commit, each metric's
-- with the run's job beside it (metric_values.jobs).
CREATE FUNCTION robot_result_values() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO metric_values AS m (series, commit, metric, vals, jobs, n,
		mean, stddev, min, max)
	SELECT NEW.series, NEW.commit, s.key, ARRAY[s.value::float8],
		ARRAY[NEW.job], 1, s.value::float8, 0, s.value::float8,
		s.value::float8
	FROM json_each_text(NEW.doc->'stats') s
	ON CONFLICT (series, commit, metric) DO UPDATE SET
		vals = m.vals || EXCLUDED.vals,
		jobs = coalesce(m.jobs, array_fill(NULL::bigint, ARRAY[m.n]))
			|| EXCLUDED.jobs,
		n = m.n + 1,
		mean = (SELECT avg(v) FROM unnest(m.vals || EXCLUDED.vals) v),
		stddev = (SELECT stddev_pop(v)
			FROM unnest(m.vals || EXCLUDED.vals) v),
		min = least(m.min, EXCLUDED.min),
		max = greatest(m.max, EXCLUDED.max);
	RETURN NULL;
END $$;
CREATE TRIGGER results_values AFTER INSERT ON results FOR EACH ROW
	WHEN (NEW.status = 'ok' AND NEW.commit IS NOT NULL)
	EXECUTE FUNCTION robot_result_values();

-- Whether every run of pair p's two sides has ended.
CREATE FUNCTION robot_pair_ended(p pairs) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT NOT EXISTS (SELECT 1 FROM jobs j WHERE j.series = p.series
		AND j.commit IN (p.base, p.head)
		AND j.state IN ('queued', 'leased'))
$$;

-- A run ended: its pairs waiting for runs whose runs have all ended
-- are ready.  The pairs are locked first, and only then are their runs
-- looked at, each with a snapshot taken after the lock: the last runs of
-- two sides that end at once on two boxes, or a run that ends while its
-- pair is being decided (or given more runs), each see the other's end,
-- where a check made without the lock saw the other's run still leased
-- and the pair waited forever.
CREATE FUNCTION robot_job_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
	n int := 0;
BEGIN
	FOR p IN SELECT * FROM pairs WHERE series = NEW.series
		AND (base = NEW.commit OR head = NEW.commit)
		ORDER BY id FOR UPDATE LOOP
		IF p.state = 'waiting' AND robot_pair_ended(p) THEN
			UPDATE pairs SET state = 'ready', updated = now(),
				ready_at = now() WHERE id = p.id;
			n := n + 1;
		END IF;
	END LOOP;
	IF n > 0 THEN
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_ended AFTER UPDATE OF state ON jobs FOR EACH ROW
	WHEN (OLD.state IN ('queued', 'leased')
		AND NEW.state IN ('done', 'failed', 'cancelled')
		AND NEW.commit IS NOT NULL)
	EXECUTE FUNCTION robot_job_ended();

-- A submission of several commits compares each with its first: one
-- pair per series and later commit.  A pair made again (more runs of the
-- same commits) waits for them.  The pair takes the submission's cap on
-- runs.  Not for a tree's submit, which makes its own pairs (base and
-- head on the branch).
CREATE FUNCTION robot_jobs_queued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('robot.tree_submit', true) = 'on' THEN
		RETURN NULL;
	END IF;
	-- (Each series' first commit found once, by a sort: a lookup per
	-- run in the transition table, which has no index, made a
	-- submission's cost the square of its runs.)
	WITH b AS (SELECT DISTINCT ON (x.submission, x.series) x.submission,
		x.series, x.commit FROM new_jobs x
		ORDER BY x.submission, x.series, x.id)
	INSERT INTO pairs AS p (series, base, head, tree, max_runs)
	SELECT DISTINCT h.series, b.commit, h.commit, h.tree, s.max_runs
	FROM new_jobs h
	JOIN b ON b.submission = h.submission AND b.series = h.series
	JOIN submissions s ON s.id = h.submission
	WHERE h.pair IS NULL AND h.commit IS NOT NULL
		AND b.commit IS NOT NULL AND h.commit <> b.commit
	ON CONFLICT (series, base, head) DO UPDATE SET state = 'waiting',
		max_runs = EXCLUDED.max_runs, updated = now();
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_queued AFTER INSERT ON jobs
	REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT
	EXECUTE FUNCTION robot_jobs_queued();

-- The runs of one side: asked (every run queued but the cancelled ones,
-- which were never run), ok, failed.
CREATE FUNCTION robot_side_runs(p_series text, p_commit text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('asked', count(*),
		'ok', count(*) FILTER (WHERE state = 'done'),
		'failed', count(*) FILTER (WHERE state = 'failed'))
	FROM jobs WHERE series = p_series AND commit = p_commit
		AND state <> 'cancelled'
$$;

-- More runs of one side of pair p_pair, until it has p_runs (the
-- cancelled ones not counted): copies of its newest run.
CREATE FUNCTION robot_side_more(p_pair bigint, p_series text,
	p_commit text, p_runs int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	j jobs;
	have int;
BEGIN
	SELECT * INTO j FROM jobs WHERE series = p_series AND commit = p_commit
		ORDER BY id DESC LIMIT 1;
	SELECT count(*) INTO have FROM jobs WHERE series = p_series
		AND commit = p_commit AND state <> 'cancelled';
	IF j.id IS NULL OR have >= p_runs THEN
		RETURN 0;
	END IF;
	INSERT INTO jobs (submission, key, tbox_group, series, commit, tree,
		job, needs, run, runs, priority, max_attempts, pair)
	SELECT j.submission, j.key, j.tbox_group, j.series, j.commit, j.tree,
		j.job, j.needs, have + i, p_runs, j.priority, j.max_attempts,
		p_pair
	FROM generate_series(1, p_runs - have) i;
	PERFORM pg_notify('robot_jobs', j.tbox_group);
	RETURN p_runs - have;
END $$;

-- The rounds of a series in which both p_base and p_head were run (but
-- not cancelled), oldest first: each with its two runs, their states and
-- boxes.
CREATE FUNCTION robot_pair_rounds(p_series text, p_base text, p_head text)
RETURNS TABLE (round bigint, base_job bigint, head_job bigint,
	base_state text, head_state text, base_box text, head_box text)
LANGUAGE sql STABLE AS $$
	SELECT b.round, b.id, h.id, b.state, h.state, b.box, h.box
	FROM jobs b JOIN jobs h ON h.round = b.round AND h.series = b.series
		AND h.commit = p_head AND h.state <> 'cancelled'
	WHERE b.series = p_series AND b.commit = p_base
		AND b.round IS NOT NULL AND b.state <> 'cancelled'
		AND p_base <> p_head
	ORDER BY b.round
$$;

-- The runs of a pair's sides in its rounds, as robot_side_runs() counts
-- them: every round asked, those whose two runs ended ok on one box,
-- those with a failed run; NULL when the pair has no rounds.
CREATE FUNCTION robot_round_runs(p_series text, p_base text, p_head text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN count(*) > 0 THEN json_build_object('asked',
		count(*), 'ok', count(*) FILTER (WHERE base_state = 'done'
			AND head_state = 'done' AND base_box = head_box),
		'failed', count(*) FILTER (WHERE 'failed' IN (base_state,
			head_state))) END
	FROM robot_pair_rounds(p_series, p_base, p_head)
$$;

-- What a pair's comparison starts from (series, base, head, one of its
-- jobs, the sides' run counts, and its rounds whose two runs ended ok on
-- one box as [[base job, head job], ...], oldest first): the first row
-- of the binary values robotd reads (store_pair_columns()).  A pair with
-- rounds counts the runs of its rounds, each round once a side.
-- canary: the base's other ok runs in the series, on the boxes of its
-- rounds, the newest 24 of each box, as [[job, box], ...]: what they
-- spread by tells a run's noise on that box (the base against itself:
-- robot/analysis/noise.h); not of a box that is suspect, nor from
-- before a box's reset (boxes.noise_since).
CREATE FUNCTION robot_pair_head(p_series text, p_base text, p_head text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('series', p_series, 'base', p_base,
		'head', p_head,
		'job', (SELECT j.job FROM jobs j WHERE j.series = p_series
			AND j.commit IN (p_head, p_base) ORDER BY j.id LIMIT 1),
		'base_runs', coalesce(r.runs, robot_side_runs(p_series,
			p_base)),
		'head_runs', coalesce(r.runs, robot_side_runs(p_series,
			p_head)),
		'rounds', (SELECT coalesce(json_agg(json_build_array(x.base_job,
			x.head_job) ORDER BY x.round), '[]')
			FROM robot_pair_rounds(p_series, p_base, p_head) x
			WHERE x.base_state = 'done' AND x.head_state = 'done'
			AND x.base_box = x.head_box),
		'canary', (SELECT coalesce(json_agg(json_build_array(c.id,
			c.box) ORDER BY c.id), '[]')
			FROM (SELECT j.id, j.box, row_number() OVER (
				PARTITION BY j.box ORDER BY j.id DESC) AS k
				FROM jobs j JOIN boxes b ON b.name = j.box
				WHERE j.series = p_series
				AND j.commit = p_base AND j.state = 'done'
				AND b.suspect IS NULL
				AND (b.noise_since IS NULL
					OR j.updated > b.noise_since)
				AND j.box IN (SELECT x.base_box
					FROM robot_pair_rounds(p_series, p_base,
						p_head) x)
				AND j.id NOT IN (SELECT x.base_job
					FROM robot_pair_rounds(p_series, p_base,
						p_head) x)) c
			WHERE c.k <= 24))
	FROM (SELECT robot_round_runs(p_series, p_base, p_head) AS runs) r
$$;

-- The run to copy for a new run of a series at p_commit: its newest
-- there, else at p_other, else the series' newest.
CREATE FUNCTION robot_run_like(p_series text, p_commit text, p_other text)
RETURNS jobs LANGUAGE plpgsql STABLE AS $$
DECLARE
	j jobs;
BEGIN
	SELECT * INTO j FROM jobs WHERE series = p_series
		AND commit = p_commit ORDER BY id DESC LIMIT 1;
	IF NOT FOUND THEN
		SELECT * INTO j FROM jobs WHERE series = p_series
			AND commit = p_other ORDER BY id DESC LIMIT 1;
	END IF;
	IF NOT FOUND THEN
		SELECT * INTO j FROM jobs WHERE series = p_series
			ORDER BY id DESC LIMIT 1;
	END IF;
	RETURN j;
END $$;

-- Rounds p_have + 1 to p_rounds of p_commits (two or more) of a series,
-- for pair p_pair: in each, one run of each commit in a random order,
-- copies of the newest run of that commit in the series (else of the
-- first commit's, else of the series').  A bisection's rounds go before
-- other work of the same priority: a report waits for them.  Returns
-- how many rounds.
CREATE FUNCTION robot_rounds_add(p_series text, p_tree text,
	p_commits text[], p_have int, p_rounds int, p_pair bigint)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	t jobs;
	r bigint;
	c record;
BEGIN
	IF p_have >= p_rounds THEN
		RETURN 0;
	END IF;
	FOR i IN 1..p_rounds - p_have LOOP
		r := nextval('rounds_id');
		FOR c IN SELECT x.commit, row_number() OVER (ORDER BY random())
			AS pos FROM unnest(p_commits) AS x(commit) LOOP
			t := robot_run_like(p_series, c.commit, p_commits[1]);
			IF t.id IS NULL THEN
				RETURN 0;
			END IF;
			INSERT INTO jobs (submission, key, tbox_group, series,
				commit, tree, job, needs, run, runs, priority,
				max_attempts, pair, round, round_pos)
			VALUES (t.submission, t.key, t.tbox_group, t.series,
				c.commit, coalesce(p_tree, t.tree), t.job,
				t.needs, p_have + i, p_rounds,
				t.priority + CASE WHEN EXISTS (SELECT 1
					FROM pairs x WHERE x.id = p_pair
					AND x.bisection IS NOT NULL)
					AND NOT EXISTS (SELECT 1 FROM pairs y
					WHERE y.id = t.pair
					AND y.bisection IS NOT NULL)
					THEN 1 ELSE 0 END,
				t.max_attempts, p_pair, r, c.pos);
		END LOOP;
	END LOOP;
	PERFORM pg_notify('robot_jobs', t.tbox_group);
	RETURN p_rounds - p_have;
END $$;

-- More rounds of pair p until it has p_rounds (the cancelled ones not
-- counted): each a run of its base and of its head, in a random order
-- (robot_rounds_add()).  Returns how many rounds.
CREATE FUNCTION robot_pair_more(p pairs, p_rounds int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	have int;
BEGIN
	IF p.base = p.head THEN
		RETURN robot_side_more(p.id, p.series, p.base, p_rounds);
	END IF;
	SELECT count(*) INTO have
		FROM robot_pair_rounds(p.series, p.base, p.head);
	RETURN robot_rounds_add(p.series, p.tree, ARRAY[p.base, p.head], have,
		p_rounds, p.id);
END $$;

-- Pair p measured again, waiting for rounds until it has p_rounds (its
-- cap set to p_max_runs when given); ready at once when they are all
-- there already.
CREATE FUNCTION robot_pair_again(p pairs, p_rounds int,
	p_max_runs int DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE pairs SET state = 'waiting', updated = now(),
		max_runs = coalesce(p_max_runs, max_runs) WHERE id = p.id;
	PERFORM robot_pair_more(p, p_rounds);
	IF (SELECT robot_pair_ended(x) FROM pairs x WHERE x.id = p.id) THEN
		UPDATE pairs SET state = 'ready', ready_at = now()
			WHERE id = p.id;
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
END $$;

-- The noise history of series p_series for robot/analysis/noise.c: each
-- metric's newest (at most 30) earlier pairs' noise, [{metric, obs:
-- [[var, df], ...]}], but p_pair's own, and leaving out the rounds of a
-- box that turned suspect or was reset since (boxes.noise_since); with
-- p_since_change, also those from before the metric's newest regression
-- or improvement in the series (the history restarts where the KPI
-- changed).
CREATE FUNCTION robot_noise_obs(p_series text, p_pair bigint,
	p_since_change boolean) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT coalesce(json_agg(json_build_object('metric', m.metric,
		'obs', m.obs) ORDER BY m.metric), '[]')
	FROM (SELECT n.metric, json_agg(json_build_array(n.var, n.df)
		ORDER BY n.created DESC) AS obs
		FROM (SELECT x.metric, x.var, x.df, x.created,
			row_number() OVER (PARTITION BY x.metric
				ORDER BY x.created DESC) AS k
			FROM noise x WHERE x.series = p_series
			AND x.pair IS DISTINCT FROM p_pair
			AND NOT EXISTS (SELECT 1 FROM boxes b
				WHERE b.name = ANY (x.boxes)
				AND b.noise_since > x.created)
			AND NOT (p_since_change AND EXISTS (SELECT 1
				FROM regressions r WHERE r.series = x.series
				AND r.kpi = x.metric AND r.state <> 'invalid'
				AND r.created > x.created))) n
		WHERE n.k <= 30 GROUP BY n.metric) m
$$;

-- The next pair to analyse, claimed for p_seconds: {pair, analyses,
-- max_runs, looked (the runs a side of its last look), bisection
-- (whether a bisection made it), capped (a submission's own cap, which
-- no look goes past: docs/statistics.md, "The promising look"), series,
-- base, head, open, noise};
-- robotd then reads its values in binary (store_pair_columns()).  noise:
-- the series' noise history (robot_noise_obs()), of which robotd fits
-- each KPI's prior (a bisection's pair, which measures commits on both
-- sides of the change, from the history before it too).  open: the findings its branch recorded
-- for the series at earlier heads and did not close (a pair's: a change
-- point's is the history's to close), the newest of each KPI ([{id, kpi,
-- kind, change_pct}]), from which robotd decides what
-- the pair records (robot/analysis/findings.c).  So that they are still
-- so when it is done, claims take turns, and a pair of a branch is not
-- handed out while another of its branch and series is analysed.  NULL
-- when no pair is ready.
CREATE FUNCTION robot_pair_next(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('robot_pair_next'));
	UPDATE pairs SET state = 'analysing', analyses = analyses + 1,
		claimed_until = now() + make_interval(secs => p_seconds),
		updated = now()
		WHERE id = (SELECT x.id FROM pairs x
			WHERE (x.state = 'ready' OR (x.state = 'analysing'
				AND x.claimed_until < now()))
			AND (x.branch IS NULL OR NOT EXISTS (SELECT 1
				FROM pairs o WHERE o.series = x.series
				AND o.tree = x.tree AND o.branch = x.branch
				AND o.id <> x.id AND o.state = 'analysing'
				AND o.claimed_until >= now()))
			ORDER BY x.id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING * INTO p;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	RETURN json_build_object('pair', p.id, 'analyses', p.analyses,
		'max_runs', p.max_runs, 'looked', p.looked,
		'bisection', p.bisection IS NOT NULL,
		'capped', p.tree IS NULL AND p.max_runs IS NOT NULL,
		'series', p.series,
		'base', p.base, 'head', p.head,
		'noise', robot_noise_obs(p.series, p.id, p.bisection IS NULL),
		'open', (SELECT coalesce(json_agg(json_build_object('id', r.id,
			'kpi', r.kpi, 'kind', r.kind,
			'change_pct', r.change_pct) ORDER BY r.kpi), '[]')
			FROM (SELECT DISTINCT ON (x.kpi) x.* FROM regressions x
			WHERE p.branch IS NOT NULL AND x.tree = p.tree
			AND x.branch = p.branch AND x.series = p.series
			AND x.state NOT IN ('fixed', 'invalid')
			AND x.found_by = 'pair'
			AND x.pair < p.id ORDER BY x.kpi, x.id DESC) r));
END $$;

-- What a final pair records of its KPIs, as robotd decided it
-- (p_findings: [{kpi, verdict, change_pct, p_value, action,
-- regression}]): a new regression or improvement, or one of its branch
-- (regression: the id) still there at its head, or fixed by it.  An
-- open finding closed meanwhile (marked invalid) is left as it is; one
-- of its own that it no longer shows is marked invalid.
CREATE FUNCTION robot_pair_findings(p pairs, p_runs int, p_comparison json,
	p_findings json) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	f record;
	-- The commit at fault is the head when the range (base, head] is
	-- that one commit (its only parent the base: a merge brings the
	-- commits of its other side), or when no tree gives the range (ad
	-- hoc runs); else a bisection finds it.
	v_culprit text := CASE WHEN p.tree IS NULL OR EXISTS (SELECT 1
		FROM tree_commits c WHERE c.tree = p.tree AND c.sha = p.head
		AND c.parents = ARRAY[p.base]) THEN p.head END;
	v_base_runs int := (p_comparison->'base_runs'->>'ok')::int;
	v_head_runs int := (p_comparison->'head_runs'->>'ok')::int;
	v_n int;
BEGIN
	FOR f IN SELECT * FROM json_to_recordset(p_findings) AS x(kpi text,
		verdict text, change_pct float8, p_value float8, action text,
		regression bigint) LOOP
		IF f.action = 'fixed' THEN
			-- (untriaged or acknowledged: recovered; a fix a
			-- person named: confirmed)
			UPDATE regressions SET state = 'fixed',
				fixed_by = p.head, updated = now(),
				triage = CASE WHEN triage IN ('untriaged',
					'acknowledged') THEN 'recovered'
					ELSE triage END,
				fix_confirmed = CASE WHEN triage = 'fixed'
					THEN now() END
				WHERE id = f.regression
				AND state NOT IN ('fixed', 'invalid');
			GET DIAGNOSTICS v_n = ROW_COUNT;
			IF v_n > 0 THEN
				INSERT INTO triage_events (regression, action,
					detail, by_name, how)
					VALUES (f.regression, 'recovered',
					p.head, 'robotd', 'robotd');
			END IF;
		ELSIF f.action = 'still' THEN
			-- (the record keeps what it was found with)
			UPDATE regressions SET last_head = p.head,
				last_change_pct = f.change_pct,
				last_p_value = f.p_value, last_runs = p_runs,
				updated = now()
				WHERE id = f.regression
				AND state NOT IN ('fixed', 'invalid');
		ELSIF f.action = 'new' THEN
			INSERT INTO regressions AS x (kind, tree, branch,
				commit, base, series, kpi, change_pct,
				p_value, runs, base_runs, head_runs, pair,
				last_head, culprit)
			VALUES (f.verdict, p.tree, p.branch, p.head, p.base,
				p.series, f.kpi, f.change_pct, f.p_value,
				p_runs, v_base_runs, v_head_runs, p.id, p.head,
				v_culprit)
			ON CONFLICT (series, kpi, base, commit, kind) DO
			UPDATE SET change_pct = EXCLUDED.change_pct,
				p_value = EXCLUDED.p_value,
				runs = EXCLUDED.runs,
				base_runs = EXCLUDED.base_runs,
				head_runs = EXCLUDED.head_runs, updated = now()
				WHERE x.report IS NULL;
			-- A record reported already keeps the figures its
			-- report gave; its pair measured again (more
			-- rounds, a reproduction's runs) is an event with
			-- the new ones, once for each new measure.
			IF NOT FOUND THEN
				INSERT INTO regression_events (regression,
					kind, head, change_pct, p_value, runs,
					base_runs, head_runs, submission)
				SELECT x.id, 'measured', p.head, f.change_pct,
					f.p_value, p_runs, v_base_runs,
					v_head_runs, (SELECT max(j.submission)
					FROM jobs j WHERE j.series = p.series
					AND j.commit IN (p.base, p.head)
					AND j.state = 'done')
				FROM regressions x WHERE x.series = p.series
				AND x.kpi = f.kpi AND x.base = p.base
				AND x.commit = p.head AND x.kind = f.verdict
				AND x.report IS NOT NULL
				AND (x.base_runs, x.head_runs, x.change_pct)
					IS DISTINCT FROM (v_base_runs,
					v_head_runs, f.change_pct)
				AND NOT EXISTS (SELECT 1 FROM regression_events e
					WHERE e.regression = x.id
					AND e.kind = 'measured'
					AND e.base_runs = v_base_runs
					AND e.head_runs = v_head_runs);
			END IF;
		END IF;
	END LOOP;
	-- The pair measured again (robot_pair_again(): its box turned
	-- suspect) shows no longer what it recorded before: that record,
	-- held from its report meanwhile, is invalid.  One reported
	-- already is left to the people it was mailed to.
	UPDATE regressions r SET state = 'invalid', updated = now()
		WHERE r.pair = p.id AND r.state = 'new' AND r.report IS NULL
		AND r.found_by = 'pair' AND NOT EXISTS (SELECT 1 FROM json_to_recordset(p_findings)
			AS x(kpi text, verdict text, action text)
			WHERE x.action = 'new' AND x.kpi = r.kpi
			AND x.verdict = r.kind);
END $$;

-- A final pair that stayed inconclusive at the run cap (p_note: how much
-- its KPI p_kpi varies, and the runs it would need): the pair says so in
-- words naming the boxes that ran it, and a note for the lab's operators
-- is due (robot_note_next()), unless one of the same series and boxes
-- was made in the last day (the operators hear of a box once a day), or
-- the pair is a bisection's step.
CREATE FUNCTION robot_pair_noisy(p pairs, p_kpi text, p_note text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	bx text[];
	msg text;
BEGIN
	SELECT coalesce(array_agg(DISTINCT box ORDER BY box), '{}') INTO bx
		FROM jobs WHERE series = p.series
		AND commit IN (p.base, p.head) AND state = 'done'
		AND box IS NOT NULL;
	msg := format('too noisy on %s %s for this job (%s): %s',
		CASE WHEN cardinality(bx) = 1 THEN 'box' ELSE 'boxes' END,
		CASE WHEN cardinality(bx) = 0 THEN '?'
			ELSE array_to_string(bx, ', ') END, p.series, p_note);
	UPDATE pairs SET note = msg WHERE id = p.id;
	-- (a bisection's step pair gets more rounds from its bisection,
	-- up to the bisection's cap: the operators hear of the box from
	-- the heads' pairs, whose cap is the one the note names)
	IF p.bisection IS NOT NULL THEN
		RETURN;
	END IF;
	-- Once a day per box: another series joins the day's note (named
	-- in its mail when it is not told yet, on the lab page after).
	UPDATE lab_notes SET also = also || p.series
		WHERE id = (SELECT id FROM lab_notes WHERE kind = 'noisy'
			AND boxes = bx AND created > now() - interval '1 day'
			ORDER BY id DESC LIMIT 1)
		AND series <> p.series AND NOT p.series = ANY (also);
	PERFORM 1 FROM lab_notes WHERE kind = 'noisy' AND boxes = bx
		AND created > now() - interval '1 day';
	IF FOUND THEN
		RETURN;
	END IF;
	INSERT INTO lab_notes (kind, pair, series, boxes, kpi, message)
		VALUES ('noisy', p.id, p.series, bx, p_kpi, msg);
	PERFORM pg_notify('robot_jobs', ':reports');
END $$;

-- What a final pair p measured in rounds showed of its KPIs' noise
-- (p_kpis: [{kpi, verdict, noise_var, noise_df, ...}]): each KPI it did
-- not find changed adds the variance of a round's difference and its
-- degrees of freedom to its series' history (robot_noise_obs()), with
-- the boxes its rounds ran on; a pair measured again replaces its own.
CREATE FUNCTION robot_pair_noise(p pairs, p_kpis json) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	bx text[];
BEGIN
	SELECT coalesce(array_agg(DISTINCT x.base_box), '{}') INTO bx
		FROM robot_pair_rounds(p.series, p.base, p.head) x
		WHERE x.base_state = 'done' AND x.head_state = 'done'
		AND x.base_box = x.head_box;
	DELETE FROM noise WHERE pair = p.id;
	IF cardinality(bx) = 0 THEN
		RETURN;
	END IF;
	INSERT INTO noise (pair, metric, series, var, df, boxes)
	SELECT p.id, k.kpi, p.series, k.noise_var, k.noise_df, bx
	FROM json_to_recordset(p_kpis) AS k(kpi text, verdict text,
		noise_var float8, noise_df float8)
	WHERE k.kpi IS NOT NULL
		AND k.verdict IN ('unchanged', 'inconclusive')
		AND k.noise_var > 0 AND k.noise_var < 'Infinity'
		AND k.noise_df > 0 AND k.noise_df < 'Infinity'
	ON CONFLICT (pair, metric) DO NOTHING;
END $$;

-- The end of an analysis of pair p_pair under claim p_analyses: with
-- p_more > 0, more rounds until it has p_more (the pair waits for
-- them); else the pair is final, keeps its KPIs' verdicts (p_kpis:
-- [{kpi, verdict, change_pct, p_value, noise_var, noise_df}]), adds
-- their noise to the series' history (robot_pair_noise()) and records
-- its findings.  A
-- pair a bisection made records no findings and wakes the bisections.
-- p_note: a final pair inconclusive at the cap, its noise in words
-- (robot_pair_noisy()).  p_looked: the runs a side it was asked for at
-- this look.  A claim that another robotd took over
-- meanwhile changes nothing: 'stale'.
CREATE FUNCTION robot_pair_done(p_pair bigint, p_analyses int,
	p_verdict text, p_kpi text, p_runs int, p_comparison json,
	p_table text, p_more int, p_kpis json, p_findings json,
	p_note text DEFAULT NULL, p_looked int DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
BEGIN
	SELECT * INTO p FROM pairs WHERE id = p_pair FOR UPDATE;
	IF NOT FOUND OR p.state <> 'analysing' OR p.analyses <> p_analyses
	THEN
		RETURN 'stale';
	END IF;
	UPDATE pairs SET verdict = p_verdict, kpi = p_kpi, runs = p_runs,
		comparison = p_comparison, table_text = p_table,
		kpis = p_kpis, claimed_until = NULL, updated = now(),
		looked = coalesce(p_looked, looked),
		state = CASE WHEN p_more > 0 THEN 'waiting' ELSE 'final' END
		WHERE id = p_pair;
	IF p_more > 0 THEN
		PERFORM robot_pair_more(p, p_more);
		IF (SELECT robot_pair_ended(x) FROM pairs x WHERE x.id = p_pair)
		THEN
			UPDATE pairs SET state = 'final' WHERE id = p_pair;
		ELSE
			RETURN 'more';
		END IF;
	END IF;
	IF p_note IS NOT NULL THEN
		PERFORM robot_pair_noisy(p, p_kpi, p_note);
	END IF;
	PERFORM robot_pair_noise(p, p_kpis);
	IF p.bisection IS NOT NULL THEN
		PERFORM pg_notify('robot_jobs', ':bisect');
		RETURN 'final';
	END IF;
	PERFORM robot_pair_findings(p, p_runs, p_comparison, p_findings);
	-- The last pair of a commit may make its report due; a bisection
	-- may wait for it.
	PERFORM pg_notify('robot_jobs', ':reports');
	PERFORM pg_notify('robot_jobs', ':bisect');
	RETURN 'final';
END $$;

-- What one ok run of a side says of its setting: the job's tunables
-- ("sysctl") and its provisioning (the commit's subject, the tunables
-- the hook set), so that robot compare --series prints what it prints
-- of result files without fetching them.
CREATE FUNCTION robot_run_setting(p_series text, p_commit text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('sysctl', doc->'sysctl',
		'provision', doc->'provision')
	FROM results WHERE series = p_series AND commit = p_commit
		AND status = 'ok'
	ORDER BY id LIMIT 1
$$;

-- Every run's values of p_metrics of a series at two commits:
-- {metric: {"base": [...], "head": [...]}}.
CREATE FUNCTION robot_side_values(p_series text, p_base text, p_head text,
	p_metrics text[]) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT coalesce(json_object_agg(x.metric, json_build_object(
		'base', x.b, 'head', x.h, 'base_jobs', x.bj,
		'head_jobs', x.hj)), '{}')
	FROM (SELECT k.metric, b.vals AS b, h.vals AS h, b.jobs AS bj,
		h.jobs AS hj
		FROM unnest(p_metrics) AS k(metric)
		LEFT JOIN metric_values b ON b.series = p_series
			AND b.commit = p_base AND b.metric = k.metric
		LEFT JOIN metric_values h ON h.series = p_series
			AND h.commit = p_head AND h.metric = k.metric) x
$$;

-- What a comparison asked for (GET /api/compare) adds: the values of
-- its KPIs and each side's setting.
CREATE FUNCTION robot_compare_extras(p_series text, p_base text,
	p_head text, p_metrics text[]) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'values', robot_side_values(p_series, p_base, p_head, p_metrics),
		'runs', json_build_object(
			'base', robot_run_setting(p_series, p_base),
			'head', robot_run_setting(p_series, p_head)))
$$;

-- Pairs left waiting for runs that have all ended, made ready (at most
-- 100 a call): robot_job_ended()'s locking should leave none, so each
-- one found is a bug to log.  Those that changed in the last 10 seconds
-- are left to what changes them.  Returns their ids.
CREATE FUNCTION robot_pairs_mend() RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
	ids bigint[];
BEGIN
	WITH x AS (UPDATE pairs SET state = 'ready', ready_at = now(),
		updated = now()
		WHERE id IN (SELECT q.id FROM pairs q WHERE q.state = 'waiting'
			AND q.updated < now() - interval '10 seconds'
			AND robot_pair_ended(q)
			ORDER BY q.id LIMIT 100 FOR UPDATE SKIP LOCKED)
		RETURNING id)
	SELECT array_agg(id ORDER BY id) INTO ids FROM x;
	IF ids IS NOT NULL THEN
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
	RETURN coalesce(ids, '{}');
END $$;

-- The history of each KPI of a final pair of a branch (not a
-- bisection's), up to its head: the commits on the head's first-parent
-- line (at most p_limit back, as far as robotd fetched them) that have
-- values of the series, oldest first, with their values.  {pair, series,
-- tree, branch, head, histories: [{kpi, commits: [{commit, vals}]}]}, or
-- NULL for a pair without a branch.
CREATE FUNCTION robot_pair_history(p_pair bigint, p_limit int) RETURNS json
LANGUAGE sql STABLE AS $$
	WITH RECURSIVE p AS (SELECT * FROM pairs WHERE id = p_pair
		AND tree IS NOT NULL AND branch IS NOT NULL
		AND bisection IS NULL AND state = 'final'
		AND verdict IS DISTINCT FROM 'cancelled'),
	fp(sha, parents, pos) AS (
		SELECT c.sha, c.parents, 0 FROM p JOIN tree_commits c
			ON c.tree = p.tree AND c.sha = p.head
		UNION ALL
		SELECT c.sha, c.parents, fp.pos + 1 FROM fp JOIN tree_commits c
			ON c.tree = (SELECT tree FROM p)
			AND c.sha = fp.parents[1]
			WHERE fp.pos < p_limit)
	SELECT json_build_object('pair', p.id, 'series', p.series,
		'tree', p.tree, 'branch', p.branch, 'head', p.head,
		'histories', (SELECT coalesce(json_agg(json_build_object(
			'kpi', k.kpi, 'commits', (SELECT coalesce(json_agg(
				json_build_object('commit', m.commit,
				'vals', m.vals) ORDER BY fp.pos DESC), '[]')
				FROM fp JOIN metric_values m
				ON m.series = p.series AND m.metric = k.kpi
				AND m.commit = fp.sha)) ORDER BY k.kpi), '[]')
			FROM (SELECT DISTINCT x->>'kpi' AS kpi
			FROM json_array_elements(p.kpis) x) k))
	FROM p
$$;

-- What the change points of a pair's histories record (p: {pair,
-- series, tree, branch, head, kpis: [{kpi, changes: [{commit, base,
-- kind, change_pct, p, window, history}]}]}, robotd's reading of
-- robot_pair_history(): each change point in the KPI's worse direction,
-- base the point before it, window the commits of the segments around
-- it).  For each KPI scanned, a change point is:
-- - the same change as an open record of the history whose commit lies
--   in its window: that record, moved to it while it is new and not
--   reported, else its figures updated;
-- - a regression a pair of the tree found already, fixed since or not
--   (its culprit, its head, or in its range): nothing;
-- - else a new record (found_by 'change point'), with the pair of its
--   two points when there is one, and bisected between them
--   (robot_regression_bisect()) unless they are one commit apart.
-- An open record of the history that no change point is now is invalid
-- while it is new and not reported.  Returns {new, moved, updated,
-- dropped}.
CREATE FUNCTION robot_change_points_record(p json) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	k record;
	c record;
	r regressions;
	kept bigint[] := '{}';
	n_new int := 0;
	n_moved int := 0;
	n_updated int := 0;
	n_dropped int := 0;
	v_tree text := p->>'tree';
	v_branch text := p->>'branch';
	v_series text := p->>'series';
	v_culprit text;
	v_rows int;
BEGIN
	FOR k IN SELECT x->>'kpi' AS kpi, x->'changes' AS changes
		FROM json_array_elements(p->'kpis') x LOOP
		FOR c IN SELECT * FROM json_to_recordset(k.changes) AS y(
			commit text, base text, kind text, change_pct float8,
			p float8, "window" text[], history json) LOOP
			v_culprit := CASE WHEN EXISTS (SELECT 1
				FROM tree_commits t WHERE t.tree = v_tree
				AND t.sha = c.commit
				AND t.parents = ARRAY[c.base]) THEN c.commit END;
			SELECT * INTO r FROM regressions x
				WHERE x.found_by = 'change point'
				AND x.tree = v_tree AND x.branch = v_branch
				AND x.series = v_series AND x.kpi = k.kpi
				AND x.kind = c.kind
				AND x.state NOT IN ('fixed', 'invalid')
				AND x.commit = ANY (c."window")
				AND x.id <> ALL (kept)
				ORDER BY x.id LIMIT 1 FOR UPDATE;
			IF FOUND THEN
				kept := kept || r.id;
				IF r.commit <> c.commit AND r.state = 'new'
					AND r.report IS NULL THEN
					UPDATE regressions SET commit = c.commit,
						base = c.base, culprit = v_culprit,
						change_pct = c.change_pct,
						p_value = c.p, history = c.history,
						last_head = p->>'head',
						updated = now()
						WHERE id = r.id;
					n_moved := n_moved + 1;
				ELSE
					-- (its last_head stays: a change
					-- point seen again is no news)
					UPDATE regressions SET
						change_pct = c.change_pct,
						p_value = c.p, history = c.history,
						updated = now()
						WHERE id = r.id;
					n_updated := n_updated + 1;
				END IF;
				CONTINUE;
			END IF;
			IF EXISTS (SELECT 1 FROM regressions x
				WHERE x.found_by = 'pair' AND x.tree = v_tree
				AND x.series = v_series AND x.kpi = k.kpi
				AND x.kind = c.kind AND x.state <> 'invalid'
				AND (x.culprit = c.commit OR x.commit = c.commit
				OR x.bisected_to = c.commit
				OR c.commit IN (SELECT q.sha FROM
					robot_range_commits(x.tree, x.base,
					x.commit) q))) THEN
				CONTINUE;
			END IF;
			INSERT INTO regressions (kind, found_by, tree, branch,
				commit, base, series, kpi, change_pct, p_value,
				runs, base_runs, head_runs, pair, last_head,
				culprit, history)
			VALUES (c.kind, 'change point', v_tree, v_branch,
				c.commit, c.base, v_series, k.kpi,
				c.change_pct, c.p,
				least((c.history->'before'->>'runs')::int,
					(c.history->'after'->>'runs')::int),
				(c.history->'before'->>'runs')::int,
				(c.history->'after'->>'runs')::int,
				coalesce((SELECT x.id FROM pairs x
					WHERE x.series = v_series
					AND x.base = c.base
					AND x.head = c.commit),
					(p->>'pair')::bigint),
				p->>'head', v_culprit, c.history)
			ON CONFLICT (series, kpi, base, commit, kind) DO NOTHING
			RETURNING * INTO r;
			IF FOUND THEN
				kept := kept || r.id;
				n_new := n_new + 1;
			END IF;
		END LOOP;
		UPDATE regressions x SET state = 'invalid', updated = now()
			WHERE x.found_by = 'change point' AND x.tree = v_tree
			AND x.branch = v_branch AND x.series = v_series
			AND x.kpi = k.kpi AND x.state = 'new'
			AND x.report IS NULL AND x.id <> ALL (kept);
		GET DIAGNOSTICS v_rows = ROW_COUNT;
		n_dropped := n_dropped + v_rows;
	END LOOP;
	RETURN json_build_object('new', n_new, 'moved', n_moved,
		'updated', n_updated, 'dropped', n_dropped);
END $$;

-- Who may change regression p_id (r), as p_by with a token of kind
-- p_kind: an admin or a triager any (and a recipient of its report,
-- by mail), a submitter the findings of its
-- own runs (the first of its series at its commit); a tree's findings
-- are the admins' and the triagers' (issue 61: any submit token could
-- set any regression invalid, which kept it from being mailed).
-- Raises RB403 else.
CREATE FUNCTION robot_regression_may(r regressions, p_by text, p_kind text)
	RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
	owner text;
BEGIN
	-- (mail: a recipient of its report, whose reply address robotd
	-- checked: robot_mail_in())
	IF p_kind IN ('admin', 'triage', 'mail') THEN
		RETURN;
	END IF;
	-- (a report mail's link: that report's findings only; p_kind is
	-- 'link:REPORT')
	IF p_kind LIKE 'link:%' THEN
		IF r.report IS DISTINCT FROM substring(p_kind FROM 6)::bigint
			THEN
			RAISE EXCEPTION 'your link opened report %''s findings: regression % is not one of them',
				substring(p_kind FROM 6), r.id
				USING ERRCODE = 'RB403';
		END IF;
		RETURN;
	END IF;
	SELECT s.submitter INTO owner FROM jobs j
		JOIN submissions s ON s.id = j.submission
		WHERE j.series = r.series AND j.commit = r.commit
		ORDER BY j.id LIMIT 1;
	IF r.tree IS NOT NULL THEN
		RAISE EXCEPTION 'regression % was found in tree %: only a triage or admin token may change it',
			r.id, r.tree USING ERRCODE = 'RB403';
	ELSIF owner IS DISTINCT FROM p_by THEN
		RAISE EXCEPTION 'regression % was found in %''s runs: only %, a triage or an admin token may change it',
			r.id, coalesce(owner, 'nobody'),
			coalesce(owner, 'nobody') USING ERRCODE = 'RB403';
	END IF;
END $$;

-- A person sets regression p_id's state (POST /api/regressions/:id), as
-- robot_regression_may() allows: invalid and fixed are triage too
-- (robot_regression_triage()).  The record, or NULL when there is no
-- such regression.
CREATE FUNCTION robot_regression_set(p_id bigint, p_state text, p_by text,
	p_admin boolean) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	r regressions;
BEGIN
	SELECT * INTO r FROM regressions WHERE id = p_id FOR UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	PERFORM robot_regression_may(r, p_by,
		CASE WHEN p_admin THEN 'admin' ELSE 'submit' END);
	UPDATE regressions SET state = p_state,
		triage_closed_from = CASE WHEN p_state = 'invalid'
			AND state <> 'invalid' THEN state
			ELSE triage_closed_from END,
		triage = CASE p_state WHEN 'invalid' THEN 'invalid'
			WHEN 'fixed' THEN 'fixed' ELSE triage END,
		triage_reason = CASE WHEN p_state = 'invalid'
			THEN 'other' ELSE triage_reason END,
		updated = now()
		WHERE id = p_id RETURNING * INTO r;
	IF p_state IN ('invalid', 'fixed') THEN
		INSERT INTO triage_events (regression, action, detail, by_name,
			how) VALUES (p_id, p_state, 'state ' || p_state, p_by,
			'api');
	END IF;
	RETURN json_build_object('id', r.id, 'state', r.state, 'triage',
		r.triage, 'updated', r.updated);
END $$;

-- Whether mute m matches finding r: its series, its KPI by the glob
-- (* and ?), or a box that ran its runs.
CREATE FUNCTION robot_mute_matches(m mutes, r regressions) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT CASE m.kind
		WHEN 'series' THEN r.series = m.pattern
		WHEN 'metric' THEN r.kpi LIKE replace(replace(replace(replace(
			replace(m.pattern, '\', '\\'), '%', '\%'), '_',
			'\_'), '*', '%'), '?', '_')
		ELSE EXISTS (SELECT 1 FROM jobs j JOIN leases l
			ON l.job = j.id AND l.state = 'done'
			WHERE j.series = r.series
			AND j.commit IN (r.base, r.commit) AND l.box = m.pattern)
	END
$$;

-- The active mute that matches finding r, or NULL.
CREATE FUNCTION robot_mute_of(r regressions) RETURNS bigint
LANGUAGE sql STABLE AS $$
	SELECT m.id FROM mutes m WHERE m.ended IS NULL AND m.expires > now()
		AND robot_mute_matches(m, r) ORDER BY m.id LIMIT 1
$$;

-- A mute (p: {kind, pattern, reason, seconds}) by p_by, given by p_how:
-- the same kind and pattern muted already is muted until the later
-- expiry, with this reason.  Every open finding it matches (neither
-- fixed nor invalid) is muted by it.  {id, kind, pattern, reason,
-- expires, findings: how many it mutes}.
CREATE FUNCTION robot_mute(p json, p_by text, p_how text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	m mutes;
	n int;
BEGIN
	IF p->>'kind' NOT IN ('series', 'metric', 'box')
		OR coalesce(p->>'pattern', '') = ''
		OR coalesce(p->>'reason', '') = ''
		OR coalesce((p->>'seconds')::bigint, 0) <= 0 THEN
		RAISE EXCEPTION 'a mute is {kind: series, metric or box, pattern, reason, seconds > 0}'
			USING ERRCODE = 'RB400';
	END IF;
	PERFORM pg_advisory_xact_lock(hashtext('robot_mute'));
	UPDATE mutes SET expires = greatest(expires, now() + make_interval(
		secs => (p->>'seconds')::float8)), reason = p->>'reason'
		WHERE ended IS NULL AND expires > now() AND kind = p->>'kind'
		AND pattern = p->>'pattern' RETURNING * INTO m;
	IF NOT FOUND THEN
		INSERT INTO mutes (kind, pattern, reason, expires, by_name, how)
			VALUES (p->>'kind', p->>'pattern', p->>'reason',
			now() + make_interval(secs =>
				(p->>'seconds')::float8), p_by, p_how)
			RETURNING * INTO m;
	END IF;
	UPDATE regressions r SET muted_by = m.id
		WHERE r.muted_by IS NULL AND r.state NOT IN ('fixed', 'invalid')
		AND robot_mute_matches(m, r);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN json_build_object('id', m.id, 'kind', m.kind,
		'pattern', m.pattern, 'reason', m.reason, 'expires', m.expires,
		'by', m.by_name, 'findings', n);
END $$;

-- Mute p_id ended before it expired: its findings are no longer muted
-- (those not reported yet are reported now).  The mute, or NULL when
-- there is no such mute.
CREATE FUNCTION robot_unmute(p_id bigint) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	m mutes;
BEGIN
	UPDATE mutes SET ended = coalesce(ended, now()) WHERE id = p_id
		RETURNING * INTO m;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	UPDATE regressions SET muted_by = NULL WHERE muted_by = p_id;
	PERFORM pg_notify('robot_jobs', ':reports');
	RETURN json_build_object('id', m.id, 'kind', m.kind,
		'pattern', m.pattern, 'ended', m.ended);
END $$;

-- The mutes, the active ones first, then the newest 50 others.
CREATE FUNCTION robot_mutes() RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('mutes', coalesce(json_agg(json_build_object(
		'id', m.id, 'kind', m.kind, 'pattern', m.pattern,
		'reason', m.reason, 'expires', m.expires, 'by', m.by_name,
		'how', m.how, 'ended', m.ended, 'created', m.created,
		'active', m.ended IS NULL AND m.expires > now(),
		'findings', (SELECT count(*) FROM regressions r
			WHERE r.muted_by = m.id))
		ORDER BY m.ended IS NULL AND m.expires > now() DESC, m.id DESC),
		'[]'))
	FROM (SELECT * FROM mutes ORDER BY ended IS NULL AND expires > now()
		DESC, id DESC LIMIT 200) m
$$;

-- Mutes that expired since the last look: each told in a lab note once.
CREATE FUNCTION robot_mutes_expire() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	n int;
BEGIN
	WITH x AS (UPDATE mutes SET noted = now() WHERE ended IS NULL
		AND noted IS NULL AND expires <= now() RETURNING *)
	INSERT INTO lab_notes (kind, series, boxes, message)
		SELECT 'mute', x.pattern, CASE WHEN x.kind = 'box'
			THEN ARRAY[x.pattern] ELSE '{}' END,
			format('the mute of %s %s (%s, by %s) expired: its '
			'findings from now on are mailed', x.kind, x.pattern,
			x.reason, x.by_name)
		FROM x;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- A finding made while a mute matches it is muted by it.
CREATE FUNCTION robot_regression_mute() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	NEW.muted_by := coalesce(NEW.muted_by, robot_mute_of(NEW));
	RETURN NEW;
END $$;
CREATE TRIGGER regressions_mute BEFORE INSERT ON regressions FOR EACH ROW
	EXECUTE FUNCTION robot_regression_mute();

-- A triage command (robot/analysis/triage.h, parsed by robotd) on
-- regression p_id, by p_by with a token of kind p_kind (admin, triage,
-- submit: robot_regression_may()), given by p_how (page, mail, api,
-- cli): p_cmd is {action, reason, text, arg, dup}.  invalid closes the
-- finding as a person's invalid always did (state invalid: no more news
-- of it is mailed); untriage opens it again.  Each command is an event.
-- The finding's triage, or NULL when there is no such regression; RB400
-- for a duplicate of none, or of itself.
CREATE FUNCTION robot_regression_triage(p_id bigint, p_cmd json, p_by text,
	p_kind text, p_how text, p_box_limit int DEFAULT 2) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	r regressions;
	x record;
	a text := p_cmd->>'action';
	v_text text := nullif(p_cmd->>'text', '');
	v_arg text := nullif(p_cmd->>'arg', '');
	v_dup bigint := (p_cmd->>'dup')::bigint;
	detail text;
BEGIN
	SELECT * INTO r FROM regressions WHERE id = p_id FOR UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	PERFORM robot_regression_may(r, p_by, p_kind);
	IF a = 'ack' THEN
		UPDATE regressions SET triage = 'acknowledged',
			assignee = coalesce(v_arg, assignee) WHERE id = p_id;
		detail := v_arg;
	ELSIF a = 'invalid' THEN
		UPDATE regressions SET triage = 'invalid',
			triage_reason = coalesce(p_cmd->>'reason', 'other'),
			triage_text = v_text, state = 'invalid',
			triage_closed_from = CASE WHEN state <> 'invalid'
				THEN state ELSE triage_closed_from END
			WHERE id = p_id;
		detail := concat_ws(': ', coalesce(p_cmd->>'reason', 'other'),
			v_text);
	ELSIF a = 'wontfix' THEN
		UPDATE regressions SET triage = 'wontfix', triage_text = v_text
			WHERE id = p_id;
		detail := v_text;
	ELSIF a = 'dup-of' THEN
		IF v_dup IS NULL OR v_dup = p_id OR NOT EXISTS (SELECT 1
			FROM regressions WHERE id = v_dup) THEN
			RAISE EXCEPTION 'dup-of: % is no other finding',
				coalesce(v_dup::text, 'nothing')
				USING ERRCODE = 'RB400';
		END IF;
		UPDATE regressions SET triage = 'duplicate',
			duplicate_of = v_dup WHERE id = p_id;
		detail := v_dup::text;
	ELSIF a = 'fixed-by' THEN
		UPDATE regressions SET triage = 'fixed', fix_claimed = v_arg,
			fix_confirmed = NULL WHERE id = p_id;
		detail := v_arg;
	ELSIF a = 'note' THEN
		detail := v_text;
	ELSIF a = 'link' THEN
		UPDATE regressions SET bug_url = v_arg WHERE id = p_id;
		detail := v_arg;
	ELSIF a = 'tag' THEN
		UPDATE regressions SET tags = ARRAY(SELECT DISTINCT t FROM
			unnest(tags || string_to_array(v_arg, ',')) t ORDER BY t)
			WHERE id = p_id;
		detail := v_arg;
	ELSIF a = 'mute' THEN
		-- (its series, for the time the command gives)
		PERFORM robot_mute(json_build_object('kind', 'series',
			'pattern', r.series, 'reason', coalesce(v_text,
			format('muted from regression %s', p_id)),
			'seconds', (p_cmd->>'seconds')::bigint), p_by,
			CASE WHEN p_how = 'robotd' THEN 'api' ELSE p_how END);
		detail := concat_ws(': ', v_arg, v_text);
		SELECT * INTO r FROM regressions WHERE id = p_id;
	ELSIF a = 'untriage' THEN
		UPDATE regressions SET triage = 'untriaged',
			triage_reason = NULL, triage_text = NULL,
			duplicate_of = NULL, fix_claimed = NULL,
			fix_confirmed = NULL,
			state = CASE WHEN r.triage = 'invalid'
				AND r.state = 'invalid' THEN
				coalesce(r.triage_closed_from, 'new')
				ELSE r.state END,
			triage_closed_from = NULL
			WHERE id = p_id;
	ELSE
		RAISE EXCEPTION 'no triage command %', coalesce(a, 'given')
			USING ERRCODE = 'RB400';
	END IF;
	UPDATE regressions SET updated = now() WHERE id = p_id
		RETURNING * INTO r;
	INSERT INTO triage_events (regression, action, detail, by_name, how)
		VALUES (p_id, a, detail, p_by, p_how);
	-- What it teaches: invalid for its box counts against the boxes
	-- that ran its runs (any other triage takes that back); a box
	-- with p_box_limit such findings in 30 days is suspect.
	IF r.triage = 'invalid' AND r.triage_reason = 'box' THEN
		INSERT INTO box_false_alarms (box, regression)
			SELECT DISTINCT l.box, p_id FROM jobs j
			JOIN leases l ON l.job = j.id AND l.state = 'done'
			WHERE j.series = r.series
			AND j.commit IN (r.base, r.commit)
			ON CONFLICT DO NOTHING;
		FOR x IN SELECT f.box, count(*) AS n,
			string_agg(f.regression::text, ', '
				ORDER BY f.regression) AS ids
			FROM box_false_alarms f JOIN boxes b ON b.name = f.box
			WHERE f.box IN (SELECT box FROM box_false_alarms
				WHERE regression = p_id)
			AND f.created > now() - interval '30 days'
			-- (since the box was reset, mended)
			AND (b.noise_since IS NULL OR f.created > b.noise_since)
			AND b.suspect IS NULL
			GROUP BY f.box LOOP
			IF p_box_limit > 0 AND x.n >= p_box_limit THEN
				PERFORM robot_box_suspect(x.box, NULL, r.kpi,
					r.series, format('box %s is suspect: '
					'%s findings it ran were marked invalid '
					'for their box in 30 days (regressions '
					'%s); robot box reset %s when it is '
					'mended', x.box, x.n, x.ids, x.box));
			END IF;
		END LOOP;
	ELSE
		DELETE FROM box_false_alarms WHERE regression = p_id;
	END IF;
	RETURN json_build_object('id', r.id, 'triage', r.triage,
		'state', r.state, 'triage_reason', r.triage_reason,
		'triage_text', r.triage_text, 'assignee', r.assignee,
		'duplicate_of', r.duplicate_of, 'fix_claimed', r.fix_claimed,
		'bug_url', r.bug_url, 'tags', r.tags, 'updated', r.updated);
END $$;
