-- pages.sql: what the pages and their JSON twins read.

-- The home page: the newest regressions grouped by the commit at fault
-- (or, while it is not known, their range), at most p_limit groups; the
-- queue, the lab in one line, the trees with their last fetch, the
-- bisections running.
CREATE FUNCTION robot_home(p_limit int) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'commits', (SELECT coalesce(json_agg(c ORDER BY c.newest DESC),
			'[]') FROM (SELECT r.tree, max(r.culprit) AS culprit,
			max(r.id) AS newest,
			robot_commit_info(r.tree, coalesce(max(r.culprit),
				max(r.commit))) AS info,
			CASE WHEN max(r.culprit) IS NULL THEN
				json_build_object('base', robot_commit_info(
				r.tree, max(r.base)), 'head', robot_commit_info(
				r.tree, max(r.commit))) END AS range,
			json_agg(json_build_object('id', r.id, 'kind', r.kind,
				'state', r.state, 'kpi', r.kpi,
				'change_pct', r.change_pct, 'series', r.series,
				'base', r.base, 'head', r.commit,
				'culprit', r.culprit,
				'bisected_to', r.bisected_to)
				ORDER BY r.kind, abs(r.change_pct) DESC NULLS LAST)
				AS findings
			FROM (SELECT * FROM regressions ORDER BY id DESC
				LIMIT 10 * p_limit) r
			GROUP BY r.tree, coalesce(r.culprit,
				r.base || '..' || r.commit)
			ORDER BY max(r.id) DESC LIMIT p_limit) c),
		'queue', (SELECT json_build_object(
			'queued', count(*) FILTER (WHERE state = 'queued'),
			'leased', count(*) FILTER (WHERE state = 'leased'))
			FROM jobs WHERE state IN ('queued', 'leased')),
		'lab', (SELECT json_build_object('boxes', count(*),
			'idle', count(*) FILTER (WHERE state = 'idle'),
			'busy', count(*) FILTER (WHERE state = 'busy'),
			'broken', count(*) FILTER (WHERE state = 'broken'),
			'suspect', count(*) FILTER (WHERE suspect IS NOT NULL))
			FROM boxes),
		'trees', (SELECT coalesce(json_agg(json_build_object(
			'name', t.name, 'url', robot_redact(t.url),
			'fetched', t.fetched,
			'fetch_error', robot_redact(t.fetch_error),
			'heads', (SELECT count(*) FROM tree_heads h
				WHERE h.tree = t.name)) ORDER BY t.name), '[]')
			FROM trees t),
		'bisections', (SELECT count(*) FROM bisections
			WHERE state = 'running'))
$$;

