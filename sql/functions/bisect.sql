-- bisect.sql: bisections.

-- The pair (p_base, p_head) of bisection b: the one there is (with its
-- runs and verdict), or a new one; the rounds it lacks (p_rounds of
-- them) are queued: a step measures its commit in rounds with the one it
-- is compared with.  A pair whose runs have all ended is ready at once.
-- A new pair asks for no more runs than p_rounds: the bisection asks for
-- more (robot_bisect_more()) only when its step cannot tell without
-- them.  A final pair given rounds here (one an earlier step measured
-- in fewer) waits for them, as robot_pair_again() has it; a pair that
-- ended with no ok run on a side (its runs were cancelled: a cancelled
-- bisection's) while that side has runs to come is measured anew, not
-- taken for "no run ended ok".
CREATE FUNCTION robot_bisect_pair(b bisections, p_base text, p_head text,
	p_rounds int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
	added int;
BEGIN
	-- Runs queued here make no pairs of their own (jobs.pair is set).
	INSERT INTO pairs AS x (series, base, head, tree, max_runs, bisection)
		VALUES (b.series, p_base, p_head, b.tree, p_rounds, b.id)
		ON CONFLICT (series, base, head) DO UPDATE
		SET updated = x.updated
		RETURNING * INTO p;
	added := robot_pair_more(p, p_rounds);
	IF p.state = 'final' AND p.bisection IS NOT NULL AND added > 0 THEN
		UPDATE pairs SET state = 'waiting', updated = now(),
			max_runs = greatest(coalesce(max_runs, 0), p_rounds)
			WHERE id = p.id RETURNING * INTO p;
	END IF;
	IF p.state = 'final' AND p.verdict = 'failed' AND EXISTS (SELECT 1
		FROM jobs WHERE series = b.series
		AND commit IN (p_base, p_head)
		AND state IN ('queued', 'leased')) THEN
		UPDATE pairs SET state = 'waiting', verdict = NULL,
			updated = now() WHERE id = p.id RETURNING * INTO p;
	END IF;
	IF p.state = 'waiting' AND robot_pair_ended(p) THEN
		UPDATE pairs SET state = 'ready', ready_at = now(),
			updated = now() WHERE id = p.id;
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
	RETURN p.id;
END $$;

-- The pair p_pair as a step shows it: state, verdict, runs, and the
-- verdict of the bisection's KPI.
CREATE FUNCTION robot_bisect_pair_info(p_pair bigint, p_kpi text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('pair', p.id, 'base', p.base,
		'head', p.head, 'state', p.state, 'verdict', p.verdict,
		'runs', p.runs, 'kpis', p.kpis,
		'kpi', (SELECT k FROM json_array_elements(p.kpis) k
			WHERE k->>'kpi' = p_kpi LIMIT 1))
	FROM pairs p WHERE p.id = p_pair
$$;

-- A bisection as the API shows it: ends, state, progress, the first bad
-- commit, and every step with its pairs.
CREATE FUNCTION robot_bisection(p_id bigint) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', b.id, 'regression', b.regression,
		'tree', b.tree, 'series', b.series, 'kpi', b.kpi,
		'change', b.change,
		'good', b.good, 'bad', b.bad, 'goods', b.goods,
		'bad_now', b.bad_now, 'skipped', b.skipped, 'runs', b.runs,
		'max_runs', b.max_runs, 'state', b.state, 'lead', b.lead,
		'first_bad', CASE WHEN b.first_bad IS NOT NULL THEN
			robot_commit_info(b.tree, b.first_bad) END,
		'reason', b.reason, 'started_by', b.started_by,
		'created', b.created, 'finished', b.finished,
		'runs_queued', (SELECT count(*) FROM jobs j JOIN pairs x
			ON x.id = j.pair WHERE x.bisection = b.id),
		'steps', (SELECT coalesce(json_agg(json_build_object(
			'n', s.n, 'kind', s.kind,
			'commit', robot_commit_info(b.tree, s.commit),
			'against', s.against,
			'candidates', s.candidates, 'verdict', s.verdict,
			'reason', s.reason, 'created', s.created,
			'decided', s.decided,
			'runs', (SELECT json_build_object(
				'ok', count(*) FILTER (WHERE state = 'done'),
				'failed', count(*) FILTER (WHERE
					state = 'failed'),
				'waiting', count(*) FILTER (WHERE
					state IN ('queued', 'leased')))
				FROM jobs WHERE series = b.series
				AND commit = s.commit),
			'good_pair', robot_bisect_pair_info(s.pair_good, b.kpi),
			'bad_pair', robot_bisect_pair_info(s.pair_bad, b.kpi))
			ORDER BY s.n), '[]')
			FROM bisect_steps s WHERE s.bisection = b.id))
	FROM bisections b WHERE b.id = p_id
$$;

-- A bisection started (p: {regression} or {series, good, bad, tree,
-- kpi}: full SHAs, robotd resolved them) by p_by: its step 0 compares
-- the ends.  One of the same series and ends that is running already is
-- the answer, with "running": true.
CREATE FUNCTION robot_bisect_start(p json, p_by text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	r regressions;
	t trees;
	b bisections;
	v_series text := p->>'series';
	v_good text := p->>'good';
	v_bad text := p->>'bad';
	v_tree text := p->>'tree';
	v_kpi text := p->>'kpi';
	v_change text := 'regression';
	pair_id bigint;
BEGIN
	IF p->'regression' IS NOT NULL THEN
		SELECT * INTO r FROM regressions
			WHERE id = (p->>'regression')::bigint;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'no regression %', p->>'regression'
				USING ERRCODE = 'RB404';
		END IF;
		v_change := r.kind;
		v_series := r.series;
		v_good := r.base;
		v_bad := r.commit;
		v_tree := r.tree;
		v_kpi := r.kpi;
		-- Its pair, when that measured its ends (a change point's
		-- record may name the pair whose scan found it: its ends
		-- are measured anew).
		pair_id := (SELECT x.id FROM pairs x WHERE x.id = r.pair
			AND x.base = r.base AND x.head = r.commit);
	ELSE
		IF v_good = v_bad THEN
			RAISE EXCEPTION 'good and bad are one commit (%)',
				v_good USING ERRCODE = 'RB400';
		END IF;
		PERFORM 1 FROM jobs WHERE series = v_series
			AND commit = v_bad;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'series % has no runs at %: run it there first (robot submit), or bisect a regression (--regression)',
				v_series, v_bad USING ERRCODE = 'RB400';
		END IF;
		IF v_tree IS NULL THEN
			SELECT tree INTO v_tree FROM jobs WHERE series = v_series
				AND commit = v_bad AND tree IS NOT NULL
				ORDER BY id DESC LIMIT 1;
		END IF;
		SELECT * INTO r FROM regressions WHERE series = v_series
			AND base = v_good AND commit = v_bad
			AND kind = 'regression'
			AND (v_kpi IS NULL OR kpi = v_kpi)
			ORDER BY abs(change_pct) DESC NULLS LAST LIMIT 1;
	END IF;
	IF v_tree IS NULL THEN
		RAISE EXCEPTION 'series % at % names no tree: give one (--tree), whose history robot walks',
			v_series, v_bad USING ERRCODE = 'RB400';
	END IF;
	SELECT * INTO t FROM trees WHERE name = v_tree;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no tree %: robot bisects in the history of a tree it watches',
			v_tree USING ERRCODE = 'RB404';
	END IF;
	SELECT * INTO b FROM bisections WHERE series = v_series
		AND good = v_good AND bad = v_bad AND state = 'running';
	IF FOUND THEN
		RETURN (robot_bisection(b.id)::jsonb ||
			'{"running": true}')::json;
	END IF;
	-- A person (not robotd, not an admin) has at most 10 running.
	IF p_by LIKE 'submit %' AND (SELECT count(*) FROM bisections
		WHERE started_by = p_by AND state = 'running') >= 10 THEN
		RAISE EXCEPTION '% has 10 bisections running already: wait for one to end, or cancel one',
			substr(p_by, 8) USING ERRCODE = 'RB429';
	END IF;
	INSERT INTO bisections (regression, tree, series, kpi, change, good,
		bad, goods, bad_now, runs, max_runs, started_by)
		VALUES (r.id, v_tree, v_series, v_kpi, v_change, v_good, v_bad,
			ARRAY[v_good], v_bad, t.runs, t.max_runs, p_by)
		RETURNING * INTO b;
	IF pair_id IS NULL THEN
		pair_id := robot_bisect_pair(b, v_good, v_bad, b.runs);
	END IF;
	INSERT INTO bisect_steps (bisection, n, kind, commit, against,
		pair_good)
		VALUES (b.id, 0, 'ends', v_bad, v_good, pair_id);
	UPDATE bisections SET step = currval('bisect_steps_id_seq')
		WHERE id = b.id;
	-- A regression reported already says it is being bisected; one
	-- not reported yet waits for it (robot_report_next()).
	UPDATE regressions SET state = 'bisecting', updated = now()
		WHERE (id = r.id OR (series = v_series AND base = v_good
		AND commit = v_bad AND kind = v_change))
		AND report IS NOT NULL AND state IN ('new', 'reported');
	PERFORM pg_notify('robot_jobs', ':bisect');
	RETURN robot_bisection(b.id);
END $$;

-- Follower f of bisection l (another series, the same tree and range),
-- once l found the first bad commit: one step, that commit confirmed
-- against its parent on f's series.
CREATE FUNCTION robot_bisect_follow_confirm(f bisections, l bisections)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	parent text := (SELECT s.against FROM bisect_steps s
		WHERE s.bisection = l.id AND s.kind = 'confirm'
		AND s.commit = l.first_bad ORDER BY s.n DESC LIMIT 1);
	pg bigint;
BEGIN
	IF parent IS NULL THEN
		PERFORM robot_bisect_follow_own(f);
		RETURN;
	END IF;
	pg := robot_bisect_pair(f, parent, l.first_bad, robot_bisect_first(f));
	INSERT INTO bisect_steps (bisection, n, kind, commit, against,
		pair_good, candidates)
		VALUES (f.id, coalesce((SELECT max(n) + 1 FROM bisect_steps
			WHERE bisection = f.id), 0), 'confirm', l.first_bad,
			parent, pg, 1);
	UPDATE bisections SET step = currval('bisect_steps_id_seq'),
		bad_now = l.first_bad, claimed_until = NULL, updated = now()
		WHERE id = f.id;
	PERFORM pg_notify('robot_jobs', ':bisect');
END $$;

-- Follower f bisects on its own after all (its lead failed or was
-- cancelled): its first step compares its ends, as any bisection's.
CREATE FUNCTION robot_bisect_follow_own(f bisections) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	pair_id bigint := (SELECT x.id FROM pairs x JOIN regressions r
		ON r.pair = x.id WHERE r.id = f.regression
		AND x.base = f.good AND x.head = f.bad);
BEGIN
	IF pair_id IS NULL THEN
		pair_id := robot_bisect_pair(f, f.good, f.bad, f.runs);
	END IF;
	INSERT INTO bisect_steps (bisection, n, kind, commit, against,
		pair_good)
		VALUES (f.id, coalesce((SELECT max(n) + 1 FROM bisect_steps
			WHERE bisection = f.id), 0), 'ends', f.bad, f.good,
			pair_id);
	UPDATE bisections SET lead = NULL,
		step = currval('bisect_steps_id_seq'), claimed_until = NULL,
		updated = now() WHERE id = f.id;
	PERFORM pg_notify('robot_jobs', ':bisect');
END $$;

-- Regression r of a range that bisection l (of another series of the
-- same tree) bisects already: r's series only follows it, and confirms
-- its first bad commit against its parent (robot_bisect_follow_confirm())
-- instead of walking the range again.  Unless r's change is clearer (a
-- smaller p) and l has not yet tested a midpoint: then r's series leads
-- and l follows.
CREATE FUNCTION robot_bisect_follow(l bisections, r regressions)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	f bisections;
	j json;
BEGIN
	IF l.state = 'running' AND NOT EXISTS (SELECT 1 FROM bisect_steps s
		WHERE s.bisection = l.id AND s.kind <> 'ends')
		AND (l.claimed_until IS NULL OR l.claimed_until < now())
		AND r.p_value < (SELECT x.p_value FROM regressions x
			WHERE x.id = l.regression) THEN
		j := robot_bisect_start(json_build_object('regression', r.id),
			'robotd');
		-- (claims + 1: a robotd whose claim on l ran out, still at
		-- work on it, no longer owns it, and adds no step to it.)
		UPDATE bisections SET lead = (j->>'id')::bigint, step = NULL,
			claims = claims + 1, claimed_until = NULL,
			updated = now() WHERE id = l.id OR lead = l.id;
		RETURN;
	END IF;
	INSERT INTO bisections (regression, tree, series, kpi, change, good,
		bad, goods, bad_now, runs, max_runs, started_by, lead)
		VALUES (r.id, l.tree, r.series, r.kpi, r.kind, r.base, r.commit,
			ARRAY[r.base], r.commit, l.runs, l.max_runs, 'robotd',
			l.id)
		RETURNING * INTO f;
	UPDATE regressions SET state = 'bisecting', updated = now()
		WHERE id = r.id AND report IS NOT NULL
		AND state IN ('new', 'reported');
	IF l.state = 'bisected' THEN
		PERFORM robot_bisect_follow_confirm(f, l);
	END IF;
END $$;

-- A regression (or improvement) found at the head of a range (base,
-- head] of more than one commit (no culprit yet), in a tree that
-- bisects, is bisected at once: its report waits for the first bad
-- commit (robot_report_next()).  Its other KPIs of the same kind share
-- the bisection of their series and ends; another series with the same
-- range follows the bisection that runs it already
-- (robot_bisect_follow()).
CREATE FUNCTION robot_regression_bisect() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	l bisections;
BEGIN
	IF NEW.tree IS NOT NULL
		AND NEW.culprit IS NULL
		AND EXISTS (SELECT 1 FROM trees t WHERE t.name = NEW.tree
			AND t.bisect)
		AND NOT EXISTS (SELECT 1 FROM bisections x
			WHERE x.series = NEW.series AND x.good = NEW.base
			AND x.bad = NEW.commit AND x.change = NEW.kind
			AND x.state <> 'cancelled') THEN
		BEGIN
			-- One tree's bisections start one at a time: two
			-- series' changes of one range recorded at once (their
			-- pairs analysed side by side) would else each miss the
			-- other's bisection, and walk the range twice.  The
			-- lock holds to the end of this transaction; the next
			-- statement's snapshot sees what the other committed.
			PERFORM pg_advisory_xact_lock(hashtext('robot_bisect'),
				hashtext(NEW.tree));
			SELECT * INTO l FROM bisections x
				WHERE x.tree = NEW.tree AND x.good = NEW.base
				AND x.bad = NEW.commit AND x.change = NEW.kind
				AND x.series <> NEW.series AND x.lead IS NULL
				AND x.state IN ('running', 'bisected')
				ORDER BY x.id LIMIT 1;
			IF FOUND THEN
				PERFORM robot_bisect_follow(l, NEW);
			ELSE
				PERFORM robot_bisect_start(json_build_object(
					'regression', NEW.id), 'robotd');
			END IF;
		EXCEPTION WHEN OTHERS THEN
			-- Reported as a range all the same.
			RAISE WARNING 'regression % is not bisected: %',
				NEW.id, SQLERRM;
		END;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER regressions_bisect AFTER INSERT ON regressions
	FOR EACH ROW EXECUTE FUNCTION robot_regression_bisect();

-- Bisections, newest first, with their progress (not their steps).
CREATE FUNCTION robot_bisections(p_limit int) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT coalesce(json_agg(x ORDER BY (x->>'id')::bigint DESC), '[]')
	FROM (SELECT json_build_object('id', b.id,
		'regression', b.regression, 'tree', b.tree,
		'series', b.series, 'kpi', b.kpi, 'good', b.good,
		'bad', b.bad, 'state', b.state, 'lead', b.lead,
		'first_bad', CASE WHEN b.first_bad IS NOT NULL THEN
			robot_commit_info(b.tree, b.first_bad) END,
		'reason', b.reason, 'created', b.created,
		'finished', b.finished,
		'steps', (SELECT count(*) FROM bisect_steps s
			WHERE s.bisection = b.id AND s.kind = 'mid'),
		'candidates', (SELECT s.candidates FROM bisect_steps s
			WHERE s.id = b.step),
		'step', (SELECT json_build_object('n', s.n, 'kind', s.kind,
			'commit', s.commit, 'verdict', s.verdict)
			FROM bisect_steps s WHERE s.id = b.step),
		'runs_queued', (SELECT count(*) FROM jobs j JOIN pairs x
			ON x.id = j.pair WHERE x.bisection = b.id)) x
		FROM bisections b ORDER BY b.id DESC LIMIT p_limit) y
$$;

-- The KPI's values of the rounds a step reads
-- (robot/analysis/bisectstep.h), of runs that ended ok in rounds run on
-- one box: {rounds: [[good, mid, bad], ...], ends: [[good, bad], ...]}.
-- A midpoint's rounds are those that ran it with either end of b (null
-- where a round did not run one); a confirm step's those that ran its
-- parent (p_against, as good) and its commit (as mid).  ends: the rounds
-- that ran both ends of b, for the ends' change.
CREATE FUNCTION robot_bisect_rounds(b bisections, p_kind text,
	p_commit text, p_against text) RETURNS json
