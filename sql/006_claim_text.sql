-- 006_claim_text.sql: what analysis reads of a pair, as lines of text
-- rather than one JSON document.  Reading the JSON of 600 strings of
-- values was a quarter of robotd's time per pair (docs/analysis.md).
--
-- robot_pair_values() gives a first line of JSON (series, base, head,
-- job, base_runs, head_runs) and then one line per metric and side:
--
--   b<TAB>metric<TAB>v1,v2,...     (the base's values)
--   h<TAB>metric<TAB>v1,v2,...     (the head's)
--
-- The base's lines come first, each side's by metric (the order the
-- columns had before).  Metric names are printable ASCII (result_parse() checks them), so
-- neither a tab nor a newline is ever in one.

DROP FUNCTION robot_pair_next(int);
DROP FUNCTION robot_pair_values(text, text, text);

CREATE FUNCTION robot_pair_values(p_series text, p_base text, p_head text)
RETURNS text LANGUAGE sql STABLE AS $$
	SELECT json_build_object('series', p_series, 'base', p_base,
		'head', p_head,
		'job', (SELECT j.job FROM jobs j WHERE j.series = p_series
			AND j.commit IN (p_head, p_base) ORDER BY j.id LIMIT 1),
		'base_runs', robot_side_runs(p_series, p_base),
		'head_runs', robot_side_runs(p_series, p_head))::text ||
	coalesce((SELECT string_agg(E'\n' || CASE WHEN commit = p_base
			THEN 'b' ELSE 'h' END || E'\t' || metric || E'\t' ||
			array_to_string(vals, ','), '' ORDER BY commit <> p_base,
			metric)
		FROM metric_values WHERE series = p_series
			AND commit IN (p_base, p_head)), '')
$$;

-- The next pair to analyse, claimed for p_seconds: a line of JSON (pair,
-- analyses, max_runs), then robot_pair_values() of it; NULL when there is
-- none.
CREATE FUNCTION robot_pair_next(p_seconds int) RETURNS text
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
		'max_runs', p.max_runs)::text || E'\n' ||
		robot_pair_values(p.series, p.base, p.head);
END $$;