-- A commit's page (/commits/SHA?tree=, /api/commits/SHA): what its tree
-- knows of it (subject, author, date, parents), the series it was
-- measured in (its runs ok, failed, to come, and its first parent's ok
-- runs there), the pairs it is a side of
-- (newest 50), and the findings and bisections that name it, each with
-- its part.  p_sha may be a prefix of 4 hex digits or more, unique among
-- the trees' commits (or, outside a tree, the commits run); NULL when
-- robot knows no such commit.
CREATE FUNCTION robot_commit(p_sha text, p_tree text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
	c tree_commits;
	s text := lower(p_sha);
	found text[];
BEGIN
	IF s !~ '^[0-9a-f]{4,40}$' THEN
		RETURN NULL;
	END IF;
	SELECT array_agg(x.sha) INTO found FROM (SELECT t.sha
		FROM tree_commits t WHERE t.sha LIKE s || '%'
		AND (p_tree IS NULL OR t.tree = p_tree)
		ORDER BY t.tree = p_tree DESC NULLS LAST LIMIT 2) x;
	IF cardinality(found) >= 1 THEN
		SELECT * INTO c FROM tree_commits t WHERE t.sha = found[1]
			ORDER BY t.tree = p_tree DESC NULLS LAST LIMIT 1;
		s := c.sha;
	ELSIF length(s) < 40 THEN
		SELECT array_agg(x.commit) INTO found FROM (SELECT DISTINCT
			j.commit FROM jobs j WHERE j.commit LIKE s || '%'
			LIMIT 2) x;
		IF cardinality(found) <> 1 THEN
			RETURN NULL;
		END IF;
		s := found[1];
	END IF;
	IF c.sha IS NULL AND NOT EXISTS (SELECT 1 FROM jobs j
		WHERE j.commit = s) THEN
		RETURN NULL;
	END IF;
	RETURN json_build_object('sha', s, 'tree', coalesce(c.tree,
		(SELECT j.tree FROM jobs j WHERE j.commit = s
			AND j.tree IS NOT NULL LIMIT 1)),
		'subject', c.subject, 'author', c.author, 'date', c.date,
		'parents', c.parents,
		'series', (SELECT coalesce(json_agg(json_build_object(
			'series', x.series, 'ok', x.ok, 'failed', x.failed,
			'to_come', x.to_come,
			'parent_ok', (SELECT count(*) FROM jobs y
				WHERE y.series = x.series
				AND y.commit = c.parents[1]
				AND y.state = 'done')) ORDER BY x.series), '[]')
			FROM (SELECT j.series,
				count(*) FILTER (WHERE j.state = 'done') AS ok,
				count(*) FILTER (WHERE j.state = 'failed')
					AS failed,
				count(*) FILTER (WHERE j.state IN ('queued',
					'leased')) AS to_come
				FROM jobs j WHERE j.commit = s
				GROUP BY j.series) x),
		'pairs', (SELECT coalesce(json_agg(json_build_object(
			'id', p.id, 'series', p.series, 'base', p.base,
			'head', p.head, 'state', p.state,
			'verdict', p.verdict, 'bisection', p.bisection)
			ORDER BY p.id DESC), '[]')
			FROM (SELECT * FROM pairs x WHERE x.head = s
				OR x.base = s ORDER BY x.id DESC LIMIT 50) p),
		'findings', (SELECT coalesce(json_agg(json_build_object(
			'id', r.id, 'kind', r.kind, 'state', r.state,
			'series', r.series, 'kpi', r.kpi,
			'change_pct', r.change_pct,
			'part', CASE WHEN r.culprit = s THEN 'the commit at fault'
				WHEN r.commit = s THEN 'where it was found'
				WHEN r.bisected_to = s
				THEN 'the first bad commit its bisection found'
				WHEN r.fixed_by = s THEN 'its fix'
				WHEN r.last_head = s
				THEN 'a later head that still shows it'
				ELSE 'its base' END) ORDER BY r.id DESC), '[]')
			FROM regressions r WHERE s IN (r.commit, r.culprit,
				r.bisected_to, r.fixed_by, r.last_head,
				r.base)),
		'bisections', (SELECT coalesce(json_agg(json_build_object(
			'id', b.id, 'state', b.state, 'series', b.series,
			'part', CASE WHEN b.first_bad = s
				THEN 'the first bad commit'
				WHEN b.good = s THEN 'the good end'
				WHEN b.bad = s THEN 'the bad end'
				ELSE 'a step' END) ORDER BY b.id DESC), '[]')
			FROM bisections b WHERE s IN (b.good, b.bad, b.first_bad)
				OR EXISTS (SELECT 1 FROM pairs p
				WHERE p.bisection = b.id AND s IN (p.base,
				p.head))));
END $$;

-- A commit of series p_series as a person names it, where the pages and
-- the mails show it: a full SHA; a branch of its tree (its head now); its
-- tree's base ref (the base its pairs are measured against); a SHA prefix
-- of at least 4 hex digits among the commits it has runs of, else among
-- its tree's.  {"sha"}, or {"error"} saying why not (unknown, or
-- ambiguous with the candidates); "missing" when nothing was found (a
-- series without runs, a name of no commit of it: 404, where the CLI
-- names the nearest).
CREATE FUNCTION robot_series_commit(p_series text, p_name text)
RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
	n text := lower(p_name);
	t text;
	shas text[];
