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
	IF NEW.report IS NULL THEN
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
		INSERT INTO regression_events (regression, kind, head)
			VALUES (NEW.id, 'still', NEW.last_head);
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

-- A commit as a report shows it: sha, subject, author, date.
CREATE FUNCTION robot_commit_info(p_tree text, p_sha text) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('sha', p_sha, 'subject', c.subject,
		'author', c.author, 'date', c.date)
	FROM (SELECT 1) one LEFT JOIN tree_commits c
		ON c.tree = p_tree AND c.sha = p_sha
$$;

-- What a report says of one pair: its series, table and comparison, one
-- of its atomic jobs, and the facts of a box that ran it.
CREATE FUNCTION robot_pair_info(p_pair bigint) RETURNS json
LANGUAGE sql STABLE AS $$
	SELECT json_build_object('pair', p.id, 'series', p.series,
		'base', p.base, 'head', p.head, 'verdict', p.verdict,
		'runs', p.runs, 'table', p.table_text,
		'comparison', p.comparison,
		'job', j.job, 'tbox_group', j.tbox_group,
		'submission', j.submission,
		'facts', (SELECT b.facts FROM jobs x JOIN boxes b
			ON b.name = x.box WHERE x.series = p.series
			AND x.commit = p.head AND x.state = 'done'
			ORDER BY x.id DESC LIMIT 1))
	FROM pairs p LEFT JOIN LATERAL (SELECT * FROM jobs x
		WHERE x.series = p.series AND x.commit = p.head
		ORDER BY x.id LIMIT 1) j ON true
	WHERE p.id = p_pair
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

