-- reports.sql: reports, their outbox, subscriptions.

-- 244 random bits as 64 hex digits (gen_random_uuid() draws from the
-- strong random source).
CREATE FUNCTION robot_random_token() RETURNS text
LANGUAGE sql VOLATILE AS $$
	SELECT replace(gen_random_uuid()::text || gen_random_uuid()::text,
		'-', '')
$$;

-- News on a regression that was reported: an event for its thread
-- (fixed, bisected with the first bad commit as its head, or still there
-- at a newer head).
CREATE FUNCTION robot_regression_news() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	-- (a muted finding's news is not mailed)
	IF NEW.report IS NULL OR NEW.muted_by IS NOT NULL THEN
		RETURN NULL;
	END IF;
	IF NEW.state = 'fixed' AND OLD.state <> 'fixed' THEN
		INSERT INTO regression_events (regression, kind, head)
			VALUES (NEW.id, 'fixed', NEW.fixed_by);
	ELSIF NEW.bisected_to IS NOT NULL AND
		NEW.bisected_to IS DISTINCT FROM OLD.bisected_to THEN
		INSERT INTO regression_events (regression, kind, head)
			VALUES (NEW.id, 'bisected', NEW.bisected_to);
	ELSIF NEW.last_head IS DISTINCT FROM OLD.last_head THEN
		INSERT INTO regression_events (regression, kind, head,
			change_pct, p_value, runs)
			VALUES (NEW.id, 'still', NEW.last_head,
			NEW.last_change_pct, NEW.last_p_value, NEW.last_runs);
	ELSE
		RETURN NULL;
	END IF;
	PERFORM pg_notify('robot_jobs', ':reports');
	RETURN NULL;
END $$;
CREATE TRIGGER regressions_news AFTER UPDATE ON regressions FOR EACH ROW
	EXECUTE FUNCTION robot_regression_news();

-- A final regression wakes the reporters.
CREATE FUNCTION robot_regression_found() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('robot_jobs', ':reports');
	RETURN NULL;
END $$;
CREATE TRIGGER regressions_found AFTER INSERT ON regressions
	FOR EACH STATEMENT EXECUTE FUNCTION robot_regression_found();

-- A commit as a report shows it: sha, subject, author, date, and the
-- author's address as git read it (null for a commit fetched before it
-- was kept).
CREATE FUNCTION robot_commit_info(p_tree text, p_sha text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('sha', p_sha, 'subject', c.subject,
		'author', c.author, 'date', c.date, 'email', c.email)
	FROM (SELECT 1) one LEFT JOIN tree_commits c
		ON c.tree = p_tree AND c.sha = p_sha
$$;

-- What a report says of one pair: its series, table and comparison, the
-- ok runs of each side, one of its atomic jobs, the facts of a box that
-- ran it, and what that box's provisioning hook said of its last run of
-- the head (the kernel it booted; "tcg" when QEMU had no KVM).
CREATE FUNCTION robot_pair_info(p_pair bigint) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('pair', p.id, 'series', p.series,
		'base', p.base, 'head', p.head, 'verdict', p.verdict,
		'runs', p.runs,
		'base_runs', (p.comparison->'base_runs'->>'ok')::int,
		'head_runs', (p.comparison->'head_runs'->>'ok')::int,
		'table', p.table_text,
		'comparison', p.comparison,
		'job', j.job, 'tbox_group', j.tbox_group,
		'submission', j.submission,
		'facts', d.facts, 'provision', d.provision)
	FROM pairs p LEFT JOIN LATERAL (SELECT * FROM jobs x
		WHERE x.series = p.series AND x.commit = p.head
		ORDER BY x.id LIMIT 1) j ON true
	LEFT JOIN LATERAL (SELECT b.facts, r.doc->'provision' AS provision
		FROM jobs x JOIN boxes b ON b.name = x.box
		LEFT JOIN results r ON r.job = x.id
		WHERE x.series = p.series AND x.commit = p.head
		AND x.state = 'done' ORDER BY x.id DESC LIMIT 1) d ON true
	WHERE p.id = p_pair
$$;

-- The commits of the range (p_base, p_head] of a tree, newest first, as
-- far as robotd fetched them (at most p_limit; NULL: every one).
CREATE FUNCTION robot_range_commits(p_tree text, p_base text, p_head text,
	p_limit int DEFAULT 1000)
RETURNS TABLE (sha text, date timestamptz) LANGUAGE sql STABLE AS $$
	WITH RECURSIVE r(sha) AS (
		SELECT p_head WHERE p_head <> p_base
		UNION
		SELECT x FROM r JOIN tree_commits c ON c.tree = p_tree
			AND c.sha = r.sha, unnest(c.parents) x
		WHERE x <> p_base)
	SELECT r.sha, c.date FROM r JOIN tree_commits c ON c.tree = p_tree
		AND c.sha = r.sha ORDER BY c.date DESC NULLS LAST, r.sha
		LIMIT p_limit
$$;

-- The newest bisection of a regression's series and ends.
CREATE FUNCTION robot_regression_bisection(r regressions) RETURNS bisections
LANGUAGE sql STABLE AS $$
	SELECT * FROM bisections b WHERE b.series = r.series
		AND b.good = r.base AND b.bad = r.commit AND b.change = r.kind
		ORDER BY b.id DESC LIMIT 1
$$;

-- What a report says of one finding: the record with the commits it was
-- found between, and its bisection: how it ended, in how many steps,
-- and the pair of the first bad commit against its parent with the
-- KPI's change there.
CREATE FUNCTION robot_finding_info(r regressions) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', r.id, 'kind', r.kind,
		'found_by', r.found_by, 'history', r.history,
		'branch', r.branch, 'base', r.base, 'head', r.commit,
		'series', r.series, 'kpi', r.kpi,
		'change_pct', r.change_pct, 'p_value', r.p_value,
		'runs', r.runs, 'base_runs', r.base_runs,
		'head_runs', r.head_runs, 'pair', r.pair,
		'culprit', r.culprit,
		'head_info', robot_commit_info(r.tree, r.commit),
		'base_info', robot_commit_info(r.tree, r.base),
		'bisection', (SELECT json_build_object('id', b.id,
			'state', b.state, 'reason', b.reason,
			'first_bad', b.first_bad,
			'steps', (SELECT count(*) FROM bisect_steps s
				WHERE s.bisection = coalesce(b.lead, b.id)
				AND s.kind = 'mid'),
			'lead_series', (SELECT l.series FROM bisections l
				WHERE l.id = b.lead),
			'parent', robot_commit_info(r.tree, s.against),
			'pair', s.pair_good,
			'kpi', (SELECT k FROM pairs x,
				json_array_elements(x.kpis) k
				WHERE x.id = s.pair_good
				AND k->>'kpi' = r.kpi LIMIT 1))
			FROM robot_regression_bisection(r) b
			LEFT JOIN bisect_steps s ON s.bisection = b.id
			AND s.kind = 'confirm' AND s.commit = b.first_bad
			AND s.verdict = 'confirmed'
			WHERE b.id IS NOT NULL))