BEGIN
	IF n ~ '^[0-9a-f]{40}$' THEN
		RETURN json_build_object('sha', n);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM jobs j WHERE j.series = p_series) THEN
		RETURN json_build_object('error', format(
			'robot has no runs of %s', p_series), 'missing', true);
	END IF;
	SELECT j.tree INTO t FROM jobs j WHERE j.series = p_series
		AND j.tree IS NOT NULL ORDER BY j.id DESC LIMIT 1;
	IF t IS NOT NULL THEN
		SELECT array_agg(h.sha) INTO shas FROM tree_heads h
			WHERE h.tree = t AND h.branch = p_name;
		IF shas IS NULL THEN
			SELECT ARRAY[p.base] INTO shas FROM trees x
				JOIN pairs p ON p.tree = x.name
				WHERE x.name = t AND x.base_ref = p_name
				AND p.bisection IS NULL
				ORDER BY p.id DESC LIMIT 1;
		END IF;
		IF shas IS NOT NULL THEN
			RETURN json_build_object('sha', shas[1]);
		END IF;
	END IF;
	IF n ~ '^[0-9a-f]{4,39}$' THEN
		SELECT array_agg(x.commit ORDER BY x.commit) INTO shas
			FROM (SELECT DISTINCT j.commit FROM jobs j
			WHERE j.series = p_series AND j.commit LIKE n || '%'
			LIMIT 6) x;
		IF shas IS NULL AND t IS NOT NULL THEN
			SELECT array_agg(c.sha ORDER BY c.sha) INTO shas
				FROM (SELECT c.sha FROM tree_commits c
				WHERE c.tree = t AND c.sha LIKE n || '%'
				LIMIT 6) c;
		END IF;
		IF cardinality(shas) = 1 THEN
			RETURN json_build_object('sha', shas[1]);
		ELSIF cardinality(shas) > 1 THEN
			RETURN json_build_object('error', format(
				'%s is ambiguous in %s: %s%s', p_name,
				p_series, array_to_string(shas[1:5], ', '),
				CASE WHEN cardinality(shas) > 5
				THEN ', ...' ELSE '' END));
		END IF;
	END IF;
	RETURN json_build_object('error', format(
		'%s is no commit of %s: give a SHA (4 hex digits or more) of '
		'a commit it ran%s', p_name, p_series,
		CASE WHEN t IS NOT NULL THEN format(
			', a branch of tree %s or its base %s', t,
			(SELECT base_ref FROM trees WHERE name = t)) ELSE '' END),
		'missing', true);
END $$;

-- A metric of a series over its commits, oldest first (the commit's
-- date in its tree, else its first run's), at most p_limit commits (the
-- newest): every run's value, and the series' regressions and fixes of
-- that metric; and the series' metrics and KPIs, for a picker (p_metric
-- NULL: those only), at most 500 of them (KPIs first) and how many in
-- all.  Refused (RB413) before anything is read when its p_limit
-- commits with the most runs hold more than p_max_values values.
CREATE FUNCTION robot_series_history(p_series text, p_metric text,
	p_limit int, p_max_values int DEFAULT NULL) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
	nvals bigint;
