-- Comparisons asked for (GET /api/compare, robot compare --series):
-- with the values of its KPIs, what one ok run of each side says of its
-- setting, the job's tunables ("sysctl") and its provisioning (the
-- commit's subject, the tunables the hook set), so that robot compare
-- --series prints what it prints of result files without fetching them.

CREATE FUNCTION robot_run_setting(p_series text, p_commit text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('sysctl', doc->'sysctl',
		'provision', doc->'provision')
	FROM results WHERE series = p_series AND commit = p_commit
		AND status = 'ok'
	ORDER BY id LIMIT 1
$$;

CREATE FUNCTION robot_compare_extras(p_series text, p_base text,
	p_head text, p_metrics text[]) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'values', robot_side_values(p_series, p_base, p_head, p_metrics),
		'runs', json_build_object(
			'base', robot_run_setting(p_series, p_base),
			'head', robot_run_setting(p_series, p_head)))
$$;

-- What a pair's comparison starts from (series, base, head, one of its
-- jobs, the sides' run counts): the first row of the binary values
-- robotd reads (store_pair_columns()).
CREATE FUNCTION robot_pair_head(p_series text, p_base text, p_head text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('series', p_series, 'base', p_base,
		'head', p_head,
		'job', (SELECT j.job FROM jobs j WHERE j.series = p_series
			AND j.commit IN (p_head, p_base) ORDER BY j.id LIMIT 1),
		'base_runs', robot_side_runs(p_series, p_base),
		'head_runs', robot_side_runs(p_series, p_head))
$$;

-- A pair claimed for p_seconds: {pair, analyses, max_runs, series, base,
-- head}; robotd then reads its values in binary (store_pair_columns()),
-- as it does for a comparison asked for, where 006 sent them as text in
-- the claim (printing a number cost the server more than comparing it).
-- NULL when no pair is ready.
DROP FUNCTION robot_pair_next(int);
DROP FUNCTION robot_pair_values(text, text, text);

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
		'max_runs', p.max_runs, 'series', p.series, 'base', p.base,
		'head', p.head);
END $$;