LANGUAGE sql STABLE AS $$
	WITH v AS (SELECT m.commit, u.val, u.job
		FROM metric_values m, unnest(m.vals, m.jobs) AS u(val, job)
		WHERE m.series = b.series AND m.metric = b.kpi
		AND m.commit IN (b.good, b.bad, p_commit, p_against)
		AND u.job IS NOT NULL),
	r AS (SELECT j.round, j.commit, v.val FROM jobs j
		JOIN v ON v.job = j.id
		WHERE j.round IS NOT NULL AND j.state = 'done'
		AND j.round IN (SELECT x.round FROM jobs x
			WHERE x.round = j.round AND x.state = 'done'
			GROUP BY x.round HAVING count(DISTINCT x.box) = 1)),
	x AS (SELECT round,
		max(val) FILTER (WHERE commit = CASE WHEN p_kind = 'confirm'
			THEN p_against ELSE b.good END) AS g,
		max(val) FILTER (WHERE commit = p_commit) AS m,
		CASE WHEN p_kind <> 'confirm' THEN
			max(val) FILTER (WHERE commit = b.bad) END AS d,
		max(val) FILTER (WHERE commit = b.good) AS eg,
		max(val) FILTER (WHERE commit = b.bad) AS ed
		FROM r GROUP BY round)
	SELECT json_build_object(
		'rounds', (SELECT coalesce(json_agg(json_build_array(g, m, d)
			ORDER BY round), '[]') FROM x WHERE m IS NOT NULL
			AND (g IS NOT NULL OR d IS NOT NULL)),
		'ends', (SELECT coalesce(json_agg(json_build_array(eg, ed)
			ORDER BY round), '[]') FROM x WHERE eg IS NOT NULL
			AND ed IS NOT NULL))
