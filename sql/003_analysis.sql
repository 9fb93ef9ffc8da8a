-- 003_analysis.sql: robotd decides by itself (DESIGN.md section 7).
--
-- A pair is one series at two commits, a base and a head: made by a
-- submission of several commits (each compared with the first) and by the
-- tree watcher.  When every run of both sides has ended, the pair is
-- ready; one robotd claims it (FOR UPDATE SKIP LOCKED, with a deadline,
-- so that a robotd killed meanwhile leaves it to another), compares the
-- values stored per series, commit and metric, and either asks for more
-- runs on both sides (an inconclusive KPI) or makes the pair final and
-- records its regressions and improvements.

-- The values of each metric of each series at each commit, one per ok
-- run, appended when its result is stored: analysis and history read
-- these, never the documents again.
CREATE TABLE metric_values (
	series text NOT NULL,
	commit text NOT NULL,
	metric text NOT NULL,
	vals float8[] NOT NULL,
	n int NOT NULL,
	mean float8 NOT NULL,
	stddev float8 NOT NULL,          -- population, as LKP
	min float8 NOT NULL,
	max float8 NOT NULL,
	PRIMARY KEY (series, commit, metric)
);
-- A metric's history over commits.
CREATE INDEX metric_values_history ON metric_values (series, metric);

CREATE FUNCTION robot_result_values() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO metric_values AS m (series, commit, metric, vals, n, mean,
		stddev, min, max)
	SELECT NEW.series, NEW.commit, s.key, ARRAY[s.value::float8], 1,
		s.value::float8, 0, s.value::float8, s.value::float8
	FROM json_each_text(NEW.doc->'stats') s
	ON CONFLICT (series, commit, metric) DO UPDATE SET
		vals = m.vals || EXCLUDED.vals,
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

-- Runs queued by analysis name their pair (a submission's own runs do
-- not).
ALTER TABLE jobs ADD COLUMN pair bigint;