BEGIN
	IF p_max_values IS NOT NULL THEN
		SELECT coalesce(sum(x.n), 0) INTO nvals FROM (SELECT m.n
			FROM metric_values m WHERE m.series = p_series
			AND m.metric = p_metric ORDER BY m.n DESC
			LIMIT p_limit) x;
		IF nvals > p_max_values THEN
			RAISE EXCEPTION 'the history of % in % may hold % values at its newest % commits, over this robotd''s compare_max_values (%): ask for fewer commits with ?limit=',
				p_metric, p_series, nvals, p_limit,
				p_max_values USING ERRCODE = 'RB413';
		END IF;
	END IF;
	RETURN (SELECT json_build_object('series', p_series, 'metric', p_metric,
		'commits', (SELECT coalesce(json_agg(json_build_object(
			'commit', x.commit, 'subject', x.subject,
			'date', x.at, 'vals', x.vals, 'n', x.n, 'mean', x.mean,
			'stddev', x.stddev) ORDER BY x.at, x.commit), '[]')
			FROM (SELECT m.commit, m.vals, m.n, m.mean, m.stddev,
				c.subject, coalesce(c.date, j.first) AS at
				FROM metric_values m
				JOIN LATERAL (SELECT min(created) AS first,
					min(tree) AS tree FROM jobs
					WHERE series = m.series
					AND commit = m.commit) j ON true
				LEFT JOIN tree_commits c ON c.tree = j.tree
					AND c.sha = m.commit
				WHERE m.series = p_series AND m.metric = p_metric
				ORDER BY coalesce(c.date, j.first) DESC
				LIMIT p_limit) x),
		'regressions', (SELECT coalesce(json_agg(json_build_object(
			'id', r.id, 'kind', r.kind, 'state', r.state,
			'found_by', r.found_by,
			'commit', r.commit, 'base', r.base,
			'culprit', r.culprit,
			'fixed_by', r.fixed_by, 'bisected_to', r.bisected_to,
			'change_pct', r.change_pct) ORDER BY r.id), '[]')
			FROM regressions r WHERE r.series = p_series
			AND r.kpi = p_metric),
		-- what a picker offers: the metrics of its newest run's
		-- commit, its KPIs (of its newest pairs) first
		'kpis', k.kpis,
		'metrics', (SELECT coalesce(json_agg(x.metric ORDER BY x.o,
			x.metric), '[]') FROM (SELECT m.metric,
			m.metric <> ALL (k.kpis) AS o FROM metric_values m
			WHERE m.series = p_series AND m.commit = nc.commit
			ORDER BY m.metric <> ALL (k.kpis), m.metric
			LIMIT 500) x),
		'metrics_total', (SELECT count(*) FROM metric_values m
			WHERE m.series = p_series AND m.commit = nc.commit))
	FROM (SELECT coalesce(array_agg(DISTINCT x->>'kpi'), '{}') AS kpis
		FROM (SELECT p.kpis FROM pairs p WHERE p.series = p_series
			AND p.kpis IS NOT NULL ORDER BY p.id DESC LIMIT 20) q,
		json_array_elements(q.kpis) x) k,
		(SELECT (SELECT j.commit FROM jobs j
			WHERE j.series = p_series AND j.state = 'done'
			AND j.commit IS NOT NULL
			ORDER BY j.id DESC LIMIT 1) AS commit) nc);
END $$;

