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
-- jobs, the sides' run counts): the first line of robot_pair_values(),
-- and the first row of the binary values robotd reads for a comparison
-- asked for (store_pair_columns()).
CREATE FUNCTION robot_pair_head(p_series text, p_base text, p_head text)
RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('series', p_series, 'base', p_base,
		'head', p_head,
		'job', (SELECT j.job FROM jobs j WHERE j.series = p_series
			AND j.commit IN (p_head, p_base) ORDER BY j.id LIMIT 1),
		'base_runs', robot_side_runs(p_series, p_base),
		'head_runs', robot_side_runs(p_series, p_head))
$$;

CREATE OR REPLACE FUNCTION robot_pair_values(p_series text, p_base text,
	p_head text) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT robot_pair_head(p_series, p_base, p_head)::text ||
	coalesce((SELECT string_agg(E'\n' || CASE WHEN commit = p_base
			THEN 'b' ELSE 'h' END || E'\t' || metric || E'\t' ||
			array_to_string(vals, ','), '' ORDER BY commit <> p_base,
			metric)
		FROM metric_values WHERE series = p_series
			AND commit IN (p_base, p_head)), '')
$$;