$$;

-- The next bisection whose step has its answer (every pair of it
-- final), claimed for p_seconds: robot_bisection() of it with the claim
-- count and the errors of failed runs at the step's commit; NULL when
-- none is due.
CREATE FUNCTION robot_bisect_next(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	b bisections;
	st bisect_steps;
BEGIN
	UPDATE bisections SET claims = claims + 1,
		claimed_until = now() + make_interval(secs => p_seconds),
		updated = now()
		WHERE id = (SELECT x.id FROM bisections x
			JOIN bisect_steps s ON s.id = x.step
			LEFT JOIN pairs g ON g.id = s.pair_good
			LEFT JOIN pairs d ON d.id = s.pair_bad
			WHERE x.state = 'running'
			AND (x.claimed_until IS NULL OR x.claimed_until < now())
			AND (s.verdict IS NOT NULL OR
				((g.id IS NULL OR g.state = 'final') AND
				 (d.id IS NULL OR d.state = 'final')))
			ORDER BY x.id LIMIT 1 FOR UPDATE OF x SKIP LOCKED)
		RETURNING * INTO b;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT * INTO st FROM bisect_steps WHERE id = b.step;
	RETURN (robot_bisection(b.id)::jsonb || jsonb_build_object(
		'claims', b.claims,
		'step', jsonb_build_object('id', st.id, 'n', st.n,
			'kind', st.kind, 'commit', st.commit,
			'against', st.against, 'verdict', st.verdict,
			'good_pair', robot_bisect_pair_info(st.pair_good, b.kpi),
			'bad_pair', robot_bisect_pair_info(st.pair_bad, b.kpi),
			'values', CASE WHEN st.kind <> 'ends' AND b.kpi IS NOT NULL
				THEN robot_bisect_rounds(b, st.kind, st.commit,
					st.against) END,
			'noise', CASE WHEN st.kind <> 'ends'
				THEN robot_noise_obs(b.series, NULL, false) END,
			'errors', (SELECT coalesce(jsonb_agg(DISTINCT j.error),
				'[]') FROM jobs j WHERE j.series = b.series
				AND j.commit = st.commit AND j.state = 'failed'
				AND j.error IS NOT NULL))))::json;
END $$;

-- The claim p_claims of bisection p_id is still its own: the row, or an
-- exception that robotd takes for 'stale'.
CREATE FUNCTION robot_bisect_own(p_id bigint, p_claims int)
RETURNS bisections LANGUAGE plpgsql AS $$
DECLARE
	b bisections;
BEGIN
	SELECT * INTO b FROM bisections WHERE id = p_id FOR UPDATE;
	IF NOT FOUND OR b.state <> 'running' OR b.claims <> p_claims THEN
		RETURN NULL;
	END IF;
	RETURN b;
END $$;

-- The step in hand decided (p: {verdict, reason, kpi}): the known good
-- and bad commits and the skipped ones follow from it.  With p.end
-- ({state: bisected | failed, first_bad, reason}) the bisection ends,
-- and its regression says so.  'stale' when another robotd took the
-- claim over meanwhile; else robot_bisection() of it.
CREATE FUNCTION robot_bisect_mark(p_id bigint, p_claims int, p json)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	b bisections := robot_bisect_own(p_id, p_claims);
	f bisections;
	s bisect_steps;
	v text := p->>'verdict';
	e json := p->'end';
BEGIN
	IF b.id IS NULL THEN
		RETURN '"stale"';
	END IF;
	SELECT * INTO s FROM bisect_steps WHERE id = b.step;
	IF s.verdict IS NULL THEN
		UPDATE bisect_steps SET verdict = v, reason = p->>'reason',
			decided = now() WHERE id = s.id;
		UPDATE bisections SET
			kpi = coalesce(kpi, p->>'kpi'),
			goods = CASE WHEN v = 'good' THEN goods || s.commit
				ELSE goods END,
			bad_now = CASE WHEN v = 'bad' THEN s.commit
				ELSE bad_now END,
			skipped = CASE WHEN v = 'skip' THEN skipped || s.commit
				ELSE skipped END,
			updated = now()
			WHERE id = b.id;
	END IF;
	-- A follower whose lead's first bad commit is not its own bisects
	-- its range on its own: it goes on.
	IF e IS NOT NULL AND json_typeof(e) = 'object' AND b.lead IS NOT NULL
		AND e->>'state' = 'failed' THEN
		UPDATE bisections SET lead = NULL, goods = ARRAY[good],
			bad_now = bad, kpi = coalesce(kpi, p->>'kpi'),
			updated = now()
			WHERE id = b.id RETURNING * INTO b;
		RETURN robot_bisection(b.id);
	END IF;
	IF e IS NOT NULL AND json_typeof(e) = 'object' THEN
		UPDATE bisections SET state = e->>'state',
			first_bad = e->>'first_bad', reason = e->>'reason',
			claimed_until = NULL, finished = now(), updated = now()
			WHERE id = b.id RETURNING * INTO b;
		-- Every KPI of the series that regressed between the ends
		-- has its culprit.
		IF b.state = 'bisected' THEN
			UPDATE regressions SET bisected_to = b.first_bad,
				culprit = b.first_bad,
				state = CASE WHEN report IS NOT NULL AND state IN
					('new', 'reported', 'bisecting')
					THEN 'bisected' ELSE state END,
				updated = now()
				WHERE (id = b.regression OR (series = b.series
				AND base = b.good AND commit = b.bad
				AND kind = b.change))
				AND state NOT IN ('fixed', 'invalid');
		ELSE
			UPDATE regressions SET state = 'reported',
				updated = now()
				WHERE (id = b.regression OR (series = b.series
				AND base = b.good AND commit = b.bad))
				AND state = 'bisecting';
		END IF;
		-- Its followers confirm what it found, or bisect on their
		-- own.
		FOR f IN SELECT * FROM bisections WHERE lead = b.id
			AND state = 'running' AND step IS NULL LOOP
			IF b.state = 'bisected' THEN
				PERFORM robot_bisect_follow_confirm(f, b);
			ELSE
				PERFORM robot_bisect_follow_own(f);
			END IF;
		END LOOP;
		-- A report may have waited for it.
		PERFORM pg_notify('robot_jobs', ':reports');
	END IF;
	RETURN robot_bisection(b.id);
END $$;

-- The rounds a step is first measured in: one, then one more at a time
-- while it cannot tell (robot/analysis/bisectstep.h: with the noise of
-- its series known, one round decides a change many times the noise;
-- without, the ends' rounds and a second round of its own tell the
-- noise).
CREATE FUNCTION robot_bisect_first(b bisections) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
	SELECT least(1, b.runs)
$$;

-- The next step of bisection p_id under claim p_claims (p: {kind: mid
-- | confirm, commit, against, candidates}): a midpoint is compared with
-- both ends, a first bad commit with its parent (against), in
-- robot_bisect_first() rounds.  The claim ends; the step is claimed
-- again once its pairs are final.
CREATE FUNCTION robot_bisect_step(p_id bigint, p_claims int, p json)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	b bisections := robot_bisect_own(p_id, p_claims);
	n int;
	pg bigint;
	pb bigint;
BEGIN
	IF b.id IS NULL THEN
		RETURN '"stale"';
	END IF;
	IF p->>'kind' = 'mid' THEN
		-- Both comparisons of a midpoint read the same rounds: in
		-- each, the good end, the midpoint and the bad end once, in a
		-- random order (three runs a round, not four in two).
		INSERT INTO pairs AS x (series, base, head, tree, max_runs,
			bisection)
			VALUES (b.series, b.good, p->>'commit', b.tree,
				robot_bisect_first(b), b.id),
				(b.series, p->>'commit', b.bad, b.tree,
				robot_bisect_first(b), b.id)
			ON CONFLICT (series, base, head) DO NOTHING;
		IF NOT EXISTS (SELECT 1 FROM robot_pair_rounds(b.series,
			b.good, p->>'commit')) AND NOT EXISTS (SELECT 1
			FROM robot_pair_rounds(b.series, p->>'commit', b.bad))
		THEN
			PERFORM robot_rounds_add(b.series, b.tree,
				ARRAY[b.good, p->>'commit', b.bad], 0,
				robot_bisect_first(b),
				(SELECT id FROM pairs WHERE series = b.series
				AND base = b.good AND head = p->>'commit'));
		END IF;
		pg := robot_bisect_pair(b, b.good, p->>'commit',
			robot_bisect_first(b));
		pb := robot_bisect_pair(b, p->>'commit', b.bad,
			robot_bisect_first(b));
	ELSE
		pg := robot_bisect_pair(b, p->>'against', p->>'commit',
			robot_bisect_first(b));
	END IF;
	SELECT max(s.n) + 1 INTO n FROM bisect_steps s WHERE s.bisection = b.id;
	INSERT INTO bisect_steps (bisection, n, kind, commit, against,
		pair_good, pair_bad, candidates)
		VALUES (b.id, n, p->>'kind', p->>'commit',
			coalesce(p->>'against', b.good), pg, pb,
			(p->>'candidates')::int);
	UPDATE bisections SET step = currval('bisect_steps_id_seq'),
		claimed_until = NULL, updated = now() WHERE id = b.id;
	PERFORM pg_notify('robot_jobs', ':bisect');
	RETURN robot_bisection(b.id);
END $$;

-- The step in hand of bisection p_id, too noisy to tell, gets more runs
-- under claim p_claims: a midpoint more rounds of the good end, itself
-- and the bad end, until it has p_runs of them; then each of its pairs
-- that a bisection made (this one, or an earlier one whose pair it
-- reuses: a head's pair is left as it is) asks for p_runs a side and is
-- analysed again once they have ended.  The claim ends; the step is claimed again once its pairs are
-- final.  'stale', or the number of pairs given more runs (0: none was
-- a bisection's).
CREATE FUNCTION robot_bisect_more(p_id bigint, p_claims int, p_runs int)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	b bisections := robot_bisect_own(p_id, p_claims);
	s bisect_steps;
	p pairs;
	n int := 0;
	added int := 0;
BEGIN
	IF b.id IS NULL THEN
		RETURN '"stale"';
	END IF;
	SELECT * INTO s FROM bisect_steps WHERE id = b.step;
	IF s.kind = 'mid' AND (SELECT bisection FROM pairs
		WHERE id = s.pair_good) IS NOT NULL THEN
		added := robot_rounds_add(b.series, b.tree,
			ARRAY[b.good, s.commit, b.bad],
			(SELECT count(DISTINCT g.round) FROM jobs g
				JOIN jobs m ON m.round = g.round
				AND m.series = g.series AND m.commit = s.commit
				AND m.state <> 'cancelled'
				JOIN jobs d ON d.round = g.round
				AND d.series = g.series AND d.commit = b.bad
				AND d.state <> 'cancelled'
				WHERE g.series = b.series AND g.commit = b.good
				AND g.state <> 'cancelled')::int,
			p_runs, s.pair_good);
	END IF;
	-- (only its own pairs, and only those with fewer rounds: a pair
	-- asked again for the rounds it has would be compared again as it
	-- is, and the step would ask again)
	FOR p IN SELECT * FROM pairs x WHERE x.id IN (s.pair_good, s.pair_bad)
		AND x.bisection IS NOT NULL AND x.state = 'final'
		AND (added > 0 OR (SELECT count(*) FROM robot_pair_rounds(
			x.series, x.base, x.head)) < p_runs) LOOP
		PERFORM robot_pair_again(p, p_runs, p_runs);
		n := n + 1;
	END LOOP;
	IF n > 0 THEN
		UPDATE bisections SET claimed_until = NULL, updated = now()
			WHERE id = b.id;
	END IF;
	RETURN to_json(n);
END $$;

-- A person cancels a running bisection: its queued runs go.  Only who
-- started it (p_by, as started_by has it) or an admin (p_admin) may.
CREATE FUNCTION robot_bisect_cancel(p_id bigint, p_by text,
	p_admin boolean DEFAULT true) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	b bisections;
	f bisections;
BEGIN
	SELECT * INTO b FROM bisections WHERE id = p_id AND state = 'running';
	IF FOUND AND NOT p_admin AND b.started_by <> p_by THEN
		RAISE EXCEPTION 'bisection % was started by %: only they or an admin may cancel it',
			p_id, b.started_by USING ERRCODE = 'RB403';
	END IF;
	UPDATE bisections SET state = 'cancelled', claimed_until = NULL,
		reason = format('cancelled by %s', p_by), finished = now(),
		updated = now()
		WHERE id = p_id AND state = 'running' RETURNING * INTO b;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no running bisection %', p_id
			USING ERRCODE = 'RB404';
	END IF;
	UPDATE jobs SET state = 'cancelled', updated = now(),
		error = format('bisection %s cancelled by %s', p_id, p_by)
		WHERE state = 'queued' AND pair IN (SELECT id FROM pairs
			WHERE bisection = p_id);
	UPDATE regressions SET state = 'reported', updated = now()
		WHERE (id = b.regression OR (series = b.series
		AND base = b.good AND commit = b.bad)) AND state = 'bisecting';
	FOR f IN SELECT * FROM bisections WHERE lead = b.id
		AND state = 'running' AND step IS NULL LOOP
		PERFORM robot_bisect_follow_own(f);
	END LOOP;
	PERFORM pg_notify('robot_jobs', ':reports');
	RETURN robot_bisection(b.id);
END $$;