CREATE TABLE pairs (
	id bigserial PRIMARY KEY,
	series text NOT NULL,
	base text NOT NULL,
	head text NOT NULL,
	tree text,
	branch text,
	max_runs int,                    -- NULL: robotd's max_runs
	state text NOT NULL DEFAULT 'waiting'
		CHECK (state IN ('waiting', 'ready', 'analysing', 'final')),
	claimed_until timestamptz,
	ready_at timestamptz,            -- when its last run ended
	analyses int NOT NULL DEFAULT 0,  -- claims so far (the claim's token)
	verdict text,                    -- regression, improvement, ...
	kpi text,                        -- the KPI that decided
	runs int,                        -- ok runs per side when last compared
	comparison json,                 -- DESIGN.md section 6's JSON
	table_text text,                 -- LKP's table of the changes
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now(),
	UNIQUE (series, base, head)
);
CREATE INDEX pairs_work ON pairs (id) WHERE state IN ('ready', 'analysing');
CREATE INDEX pairs_head ON pairs (series, head);
CREATE INDEX pairs_base ON pairs (series, base);

-- Whether every run of pair p's two sides has ended.
CREATE FUNCTION robot_pair_ended(p pairs) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT NOT EXISTS (SELECT 1 FROM jobs j WHERE j.series = p.series
		AND j.commit IN (p.base, p.head)
		AND j.state IN ('queued', 'leased'))
$$;

-- A run ended: its pairs whose runs have all ended are ready.
CREATE FUNCTION robot_job_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	n int;
BEGIN
	UPDATE pairs p SET state = 'ready', updated = now(), ready_at = now()
		WHERE p.series = NEW.series
		AND (p.base = NEW.commit OR p.head = NEW.commit)
		AND p.state = 'waiting' AND robot_pair_ended(p);
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		PERFORM pg_notify('robot_jobs', ':analysis');
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_ended AFTER UPDATE OF state ON jobs FOR EACH ROW
	WHEN (OLD.state IN ('queued', 'leased')
		AND NEW.state IN ('done', 'failed') AND NEW.commit IS NOT NULL)
	EXECUTE FUNCTION robot_job_ended();

-- A submission of several commits compares each with its first: one
-- pair per series and later commit.  A pair made again (more runs of the
-- same commits) waits for them.
CREATE FUNCTION robot_jobs_queued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pairs AS p (series, base, head, tree)
	SELECT DISTINCT h.series, b.commit, h.commit, h.tree
	FROM new_jobs h
	JOIN LATERAL (SELECT x.commit FROM new_jobs x
		WHERE x.submission = h.submission AND x.series = h.series
		ORDER BY x.id LIMIT 1) b ON true
	WHERE h.pair IS NULL AND h.commit IS NOT NULL
		AND b.commit IS NOT NULL AND h.commit <> b.commit
	ON CONFLICT (series, base, head) DO UPDATE SET state = 'waiting',
		updated = now();
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_queued AFTER INSERT ON jobs
	REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT
	EXECUTE FUNCTION robot_jobs_queued();

-- Regressions (and improvements) found: one record per finding, updated
-- by later heads of the same branch that still show it, fixed by one that
-- does not.
CREATE TABLE regressions (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('regression', 'improvement')),
	tree text,
	branch text,
	commit text NOT NULL,            -- the head where it was found
	base text NOT NULL,
	series text NOT NULL,
	kpi text NOT NULL,
	change_pct float8,
	p_value float8,
	runs int NOT NULL,               -- ok runs per side
	pair bigint NOT NULL REFERENCES pairs,
	state text NOT NULL DEFAULT 'new'
		CHECK (state IN ('new', 'reported', 'bisecting', 'bisected',
			'fixed', 'invalid')),
	last_head text NOT NULL,         -- the newest head that shows it
	fixed_by text,
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX regressions_state ON regressions (state, id);
CREATE UNIQUE INDEX regressions_finding ON regressions (series, kpi, base,
	commit, kind);

-- The runs of one side: asked (every run queued), ok, failed.
CREATE FUNCTION robot_side_runs(p_series text, p_commit text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('asked', count(*),
		'ok', count(*) FILTER (WHERE state = 'done'),
		'failed', count(*) FILTER (WHERE state = 'failed'))
	FROM jobs WHERE series = p_series AND commit = p_commit
$$;

-- What analysis compares of series at base and head: the sides' run
-- counts, one of the atomic jobs (for the KPIs' prefix) and every
-- metric's values (as "v1,v2,...": a string each, not thousands of JSON
-- numbers, which cost robotd more to read than the comparison).
CREATE FUNCTION robot_pair_values(p_series text, p_base text, p_head text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('series', p_series, 'base', p_base,
		'head', p_head,
		'job', (SELECT j.job FROM jobs j WHERE j.series = p_series
			AND j.commit IN (p_head, p_base) ORDER BY j.id LIMIT 1),
		'base_runs', robot_side_runs(p_series, p_base),
		'head_runs', robot_side_runs(p_series, p_head),
		'base_values', (SELECT coalesce(json_object_agg(metric,
			array_to_string(vals, ',')), '{}') FROM metric_values
			WHERE series = p_series AND commit = p_base),
		'head_values', (SELECT coalesce(json_object_agg(metric,
			array_to_string(vals, ',')), '{}') FROM metric_values
			WHERE series = p_series AND commit = p_head))
$$;

-- The next pair to analyse, claimed for p_seconds, with what
-- robot_pair_values() gives of it as "values"; NULL when there is none.
CREATE FUNCTION robot_pair_next(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
BEGIN
	UPDATE pairs SET state = 'analysing', analyses = analyses + 1,
		claimed_until = now() + make_interval(secs => p_seconds),
		updated = now()
		WHERE id = (SELECT id FROM pairs
			WHERE state = 'ready' OR (state = 'analysing'
				AND claimed_until < now())
			ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING * INTO p;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	RETURN json_build_object('pair', p.id, 'analyses', p.analyses,
		'max_runs', p.max_runs,
		'values', robot_pair_values(p.series, p.base, p.head));
END $$;

-- More runs of one side of pair p_pair, until it has p_runs: copies of
-- its newest run.
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
		AND commit = p_commit;
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

-- The end of an analysis of pair p_pair under claim p_analyses: with
-- p_more > 0, more runs until each side has p_more (the pair waits for
-- them); else the pair is final, and each KPI of p_kpis ([{kpi, verdict,
-- change_pct, p_value}]) that regressed or improved is recorded.  A claim
-- that another robotd took over meanwhile changes nothing: 'stale'.
CREATE FUNCTION robot_pair_done(p_pair bigint, p_analyses int,
	p_verdict text, p_kpi text, p_runs int, p_comparison json,
	p_table text, p_more int, p_kpis json) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	p pairs;
	k record;
BEGIN
	SELECT * INTO p FROM pairs WHERE id = p_pair FOR UPDATE;
	IF NOT FOUND OR p.state <> 'analysing' OR p.analyses <> p_analyses
	THEN
		RETURN 'stale';
	END IF;
	UPDATE pairs SET verdict = p_verdict, kpi = p_kpi, runs = p_runs,
		comparison = p_comparison, table_text = p_table,
		claimed_until = NULL, updated = now(),
		state = CASE WHEN p_more > 0 THEN 'waiting' ELSE 'final' END
		WHERE id = p_pair;
	IF p_more > 0 THEN
		PERFORM robot_side_more(p_pair, p.series, p.base, p_more);
		PERFORM robot_side_more(p_pair, p.series, p.head, p_more);
		-- Nothing was queued (both sides had the runs): ready again.
		IF (SELECT robot_pair_ended(x) FROM pairs x WHERE x.id = p_pair)
		THEN
			UPDATE pairs SET state = 'final' WHERE id = p_pair;
		ELSE
			RETURN 'more';
		END IF;
	END IF;
	FOR k IN SELECT * FROM json_to_recordset(p_kpis) AS x(kpi text,
		verdict text, change_pct float8, p_value float8) LOOP
		IF k.verdict IN ('regression', 'improvement') THEN
			INSERT INTO regressions AS r (kind, tree, branch,
				commit, base, series, kpi, change_pct,
				p_value, runs, pair, last_head)
			VALUES (k.verdict, p.tree, p.branch, p.head, p.base,
				p.series, k.kpi, k.change_pct, k.p_value,
				p_runs, p_pair, p.head)
			ON CONFLICT (series, kpi, base, commit, kind) DO
			UPDATE SET change_pct = EXCLUDED.change_pct,
				p_value = EXCLUDED.p_value,
				runs = EXCLUDED.runs, updated = now();
		END IF;
	END LOOP;
	RETURN 'final';
END $$;