-- A regression as its page and GET /api/regressions/:id show it: the
-- record, its triage with what people said of it (triage_events), its
-- pair's comparison and table, every run of its regressed KPIs on both
-- sides, its job, the report as mailed and how many it went to, its
-- news, and its newest bisection.
CREATE FUNCTION robot_regression(p_id bigint) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id, 'kind', r.kind,
		'found_by', r.found_by, 'history', r.history,
		'tree', r.tree, 'branch', r.branch, 'commit', r.commit,
		'base', r.base, 'series', r.series, 'kpi', r.kpi,
		'change_pct', r.change_pct, 'p_value', r.p_value,
		'runs', r.runs, 'base_runs', r.base_runs,
		'head_runs', r.head_runs, 'state', r.state,
		'last_head', r.last_head,
		'last_change_pct', r.last_change_pct,
		'last_p_value', r.last_p_value, 'last_runs', r.last_runs,
		'culprit', CASE WHEN r.culprit IS NOT NULL THEN
			robot_commit_info(r.tree, r.culprit) END,
		'fixed_by', r.fixed_by, 'created', r.created,
		'updated', r.updated,
		'triage', r.triage, 'triage_reason', r.triage_reason,
		'triage_text', r.triage_text, 'assignee', r.assignee,
		'duplicate_of', r.duplicate_of, 'fix_claimed', r.fix_claimed,
		'fix_confirmed', r.fix_confirmed, 'bug_url', r.bug_url,
		'tags', r.tags,
		'muted_by', (SELECT json_build_object('id', m.id, 'kind',
			m.kind, 'pattern', m.pattern, 'reason', m.reason,
			'expires', m.expires, 'ended', m.ended)
			FROM mutes m WHERE m.id = r.muted_by),
		'triage_events', (SELECT coalesce(json_agg(json_build_object(
			'action', t.action, 'detail', t.detail,
			'by', t.by_name, 'how', t.how, 'created', t.created)
			ORDER BY t.id), '[]') FROM triage_events t
			WHERE t.regression = r.id),
		'commit_info', robot_commit_info(r.tree, r.commit),
		'base_info', robot_commit_info(r.tree, r.base),
		'comparison', p.comparison, 'table', p.table_text,
		'kpis', p.kpis,
		'values', robot_side_values(r.series, r.base, r.commit,
			(SELECT coalesce(array_agg(k->>'kpi'), ARRAY[r.kpi])
			FROM json_array_elements(p.kpis) k
			WHERE k->>'verdict' IN ('regression', 'improvement'))),
		'job', (SELECT j.job FROM jobs j WHERE j.series = r.series
			AND j.commit = r.commit ORDER BY j.id LIMIT 1),
		-- how it was asked for: its group, the runs a side of its
		-- first look (robotd added the rest)
		'tbox_group', (SELECT j.tbox_group FROM jobs j
			WHERE j.series = r.series AND j.commit = r.commit
			ORDER BY j.id LIMIT 1),
		'repeat', (SELECT j.runs FROM jobs j WHERE j.series = r.series
			AND j.commit = r.commit ORDER BY j.id LIMIT 1),
		'report', (SELECT json_build_object('id', x.id,
			'message_id', x.message_id, 'subject', x.subject,
			'body', x.body, 'created', x.created,
			'recipients', (SELECT count(*) FROM outbox o
				WHERE o.report = x.id AND o.channel = 'mail'),
			'sent', (SELECT count(*) FROM outbox o
				WHERE o.report = x.id AND o.state = 'sent'))
			FROM reports x WHERE x.id = r.report),
		'events', (SELECT coalesce(json_agg(json_build_object(
			'kind', e.kind, 'head', e.head, 'created', e.created,
			'change_pct', e.change_pct, 'p_value', e.p_value,
			'runs', e.runs, 'base_runs', e.base_runs,
			'head_runs', e.head_runs, 'submission', e.submission)
			ORDER BY e.id), '[]') FROM regression_events e
			WHERE e.regression = r.id),
		'bisected_to', CASE WHEN r.bisected_to IS NOT NULL THEN
			robot_commit_info(r.tree, r.bisected_to) END,
		'bisection', (SELECT robot_bisection(b.id) FROM bisections b
			WHERE b.regression = r.id ORDER BY b.id DESC LIMIT 1))
	FROM regressions r JOIN pairs p ON p.id = r.pair
	WHERE r.id = p_id
$$;