$$;

-- The confirmed subscriptions of addresses that did not opt out.
CREATE FUNCTION robot_subscribers() RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT coalesce(json_agg(json_build_object('id', s.id,
		'email', s.email, 'tree', s.tree, 'branch', s.branch,
		'testcase', s.testcase, 'metric', s.metric,
		'min_change', s.min_change, 'regressions', s.regressions,
		'improvements', s.improvements) ORDER BY s.id), '[]')
	FROM subscriptions s JOIN mail_addresses a ON a.email = s.email
	WHERE s.state = 'confirmed' AND a.opted_out IS NULL
$$;

-- The regressions not reported yet, each with what its report is about
-- (key: the commit at fault once known, else its range BASE..HEAD) and
-- whether it is ready: its culprit is known, no bisection of it is
-- running, or it waited p_wait seconds for one.
CREATE FUNCTION robot_report_pending(p_wait int) RETURNS TABLE (id bigint,
	tree text, head text, key text, ready boolean, created timestamptz)
LANGUAGE sql STABLE AS $$
	SELECT r.id, r.tree, r.commit,
		coalesce(r.culprit, r.base || '..' || r.commit),
		r.culprit IS NOT NULL
			OR r.created <= now() - make_interval(secs => p_wait)
			OR NOT EXISTS (SELECT 1 FROM bisections b
				WHERE b.series = r.series AND b.good = r.base
				AND b.bad = r.commit AND b.change = r.kind
				AND b.state = 'running'),
		r.created
	FROM regressions r
	WHERE r.report IS NULL AND r.state = 'new'
		AND (r.report_claim IS NULL OR r.report_claim < now())
		AND r.muted_by IS NULL
		-- held while its pair is measured again (a suspect box)
		AND NOT EXISTS (SELECT 1 FROM pairs p WHERE p.id = r.pair
			AND p.state <> 'final')
$$;

-- A claim's JSON: the regressions p_ids (to be marked reported: p_mark;
-- or told by the events p_events) in one report about p_culprit, or
-- about their range when it is NULL; in thread p_thread, if any.
CREATE FUNCTION robot_report_claim(p_tree text, p_culprit text,
	p_ids bigint[], p_mark bigint[], p_events bigint[], p_thread bigint)
RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
	r regressions;
	rng json;
BEGIN
	SELECT * INTO r FROM regressions WHERE id = ANY (p_ids)
		ORDER BY id LIMIT 1;
	IF p_culprit IS NULL AND p_tree IS NOT NULL THEN
		SELECT json_build_object('base', robot_commit_info(p_tree,
			r.base), 'head', robot_commit_info(p_tree, r.commit),
			'count', (SELECT count(*) FROM robot_range_commits(
				p_tree, r.base, r.commit, NULL)),
			'commits', (SELECT coalesce(json_agg(robot_commit_info(
				p_tree, c.sha) ORDER BY c.date DESC, c.sha), '[]')
				FROM (SELECT * FROM robot_range_commits(p_tree,
				r.base, r.commit) LIMIT 20) c))
			INTO rng;
	END IF;
	RETURN json_build_object('kind', 'report', 'tree', p_tree,
		'commit', robot_commit_info(p_tree,
			coalesce(p_culprit, r.commit)),
		'culprit', p_culprit IS NOT NULL, 'range', rng,
		'regressions', coalesce(p_mark, '{}'),
		'events', coalesce(p_events, '{}'),
		'tree_info', (SELECT json_build_object('url',
			robot_redact(t.url),
			'mail_author', t.mail_author) FROM trees t
			WHERE t.name = p_tree),
		'thread', (SELECT json_build_object('id', x.id, 'message_id',
			x.message_id, 'subject', x.subject) FROM reports x
			WHERE x.id = p_thread),
		'findings', (SELECT json_agg(robot_finding_info(x)
			ORDER BY x.kind = 'improvement', abs(x.change_pct) DESC
			NULLS LAST, x.id) FROM regressions x
			WHERE x.id = ANY (p_ids)),
		'pairs', (SELECT json_agg(robot_pair_info(x.pair) ORDER BY
			x.pair) FROM (SELECT DISTINCT pair FROM regressions
			WHERE id = ANY (p_ids)) x),
		'culprit_pairs', (SELECT json_agg(robot_pair_info(x.pair)
			ORDER BY x.pair) FROM (SELECT DISTINCT
			(robot_finding_info(y)->'bisection'->>'pair')::bigint
			AS pair FROM regressions y WHERE y.id = ANY (p_ids)) x
			WHERE x.pair IS NOT NULL),
		'bases', (SELECT json_agg(robot_commit_info(p_tree, x.base))
			FROM (SELECT DISTINCT base FROM regressions
			WHERE id = ANY (p_ids)) x),
		'subscribers', robot_subscribers());