-- The next commit whose final regressions are due for their report,
-- claimed for p_seconds: every such regression of it (new, never told),
-- once none of the commit's pairs is still waiting (a bisection's pairs,
-- whose head is the bad end, do not count) or the oldest has waited
-- p_window seconds; with all a report says and its possible recipients.
-- NULL when none is due.
CREATE FUNCTION robot_report_next(p_window int, p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	g record;
	ids bigint[];
BEGIN
	SELECT r.tree, r.commit INTO g FROM regressions r
		WHERE r.report IS NULL AND r.state = 'new'
		AND (r.report_claim IS NULL OR r.report_claim < now())
		GROUP BY r.tree, r.commit
		HAVING min(r.created) <= now() - make_interval(secs =>
				p_window)
			OR NOT EXISTS (SELECT 1 FROM pairs p
				WHERE p.head = r.commit AND p.state <> 'final'
				AND p.bisection IS NULL)
		ORDER BY min(r.created) LIMIT 1;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT array_agg(id ORDER BY id) INTO ids FROM (SELECT id
		FROM regressions WHERE tree IS NOT DISTINCT FROM g.tree
		AND commit = g.commit AND report IS NULL AND state = 'new'
		AND (report_claim IS NULL OR report_claim < now())
		FOR UPDATE SKIP LOCKED) x;
	IF ids IS NULL THEN
		RETURN NULL;
	END IF;
	UPDATE regressions SET report_claim = now() + make_interval(secs =>
		p_seconds) WHERE id = ANY (ids);
	RETURN json_build_object('kind', 'report', 'tree', g.tree,
		'commit', robot_commit_info(g.tree, g.commit),
		'regressions', ids, 'events', '[]'::json,
		'tree_info', (SELECT json_build_object('url', t.url,
			'mail_author', t.mail_author) FROM trees t
			WHERE t.name = g.tree),
		'thread', (SELECT json_build_object('id', x.id, 'message_id',
			x.message_id, 'subject', x.subject) FROM reports x
			WHERE x.kind = 'report'
			AND x.tree IS NOT DISTINCT FROM g.tree
			AND x.commit = g.commit ORDER BY x.id LIMIT 1),
		'findings', (SELECT json_agg(json_build_object('id', r.id,
			'kind', r.kind, 'branch', r.branch, 'base', r.base,
			'series', r.series, 'kpi', r.kpi,
			'change_pct', r.change_pct, 'p_value', r.p_value,
			'runs', r.runs, 'pair', r.pair)
			ORDER BY r.kind = 'improvement', abs(r.change_pct) DESC
			NULLS LAST, r.id) FROM regressions r
			WHERE r.id = ANY (ids)),
		'pairs', (SELECT json_agg(robot_pair_info(x.pair) ORDER BY
			x.pair) FROM (SELECT DISTINCT pair FROM regressions
			WHERE id = ANY (ids)) x),
		'bases', (SELECT json_agg(robot_commit_info(g.tree, x.base))
			FROM (SELECT DISTINCT base FROM regressions
			WHERE id = ANY (ids)) x),
		'subscribers', robot_subscribers());
END $$;

-- The next thread with news (events of its regressions not yet told),
-- claimed for p_seconds: the thread's first report, the events with
-- their regressions and heads, and the thread's mail recipients.
CREATE FUNCTION robot_followup_next(p_seconds int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	th reports;
	ids bigint[];
BEGIN
	SELECT x.* INTO th FROM reports x WHERE x.id = (SELECT r.report
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression WHERE e.report IS NULL
		AND (e.claim IS NULL OR e.claim < now())
		ORDER BY e.id LIMIT 1);
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT array_agg(id ORDER BY id) INTO ids FROM (SELECT e.id
		FROM regression_events e JOIN regressions r
		ON r.id = e.regression WHERE r.report = th.id
		AND e.report IS NULL AND (e.claim IS NULL OR e.claim < now())
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
			'change_pct', r.change_pct, 'p_value', r.p_value,
			'runs', r.runs,
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

-- A report rendered by robotd (p: {kind, tree, branch, commit, base,
-- thread, subject, body, doc, regressions: [ids], events: [ids], outbox:
-- [{channel, recipient}]}), stored with its outbox under a Message-ID
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
	INSERT INTO reports (id, kind, tree, branch, commit, base, thread,
		message_id, subject, body, doc)
	VALUES (rid, p->>'kind', p->>'tree', p->>'branch', p->>'commit',
		p->>'base', (p->>'thread')::bigint, mid, p->>'subject',
		p->>'body', (p->'doc')::jsonb ||
		jsonb_build_object('message_id', mid, 'report', rid));
	-- 'reported' once told to someone: a report with no recipient
	-- leaves its regressions new.
	UPDATE regressions SET report = rid, report_claim = NULL,
		state = CASE WHEN state = 'new' AND
			json_array_length(p->'outbox') > 0 THEN 'reported'
			ELSE state END,
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
		'body', coalesce(o.message, r.body), 'doc', r.doc,
		'message_id', r.message_id,
		'thread', (SELECT t.message_id FROM reports t
			WHERE t.id = r.thread),
		'created', coalesce(r.created, o.created),
		'token', (SELECT a.token FROM mail_addresses a
			WHERE a.email = o.recipient)) ORDER BY o.id)
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
	p_subject text, p_message text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	sid bigint;
	em text := lower(p->>'email');
BEGIN
	IF (SELECT count(*) FROM subscriptions WHERE email = em
		AND state = 'unconfirmed'
		AND created > now() - interval '1 hour') >= 3 THEN
		RAISE EXCEPTION 'three confirmations were sent to % in the last hour: follow the link in one of them',
			em USING ERRCODE = 'RB429';
	END IF;
	INSERT INTO mail_addresses (email, token)
		VALUES (em, robot_random_token()) ON CONFLICT DO NOTHING;
	INSERT INTO subscriptions (email, tree, branch, testcase, metric,
		min_change, regressions, improvements, confirm_hash)
	VALUES (em, p->>'tree', p->>'branch', p->>'testcase', p->>'metric',
		coalesce((p->>'min_change')::float8, 0),
		coalesce((p->>'regressions')::boolean, true),
		coalesce((p->>'improvements')::boolean, false),
		p_confirm_hash)
	RETURNING id INTO sid;
	INSERT INTO outbox (channel, recipient, subject, message)
		VALUES ('mail', em, p_subject, p_message);
	PERFORM pg_notify('robot_jobs', ':outbox');
	RETURN json_build_object('id', sid, 'email', em,
		'state', 'unconfirmed');
END $$;

-- The one-time link of a confirmation: the subscription confirmed (and
-- its address back in, if it had opted out).  NULL for a link unknown,
-- used, or older than a week.
CREATE FUNCTION robot_subscription_confirm(p_hash text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	s subscriptions;
BEGIN
	UPDATE subscriptions SET state = 'confirmed', confirm_hash = NULL,
		confirmed = now(), updated = now()
		WHERE confirm_hash = p_hash AND state = 'unconfirmed'
		AND created > now() - interval '7 days'
		RETURNING * INTO s;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	UPDATE mail_addresses SET opted_out = NULL WHERE email = s.email;
	RETURN json_build_object('id', s.id, 'email', s.email,
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