CREATE FUNCTION robot_status() RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'queue', (SELECT json_build_object(
			'queued', coalesce(sum(n) FILTER (WHERE state = 'queued'), 0),
			'leased', coalesce(sum(n) FILTER (WHERE state = 'leased'), 0),
			'done', coalesce(sum(n) FILTER (WHERE state = 'done'), 0),
			'failed', coalesce(sum(n) FILTER (WHERE state = 'failed'), 0),
			'cancelled', coalesce(sum(n) FILTER (WHERE
				state = 'cancelled'), 0))
			FROM robot_job_counts() x),
		'analysis', (SELECT json_build_object(
			'waiting', coalesce(sum(n) FILTER (WHERE
				state = 'waiting'), 0),
			'analysing', coalesce(sum(n) FILTER (WHERE
				state IN ('ready', 'analysing')), 0),
			'final', coalesce(sum(n) FILTER (WHERE state = 'final'), 0))
			FROM (SELECT state, count(*) AS n FROM pairs
				GROUP BY state) x),
		'failed', (SELECT coalesce(json_agg(f ORDER BY f.updated DESC),
			'[]') FROM (SELECT id, series, commit, box, error,
			updated FROM jobs WHERE state = 'failed'
			ORDER BY updated DESC LIMIT 5) f),
		'boxes', (SELECT coalesce(json_agg(json_build_object(
			'name', b.name, 'tbox_group', b.tbox_group,
			'state', CASE WHEN b.revoked IS NOT NULL THEN 'revoked'
				WHEN b.suspect IS NOT NULL
				THEN 'suspect' ELSE b.state END,
			'suspect', b.suspect, 'failures', b.failures,
			'last_seen', b.last_seen, 'facts', b.facts,
			-- findings marked invalid for their box, 30 days
			'false_alarms', (SELECT count(*) FROM box_false_alarms f
				WHERE f.box = b.name
				AND f.created > now() - interval '30 days'))
			ORDER BY b.name), '[]') FROM boxes b),
		'notes', (SELECT coalesce(json_agg(json_build_object(
			'id', n.id, 'kind', n.kind, 'series', n.series,
			'boxes', n.boxes, 'pair', n.pair,
			'message', n.message, 'created', n.created)
			ORDER BY n.id DESC), '[]') FROM (SELECT * FROM
			lab_notes ORDER BY id DESC LIMIT 5) n),
		'running', (SELECT coalesce(json_agg(json_build_object(
			'id', j.id, 'key', j.key, 'commit', j.commit,
			'run', j.run, 'runs', j.runs, 'attempts', j.attempts,
			'box', l.box, 'lease', l.id, 'deadline', l.deadline)
			ORDER BY j.id), '[]') FROM jobs j JOIN leases l
			ON l.job = j.id AND l.state = 'active'
			WHERE j.state = 'leased'))
$$;