END $$;

-- The next report due, claimed for p_seconds; NULL when none is.
--
-- A regression's report is about the commit at fault: it waits until
-- that is known (the bisection found it), or the bisection ended
-- without it, or p_wait seconds passed (then it is about the range, and
-- the first bad commit follows in its thread).  Regressions about one
-- commit (or range) go in one report, once every regression of their
-- heads is ready and no pair of those heads is still waiting (or the
-- oldest waited p_window seconds).
--
-- A regression reported as a range whose bisection then found the
-- first bad commit (a 'bisected' event) gets a report of that commit in
-- the range report's thread, once no bisection of that thread is
-- running (or the oldest event waited p_window seconds).
CREATE FUNCTION robot_report_next(p_window int, p_wait int, p_seconds int)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	g record;
	ids bigint[];
	evs bigint[];
	th bigint;
BEGIN
	WITH pe AS (SELECT * FROM robot_report_pending(p_wait)),
	heads AS (SELECT x.tree, x.head, bool_and(x.ready) AND
			(min(x.created) <= now() - make_interval(secs =>
				p_window)
			 OR NOT EXISTS (SELECT 1 FROM pairs p
				WHERE p.head = x.head AND p.state <> 'final'
				AND p.bisection IS NULL)) AS settled
		FROM pe x GROUP BY x.tree, x.head)
	SELECT pe.tree, pe.key, bool_and(pe.key NOT LIKE '%..%') AS known,
		min(pe.created) AS first INTO g
		FROM pe JOIN heads h ON h.tree IS NOT DISTINCT FROM pe.tree
		AND h.head = pe.head
		GROUP BY pe.tree, pe.key HAVING bool_and(h.settled)
		ORDER BY min(pe.created) LIMIT 1;
	IF FOUND THEN
		SELECT array_agg(id ORDER BY id) INTO ids FROM (SELECT r.id
			FROM regressions r
			WHERE r.tree IS NOT DISTINCT FROM g.tree
			AND coalesce(r.culprit, r.base || '..' || r.commit)
				= g.key
			AND r.report IS NULL AND r.state = 'new'
			AND (r.report_claim IS NULL OR r.report_claim < now())
			AND r.muted_by IS NULL
			FOR UPDATE SKIP LOCKED) x;
		IF ids IS NULL THEN
			RETURN NULL;
		END IF;
		UPDATE regressions SET report_claim = now() +
			make_interval(secs => p_seconds) WHERE id = ANY (ids);
		-- A commit (or range) reported before: this one is a
		-- reply in its thread.
		SELECT x.id INTO th FROM reports x WHERE x.kind = 'report'
			AND x.tree IS NOT DISTINCT FROM g.tree
			AND ((g.known AND x.commit = g.key AND x.range IS NULL)
			OR x.range = g.key) ORDER BY x.id LIMIT 1;
		RETURN robot_report_claim(g.tree, CASE WHEN g.known THEN
			g.key END, ids, ids, NULL, th);
	END IF;
	SELECT r.tree, e.head, r.report, min(e.created) AS first INTO g
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression
		WHERE e.kind = 'bisected' AND e.report IS NULL
		AND (e.claim IS NULL OR e.claim < now())
		GROUP BY r.tree, e.head, r.report
		HAVING min(e.created) <= now() - make_interval(secs =>
				p_window)
			OR NOT EXISTS (SELECT 1 FROM regressions x
				JOIN bisections b ON b.series = x.series
				AND b.good = x.base AND b.bad = x.commit
				AND b.change = x.kind WHERE x.report = r.report
				AND b.state = 'running')
		ORDER BY min(e.created) LIMIT 1;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT array_agg(id ORDER BY id) INTO evs FROM (SELECT e.id
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression WHERE e.kind = 'bisected'
		AND e.head = g.head AND r.report = g.report
		AND e.report IS NULL AND (e.claim IS NULL OR e.claim < now())
		FOR UPDATE OF e SKIP LOCKED) x;
	IF evs IS NULL THEN
		RETURN NULL;
	END IF;
	UPDATE regression_events SET claim = now() + make_interval(secs =>
		p_seconds) WHERE id = ANY (evs);
	SELECT array_agg(DISTINCT regression) INTO ids
		FROM regression_events WHERE id = ANY (evs);
	RETURN robot_report_claim(g.tree, g.head, ids, NULL, evs, g.report);
END $$;

-- The next thread with news (events of its regressions not yet told),
-- claimed for p_seconds: the thread's first report, the events with
-- their regressions and heads, and the thread's mail recipients.
CREATE FUNCTION robot_followup_next(p_window int, p_seconds int)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	th reports;
	ids bigint[];