-- A submission's page (/submissions/ID, /api/submissions/ID): who asked
-- for it and when, its runs by state, each series' commits with their
-- runs, and the pairs its runs are in with their verdicts; NULL when
-- there is no such submission.
CREATE FUNCTION robot_submission(p_id bigint) RETURNS json
LANGUAGE sql STABLE AS $$
	-- (at most 200 commits and 200 pairs listed, with their totals: a
	-- submission of 100,000 runs made a page of 2.4 MB in 1.4 s)
	-- (its runs read once: each commit's counts by state, which the
	-- whole's add up to)
	WITH c AS (SELECT j.series, j.commit,
			count(*) FILTER (WHERE j.state = 'done') AS ok,
			count(*) FILTER (WHERE j.state = 'failed') AS failed,
			count(*) FILTER (WHERE j.state = 'queued') AS queued,
			count(*) FILTER (WHERE j.state = 'leased') AS leased,
			count(*) FILTER (WHERE j.state = 'cancelled')
				AS cancelled,
			min(j.id) AS first
		FROM jobs j WHERE j.submission = p_id
		GROUP BY j.series, j.commit),
	p AS (SELECT x.* FROM pairs x WHERE x.id IN (SELECT j.pair
		FROM jobs j WHERE j.submission = p_id))
	SELECT json_build_object('id', s.id, 'submitter', s.submitter,
		'file', s.file_name, 'created', s.created,
		'max_runs', s.max_runs,
		'runs', (SELECT json_build_object(
			'queued', coalesce(sum(queued), 0)::bigint,
			'leased', coalesce(sum(leased), 0)::bigint,
			'done', coalesce(sum(ok), 0)::bigint,
			'failed', coalesce(sum(failed), 0)::bigint,
			'cancelled', coalesce(sum(cancelled), 0)::bigint)
			FROM c),
		'commits', (SELECT coalesce(json_agg(x ORDER BY x.first), '[]')
			FROM (SELECT series, commit, ok, failed,
			queued + leased AS to_come, first FROM c
			ORDER BY first LIMIT 200) x),
		'commits_total', (SELECT count(*) FROM c),
		'pairs', (SELECT coalesce(json_agg(json_build_object(
			'id', x.id, 'series', x.series, 'base', x.base,
			'head', x.head, 'state', x.state,
			'verdict', x.verdict, 'kpi', x.kpi) ORDER BY x.id),
			'[]') FROM (SELECT * FROM p ORDER BY id LIMIT 200) x),
		'pairs_total', (SELECT count(*) FROM p))
	FROM submissions s WHERE s.id = p_id
$$;

-- A series' page (/series/S): its runs by state and by box, its commits
-- and trees, the job its newest run ran, its KPIs as its newest pair
-- left them, its newest pairs (not a bisection's) and findings, and the
-- lab's notes of it; NULL when it has no run.  One scan of its runs
-- (jobs_series), the rest by their indexes, at most 20 of each list.
CREATE FUNCTION robot_series_page(p_series text) RETURNS json
LANGUAGE sql STABLE AS $$
	WITH r AS (SELECT state, box, tree, count(*) AS n,
			min(created) AS first, max(updated) AS last
		FROM jobs WHERE series = p_series GROUP BY state, box, tree),
	np AS (SELECT * FROM pairs WHERE series = p_series
		AND bisection IS NULL ORDER BY id DESC LIMIT 20)
	SELECT CASE WHEN EXISTS (SELECT 1 FROM r) THEN json_build_object(
		'series', p_series,
		'tbox_group', (SELECT tbox_group FROM jobs
			WHERE series = p_series ORDER BY id DESC LIMIT 1),
		'first', (SELECT min(first) FROM r),
		'last', (SELECT max(last) FROM r),
		'queued', (SELECT coalesce(sum(n), 0) FROM r
			WHERE state = 'queued'),
		'leased', (SELECT coalesce(sum(n), 0) FROM r
			WHERE state = 'leased'),
		'done', (SELECT coalesce(sum(n), 0) FROM r WHERE state = 'done'),
		'failed', (SELECT coalesce(sum(n), 0) FROM r
			WHERE state = 'failed'),
		'commits', (SELECT count(DISTINCT commit) FROM jobs
			WHERE series = p_series),
		'trees', (SELECT coalesce(json_agg(DISTINCT tree), '[]')
			FROM r WHERE tree IS NOT NULL),
		'boxes', (SELECT coalesce(json_agg(b ORDER BY b.box), '[]')
			FROM (SELECT box, sum(n) AS runs,
				coalesce(sum(n) FILTER (WHERE state = 'failed'),
					0) AS failed, max(last) AS last
			FROM r WHERE box IS NOT NULL GROUP BY box) b),
		'job', (SELECT job FROM jobs WHERE series = p_series
			ORDER BY id DESC LIMIT 1),
		'kpis', coalesce((SELECT kpis FROM pairs
			WHERE series = p_series AND bisection IS NULL
			AND state = 'final' AND kpis IS NOT NULL
			ORDER BY id DESC LIMIT 1), '[]'),
		'pairs', (SELECT coalesce(json_agg(json_build_object(
			'id', p.id, 'tree', p.tree, 'branch', p.branch,
			'base', p.base, 'head', p.head, 'state', p.state,
			'verdict', p.verdict, 'kpi', p.kpi, 'runs', p.runs,
			'updated', p.updated) ORDER BY p.id DESC), '[]')
			FROM np p),
		'findings', (SELECT coalesce(json_agg(json_build_object(
			'id', x.id, 'kind', x.kind, 'state', x.state,
			'kpi', x.kpi, 'change_pct', x.change_pct,
			'commit', x.commit, 'created', x.created)
			ORDER BY x.id DESC), '[]')
			FROM (SELECT * FROM regressions
			WHERE series = p_series ORDER BY id DESC LIMIT 20) x),
		'notes', (SELECT coalesce(json_agg(json_build_object(
			'message', n.message, 'boxes', n.boxes,
			'created', n.created) ORDER BY n.id DESC), '[]')
			FROM (SELECT * FROM lab_notes WHERE series = p_series
			ORDER BY id DESC LIMIT 5) n)) END
$$;