BEGIN
	-- A thread's news wait until none of its heads' pairs is still
	-- waiting (or the oldest waited p_window seconds): one mail tells
	-- of every series.  A first bad commit found is a report of its own
	-- (robot_report_next()).
	SELECT x.* INTO th FROM reports x WHERE x.id = (SELECT r.report
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression WHERE e.report IS NULL
		AND e.kind NOT IN ('bisected', 'measured')
		AND (e.claim IS NULL OR e.claim < now())
		AND (e.created <= now() - make_interval(secs => p_window)
			OR NOT EXISTS (SELECT 1 FROM pairs p
			WHERE p.head = e.head AND p.state <> 'final'
			AND p.bisection IS NULL))
		ORDER BY e.id LIMIT 1);
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT array_agg(id ORDER BY id) INTO ids FROM (SELECT e.id
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression WHERE r.report = th.id
		AND e.report IS NULL AND e.kind NOT IN ('bisected', 'measured')
		AND (e.claim IS NULL OR e.claim < now())
		FOR UPDATE OF e SKIP LOCKED) x;
	IF ids IS NULL THEN
		RETURN NULL;
	END IF;
	UPDATE regression_events SET claim = now() + make_interval(secs =>
		p_seconds) WHERE id = ANY (ids);
	RETURN json_build_object('kind', 'followup', 'tree', th.tree,
		'branch', th.branch, 'base', th.base,
		'commit', robot_commit_info(th.tree, th.commit),
		'regressions', '[]'::json, 'events', ids,
		'thread', json_build_object('id', th.id, 'message_id',
			th.message_id, 'subject', th.subject),
		'news', (SELECT json_agg(json_build_object('id', e.id,
			'kind', e.kind, 'regression', r.id,
			'finding', r.kind, 'series', r.series, 'kpi', r.kpi,
			'change_pct', coalesce(e.change_pct, r.change_pct),
			'p_value', coalesce(e.p_value, r.p_value),
			'runs', coalesce(e.runs, r.runs),
			'head', robot_commit_info(th.tree, e.head))
			ORDER BY e.id) FROM regression_events e
			JOIN regressions r ON r.id = e.regression
			WHERE e.id = ANY (ids)),
		'recipients', (SELECT coalesce(json_agg(o.recipient
			ORDER BY o.id), '[]') FROM outbox o
			JOIN mail_addresses a ON a.email = o.recipient
			WHERE o.report = th.id AND o.channel = 'mail'
			AND a.opted_out IS NULL));
END $$;

-- The next note for the lab's operators not yet told, claimed for
-- p_seconds: {kind: "note", id, note: {kind, series, boxes, kpi, pair,
-- message, created}}; NULL when none is due.
CREATE FUNCTION robot_note_next(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	n lab_notes;
BEGIN
	UPDATE lab_notes SET claim = now() + make_interval(secs => p_seconds)
		WHERE id = (SELECT id FROM lab_notes WHERE told IS NULL
			AND (claim IS NULL OR claim < now())
			ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING * INTO n;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	RETURN json_build_object('kind', 'note', 'id', n.id,
		'note', json_build_object('kind', n.kind, 'series', n.series,
			'boxes', n.boxes, 'kpi', n.kpi, 'pair', n.pair,
			'message', n.message, 'created', n.created,
			'also', n.also));
END $$;

-- A note rendered by robotd (p: {subject, body, doc, outbox: [{channel,
-- recipient}]}), its outbox rows stored and the note told: 'stale' when
-- another robotd told it meanwhile, else the rows made.
CREATE FUNCTION robot_note_store(p_id bigint, p json) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	n int;
BEGIN
	UPDATE lab_notes SET told = now(), claim = NULL
		WHERE id = p_id AND told IS NULL;
	IF NOT FOUND THEN
		RETURN '"stale"';
	END IF;
	INSERT INTO mail_addresses (email, token)
	SELECT o.recipient, robot_random_token()
	FROM json_to_recordset(p->'outbox') AS o(channel text,
		recipient text)
	WHERE o.channel = 'mail'
	ON CONFLICT DO NOTHING;
	INSERT INTO outbox (channel, recipient, subject, message, doc)
	SELECT o.channel, o.recipient, p->>'subject', p->>'body',
		(p->'doc')::jsonb
	FROM json_to_recordset(p->'outbox') AS o(channel text,
		recipient text);
	GET DIAGNOSTICS n = ROW_COUNT;
	PERFORM pg_notify('robot_jobs', ':outbox');
	RETURN to_json(n);
END $$;

-- A report rendered by robotd (p: {kind, tree, branch, commit, base,
-- range, thread, subject, body, doc, regressions: [ids], events: [ids],
-- outbox: [{channel, recipient}]}), stored with its outbox under a Message-ID
-- made of its id and commit at p_domain.  'stale' (nothing stored) when
-- another robotd told of these regressions or events meanwhile; else
-- {id, message_id}.
CREATE FUNCTION robot_report_store(p json, p_domain text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	rid bigint;
	mid text;
BEGIN
	PERFORM 1 FROM regressions WHERE id IN (SELECT json_array_elements_text(
		p->'regressions')::bigint) AND report IS NOT NULL;
	IF FOUND THEN
		RETURN '"stale"';
	END IF;
	PERFORM 1 FROM regression_events WHERE id IN (SELECT
		json_array_elements_text(p->'events')::bigint)
		AND report IS NOT NULL;
	IF FOUND THEN
		RETURN '"stale"';
	END IF;
	rid := nextval('reports_id_seq');
	mid := format('<robot.%s.%s@%s>', rid, left(p->>'commit', 12),
		p_domain);
	INSERT INTO reports (id, kind, tree, branch, commit, base, range,
		thread, message_id, subject, body, doc)
	VALUES (rid, p->>'kind', p->>'tree', p->>'branch', p->>'commit',
		p->>'base', p->>'range', (p->>'thread')::bigint, mid,
		p->>'subject',
		p->>'body', (p->'doc')::jsonb ||
		jsonb_build_object('message_id', mid, 'report', rid));
	-- 'reported' once told to someone: a report with no recipient
	-- leaves its regressions new.
	UPDATE regressions r SET report = rid, report_claim = NULL,
		state = CASE WHEN r.state <> 'new' OR
			json_array_length(p->'outbox') = 0 THEN r.state
			WHEN r.bisected_to IS NOT NULL THEN 'bisected'
			WHEN (robot_regression_bisection(r)).state = 'running'
			THEN 'bisecting' ELSE 'reported' END,
		updated = now()
		WHERE id IN (SELECT json_array_elements_text(
			p->'regressions')::bigint);
	UPDATE regression_events SET report = rid, claim = NULL
		WHERE id IN (SELECT json_array_elements_text(
			p->'events')::bigint);
	INSERT INTO mail_addresses (email, token)
	SELECT o.recipient, robot_random_token()
	FROM json_to_recordset(p->'outbox') AS o(channel text,
		recipient text)
	WHERE o.channel = 'mail'
	ON CONFLICT DO NOTHING;
	INSERT INTO outbox (report, channel, recipient)
	SELECT rid, o.channel, o.recipient FROM json_to_recordset(
		p->'outbox') AS o(channel text, recipient text)
	ON CONFLICT DO NOTHING;
	PERFORM pg_notify('robot_jobs', ':outbox');
	RETURN json_build_object('id', rid, 'message_id', mid);
END $$;

-- Up to p_limit outbox rows due, claimed for p_seconds, with what makes
-- their message: the report's (subject, body, doc, Message-ID, the
-- thread's Message-ID) or the row's own, and the recipient's unsubscribe
-- token.  Rows to an address that opted out are cancelled instead.
CREATE FUNCTION robot_outbox_next(p_limit int, p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	ids bigint[];
BEGIN
	UPDATE outbox o SET state = 'cancelled', last_error = 'unsubscribed'
		FROM mail_addresses a WHERE o.state = 'pending'
		AND o.channel = 'mail' AND a.email = o.recipient
		AND a.opted_out IS NOT NULL AND o.report IS NOT NULL;
	SELECT array_agg(id) INTO ids FROM (SELECT id FROM outbox
		WHERE state = 'pending' AND next_try <= now()
		AND (claimed_until IS NULL OR claimed_until < now())
		ORDER BY next_try, id LIMIT p_limit FOR UPDATE SKIP LOCKED) x;
	IF ids IS NULL THEN
		RETURN NULL;
	END IF;
	UPDATE outbox SET claimed_until = now() + make_interval(secs =>
		p_seconds), attempts = attempts + 1 WHERE id = ANY (ids);
	RETURN (SELECT json_agg(json_build_object('id', o.id,
		'channel', o.channel, 'recipient', o.recipient,
		'attempts', o.attempts,
		'subject', coalesce(o.subject, r.subject),
		'body', coalesce(o.message, r.body),
		'doc', coalesce(o.doc, r.doc),
		'message_id', r.message_id,
		'thread', (SELECT t.message_id FROM reports t
			WHERE t.id = r.thread),
		'created', coalesce(r.created, o.created),
		'token', (SELECT a.token FROM mail_addresses a
			WHERE a.email = o.recipient),
		-- a report's mail: its Reply-To's token for this recipient;
		-- an answer to a mail: that mail's Message-ID
		'reply', CASE WHEN o.channel = 'mail' AND r.id IS NOT NULL
			THEN robot_reply_token(coalesce(r.thread, r.id),
				o.recipient) END,
		'in_reply_to', o.in_reply_to) ORDER BY o.id)
		FROM outbox o LEFT JOIN reports r ON r.id = o.report
		WHERE o.id = ANY (ids));
END $$;

-- The end of one delivery, as robotd decided it (p_state): sent,
-- pending (tried again in p_retry_in seconds) or failed (for good).
CREATE FUNCTION robot_outbox_done(p_id bigint, p_state text, p_error text,
	p_retry_in int) RETURNS text
LANGUAGE sql AS $$
	UPDATE outbox SET claimed_until = NULL, state = p_state,
		sent = CASE WHEN p_state = 'sent' THEN now() END,
		last_error = CASE WHEN p_state = 'sent' THEN NULL
			ELSE p_error END,
		next_try = CASE WHEN p_state = 'sent' THEN next_try
			ELSE now() + make_interval(secs => p_retry_in) END
		WHERE id = p_id
		RETURNING state
$$;

-- A subscription asked for (p: {email, tree, branch, testcase, metric,
-- min_change, regressions, improvements}), with its confirmation mail
-- (p_subject, p_message) in the outbox and the sha256 of the link's
-- token.  Refused (RB429) when the address has three unconfirmed
-- subscriptions from the last hour: a confirmation is in its mailbox.
CREATE FUNCTION robot_subscribe(p json, p_confirm_hash text,
	p_subject text, p_message text, p_client text DEFAULT NULL)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	sid bigint;
	em text := lower(p->>'email');
BEGIN
	-- One at a time, so that requests at once cannot each see room
	-- under a limit: at most 3 confirmations an hour to an address;
	-- an anonymous asker (p_client: its address; NULL for a token's
	-- request) 10 from one address, 100 from all of them.
	PERFORM pg_advisory_xact_lock(hashtext('robot_subscribe'));
	IF (SELECT count(*) FROM subscriptions WHERE email = em
		AND state IN ('unconfirmed', 'replaced')
		AND created > now() - interval '1 hour') >= 3 THEN
		RAISE EXCEPTION 'three confirmations were sent to % in the last hour: follow the link in one of them',
			em USING ERRCODE = 'RB429';
	END IF;
	IF p_client IS NOT NULL AND (SELECT count(*) FROM subscriptions
		WHERE client IS NOT NULL
		AND created > now() - interval '1 hour') >= 100 THEN
		RAISE EXCEPTION 'robot mailed 100 confirmations in the last hour: try again later'
			USING ERRCODE = 'RB429';
	END IF;
	IF p_client IS NOT NULL AND (SELECT count(*) FROM subscriptions
		WHERE client = p_client
		AND created > now() - interval '1 hour') >= 10 THEN
		RAISE EXCEPTION 'ten subscriptions were asked from your address in the last hour: try again later'
			USING ERRCODE = 'RB429';
	END IF;
	INSERT INTO mail_addresses (email, token)
		VALUES (em, robot_random_token()) ON CONFLICT DO NOTHING;
	-- The same subscription asked again before it was confirmed: this
	-- one replaces it (its link says so), so that one is confirmed.
	UPDATE subscriptions x SET state = 'replaced', updated = now()
		WHERE x.email = em AND x.state = 'unconfirmed'
		AND x.tree IS NOT DISTINCT FROM p->>'tree'
		AND x.branch IS NOT DISTINCT FROM p->>'branch'
		AND x.testcase IS NOT DISTINCT FROM p->>'testcase'
		AND x.metric IS NOT DISTINCT FROM p->>'metric'
		AND x.min_change = coalesce((p->>'min_change')::float8, 0)
		AND x.regressions = coalesce((p->>'regressions')::boolean, true)
		AND x.improvements =
			coalesce((p->>'improvements')::boolean, false);
	INSERT INTO subscriptions (email, tree, branch, testcase, metric,
		min_change, regressions, improvements, confirm_hash, client)
	VALUES (em, p->>'tree', p->>'branch', p->>'testcase', p->>'metric',
		coalesce((p->>'min_change')::float8, 0),
		coalesce((p->>'regressions')::boolean, true),
		coalesce((p->>'improvements')::boolean, false),
		p_confirm_hash, p_client)
	RETURNING id INTO sid;
	INSERT INTO outbox (channel, recipient, subject, message)
		VALUES ('mail', em, p_subject, p_message);
	PERFORM pg_notify('robot_jobs', ':outbox');
	RETURN json_build_object('id', sid, 'email', em,
		'state', 'unconfirmed');
END $$;

-- The link of a confirmation: the subscription confirmed (and its
-- address back in, if it had opted out); opened again, what it confirmed
-- ('already', and whether the address opted out since); the link of a
-- request asked again since, that it was ('replaced', and the address).
-- NULL for a link unknown or older than a week.
CREATE FUNCTION robot_subscription_confirm(p_hash text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	s subscriptions;
	already boolean := false;
BEGIN
	UPDATE subscriptions SET state = 'confirmed',
		confirmed = now(), updated = now()
		WHERE confirm_hash = p_hash AND state = 'unconfirmed'
		AND created > now() - interval '7 days'
		RETURNING * INTO s;
	IF FOUND THEN
		UPDATE mail_addresses SET opted_out = NULL
			WHERE email = s.email;
	ELSE
		-- The link opened again (a second click, a mail client's
		-- preview, or after unsubscribing): what it confirmed, and
		-- when.
		SELECT * INTO s FROM subscriptions WHERE confirm_hash = p_hash
			AND state IN ('confirmed', 'unsubscribed', 'replaced')
			AND created > now() - interval '7 days';
		IF NOT FOUND THEN
			RETURN NULL;
		ELSIF s.state = 'replaced' THEN
			RETURN json_build_object('id', s.id, 'email', s.email,
				'replaced', true);
		END IF;
		already := true;
	END IF;
	RETURN json_build_object('id', s.id, 'email', s.email,
		'already', already, 'confirmed', s.confirmed,
		'opted_out', (SELECT opted_out IS NOT NULL
			FROM mail_addresses WHERE email = s.email),
		'tree', s.tree, 'branch', s.branch, 'testcase', s.testcase,
		'metric', s.metric, 'min_change', s.min_change,
		'regressions', s.regressions,
		'improvements', s.improvements, 'state', s.state,
		'token', (SELECT token FROM mail_addresses
			WHERE email = s.email));
END $$;

-- An unsubscribe link followed: the address gets no more mail, and its
-- subscriptions end.  NULL for an unknown token.
CREATE FUNCTION robot_unsubscribe(p_token text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	a mail_addresses;
	n int;
BEGIN
	UPDATE mail_addresses SET opted_out = coalesce(opted_out, now())
		WHERE token = p_token RETURNING * INTO a;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	UPDATE subscriptions SET state = 'unsubscribed', updated = now()
		WHERE email = a.email AND state <> 'unsubscribed';
	GET DIAGNOSTICS n = ROW_COUNT;
	UPDATE outbox SET state = 'cancelled', last_error = 'unsubscribed'
		WHERE recipient = a.email AND state = 'pending';
	RETURN json_build_object('email', a.email, 'subscriptions', n);
END $$;

-- The address an unsubscribe link names, and whether it opted out
-- already (its page, which changes nothing): {email, opted_out}; NULL
-- for no such token.
CREATE FUNCTION robot_unsubscribe_look(p_token text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('email', a.email,
		'opted_out', a.opted_out IS NOT NULL)
	FROM mail_addresses a WHERE a.token = p_token
$$;

-- Every subscription, for an admin.
CREATE FUNCTION robot_subscriptions() RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('subscriptions', coalesce(json_agg(
		json_build_object('id', s.id, 'email', s.email,
		'tree', s.tree, 'branch', s.branch, 'testcase', s.testcase,
		'metric', s.metric, 'min_change', s.min_change,
		'regressions', s.regressions,
		'improvements', s.improvements, 'state', s.state,
		'created', s.created, 'confirmed', s.confirmed)
		ORDER BY s.id), '[]'))
	FROM subscriptions s
$$;

-- The outbox for `robot reports`: counts by state, and the rows not sent
-- (pending, failed) and the newest sent, up to p_limit.
CREATE FUNCTION robot_outbox(p_limit int) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'counts', (SELECT coalesce(json_object_agg(state, n), '{}')
			FROM (SELECT state, count(*) n FROM outbox
			GROUP BY state) c),
		'reports', (SELECT count(*) FROM reports),
		'rows', (SELECT coalesce(json_agg(x ORDER BY
			x.state = 'sent', x.id DESC), '[]') FROM (
			SELECT o.id, o.report, o.channel, o.recipient,
				o.state, o.attempts, o.next_try,
				o.last_error, o.created, o.sent,
				coalesce(o.subject, r.subject) AS subject
			FROM outbox o LEFT JOIN reports r ON r.id = o.report
			ORDER BY o.state = 'sent', o.id DESC
			LIMIT p_limit) x))
$$;

-- The token of the reply address of thread p_report's mail to p_email:
-- rREPORT.HASH, HASH the first 20 hex digits of the sha256 of the
-- secret 'reply', the report and the address (a keyed hash, of which no
-- more is shown than those 80 bits: it cannot be extended).
CREATE FUNCTION robot_reply_token(p_report bigint, p_email text) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT 'r' || p_report || '.' || left(encode(sha256(convert_to(
		s.value || ':' || p_report || ':' || lower(p_email), 'UTF8')),
		'hex'), 20) FROM secrets s WHERE s.name = 'reply'
$$;

-- A mail taken as robot_mail_in() answers it.
CREATE FUNCTION robot_mail_in_json(m mail_in, p_replayed boolean)
	RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('id', m.id, 'message_id', m.message_id,
		'from', m.sender, 'report', m.report, 'state', m.state,
		'refused', m.refused, 'results', m.results,
		'replayed', p_replayed,
		'subject', (SELECT r.subject FROM reports r
			WHERE r.id = m.report))
$$;

-- A mail to robot (robot mail-in, POST /api/mail; parsed by robotd):
-- p is {message_id, from, token (its reply address's, or null),
-- automatic, commands: [{line, command: {action, ...}} | {line,
-- error}], box_false_alarms (robotd's setting)}.  The same Message-ID taken again: what it was, changing
-- nothing ("replayed").  A mail without commands, or an automatic one,
-- is kept and never answered (state ignored).  Else the commands are
-- refused, all of them, when the reply address is no report's, or is
-- not the one its report gave the sender; or applied, each to every
-- finding the report's thread told of, each command whole or not at
-- all (robot_regression_triage(), as the recipient: kind mail).  The
-- mail waits for its answer (state answering: robot_mail_in_answer()),
-- a refusal too, but for the fourth to one sender in an hour (or the
-- hundred and first to all).
CREATE FUNCTION robot_mail_in(p json) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	m mail_in;
	v_from text := lower(p->>'from');
	v_token text := p->>'token';
	v_report bigint;
	v_refused text;
	c json;
	f record;
	results jsonb := '[]';
	done jsonb;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('robot_mail_in'));
	SELECT * INTO m FROM mail_in WHERE message_id = p->>'message_id';
	IF FOUND THEN
		RETURN robot_mail_in_json(m, true);
	END IF;
	IF v_token ~ '^r[0-9]{1,18}\.[0-9a-f]{20}$' THEN
		v_report := substring(v_token FROM 2
			FOR position('.' IN v_token) - 2)::bigint;
	END IF;
	IF coalesce((p->>'automatic')::boolean, false) OR v_from IS NULL
		OR json_array_length(p->'commands') = 0 THEN
		INSERT INTO mail_in (message_id, sender, report, state, refused)
			VALUES (p->>'message_id', v_from, (SELECT id FROM
			reports WHERE id = v_report), 'ignored',
			CASE WHEN coalesce((p->>'automatic')::boolean, false)
			THEN 'an automatic mail (a bounce, an auto-reply)'
			WHEN v_from IS NULL THEN 'no From address'
			ELSE 'no #robot command' END)
			RETURNING * INTO m;
		RETURN robot_mail_in_json(m, false);
	END IF;
	IF v_token IS NULL THEN
		v_refused := 'it was not sent to a report''s reply address: '
			'reply to a report''s mail, to the address of its '
			'Reply-To';
	ELSIF NOT EXISTS (SELECT 1 FROM reports WHERE id = v_report
		AND thread IS NULL) THEN
		v_refused := format('its reply address names report %s, '
			'which robot has not sent', v_report);
	ELSIF robot_reply_token(v_report, v_from) <> v_token THEN
		v_refused := format('the reply address is not the one '
			'report %s gave %s: reply from the address the report '
			'was sent to', v_report, v_from);
	ELSIF NOT EXISTS (SELECT 1 FROM outbox o JOIN reports r
		ON r.id = o.report WHERE (r.id = v_report
		OR r.thread = v_report) AND o.channel = 'mail'
		AND o.recipient = v_from) THEN
		v_refused := format('report %s was not sent to %s', v_report,
			v_from);
	END IF;
	-- A refusal is answered to its sender at most 3 times an hour, 100
	-- times to all (a forged From must not make robot a mailer of
	-- refusals); past that it is kept unanswered.
	IF v_refused IS NOT NULL AND ((SELECT count(*) FROM mail_in
		WHERE sender = v_from AND refused IS NOT NULL
		AND state <> 'ignored'
		AND created > now() - interval '1 hour') >= 3
		OR (SELECT count(*) FROM mail_in WHERE refused IS NOT NULL
		AND state <> 'ignored'
		AND created > now() - interval '1 hour') >= 100) THEN
		INSERT INTO mail_in (message_id, sender, report, state, refused)
			VALUES (p->>'message_id', v_from, (SELECT id FROM
			reports WHERE id = v_report), 'ignored',
			v_refused || ' (not answered: too many refusals '
			'this hour)') RETURNING * INTO m;
		RETURN robot_mail_in_json(m, false);
	END IF;
	IF v_refused IS NULL THEN
		FOR c IN SELECT * FROM json_array_elements(p->'commands') LOOP
			IF c->>'error' IS NOT NULL THEN
				results := results || jsonb_build_array(
					jsonb_build_object('line', c->>'line',
					'error', c->>'error'));
				CONTINUE;
			END IF;
			done := '[]';
			BEGIN
				FOR f IN SELECT id FROM regressions
					WHERE report = v_report ORDER BY id LOOP
					done := done || jsonb_build_array(
						robot_regression_triage(f.id,
						c->'command', v_from, 'mail',
						'mail', coalesce((p->>
						'box_false_alarms')::int,
						2))::jsonb);
				END LOOP;
				results := results || jsonb_build_array(
					jsonb_build_object('line', c->>'line',
					'findings', done));
			EXCEPTION WHEN SQLSTATE 'RB400' OR SQLSTATE 'RB403' THEN
				results := results || jsonb_build_array(
					jsonb_build_object('line', c->>'line',
					'error', SQLERRM));
			END;
		END LOOP;
	END IF;
	INSERT INTO mail_in (message_id, sender, report, state, refused,
		results)
		VALUES (p->>'message_id', v_from, (SELECT id FROM reports
		WHERE id = v_report), 'answering', v_refused, results)
		RETURNING * INTO m;
	RETURN robot_mail_in_json(m, false);
END $$;

-- The answer to mail p_id (robot_mail_in()): a mail of its own to its
-- sender, in reply to it, once.  'answered', or 'answered already'.
CREATE FUNCTION robot_mail_in_answer(p_id bigint, p_subject text,
	p_text text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	m mail_in;
BEGIN
	UPDATE mail_in SET state = 'answered' WHERE id = p_id
		AND state = 'answering' RETURNING * INTO m;
	IF NOT FOUND THEN
		RETURN 'answered already';
	END IF;
	INSERT INTO outbox (channel, recipient, subject, message, in_reply_to)
		VALUES ('mail', m.sender, p_subject, p_text, m.message_id);
	PERFORM pg_notify('robot_jobs', ':outbox');
	RETURN 'answered';
END $$;

-- A report mail's one-time link, opened: p_token its rREPORT.HASH, the
-- recipient p_email (the link names both).  The link is checked as a
-- reply address is (robot_mail_in()) and used once; it opens a session
-- of 7 days (p_session_hash: the sha256 of the cookie robotd sets) that
-- may triage the report's findings as that recipient.  {report,
-- regression: the report's first finding}; RB403 for a link that does
-- not check out, RB409 for one used already.
CREATE FUNCTION robot_triage_link_open(p_token text, p_email text,
	p_session_hash text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	v_report bigint;
	v_email text := lower(p_email);
BEGIN
	IF p_token ~ '^r[0-9]{1,18}\.[0-9a-f]{20}$' THEN
		v_report := substring(p_token FROM 2
			FOR position('.' IN p_token) - 2)::bigint;
	END IF;
	IF v_report IS NULL OR NOT EXISTS (SELECT 1 FROM reports
		WHERE id = v_report AND thread IS NULL)
		OR robot_reply_token(v_report, v_email) <> p_token
		OR NOT EXISTS (SELECT 1 FROM outbox o JOIN reports r
			ON r.id = o.report WHERE (r.id = v_report
			OR r.thread = v_report) AND o.channel = 'mail'
			AND o.recipient = v_email) THEN
		RAISE EXCEPTION 'this link does not check out: open it whole, as the report''s mail has it'
			USING ERRCODE = 'RB403';
	END IF;
	INSERT INTO triage_links (token, email) VALUES (p_token, v_email)
		ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'this link was used already: it opens the page once; reply to the mail with #robot commands instead'
			USING ERRCODE = 'RB409';
	END IF;
	DELETE FROM triage_sessions WHERE expires < now();
	INSERT INTO triage_sessions (id_hash, report, email, expires)
		VALUES (p_session_hash, v_report, v_email,
		now() + interval '7 days');
	RETURN json_build_object('report', v_report, 'regression',
		(SELECT min(id) FROM regressions WHERE report = v_report));
END $$;

-- A link's session (the sha256 of its cookie): {report, email}, or NULL
-- when there is none or it expired.
CREATE FUNCTION robot_triage_session(p_hash text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('report', s.report, 'email', s.email)
	FROM triage_sessions s WHERE s.id_hash = p_hash AND s.expires > now()
$$;
