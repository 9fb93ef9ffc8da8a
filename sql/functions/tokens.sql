-- tokens.sql: credentials: tokens looked up, listed and revoked, and a
-- box's one-time enrollment code made and traded for its token.  Only
-- hashes are stored (sha256); a token or code is never kept.

-- A token's kind and name, and when it was revoked (NULL: it works); no
-- row for a token the database does not know.
CREATE FUNCTION robot_token(p_token text)
RETURNS TABLE (kind text, name text, revoked text) LANGUAGE sql STABLE AS $$
	SELECT kind, name, to_char(revoked AT TIME ZONE 'UTC',
		'YYYY-MM-DD HH24:MI "UTC"')
	FROM tokens WHERE hash = sha256(convert_to(p_token, 'UTF8'))
$$;

-- Every token (never the token itself): {tokens: [{id, kind, name,
-- created, revoked, revoked_by, enrolled}]}, the newest first.
CREATE FUNCTION robot_tokens() RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object('tokens', coalesce(json_agg(json_build_object('id', t.id,
		'kind', t.kind, 'name', t.name, 'created', t.created,
		'revoked', t.revoked, 'revoked_by', t.revoked_by,
		'enrolled', EXISTS (SELECT 1 FROM enrollments e
			WHERE e.token = t.id)) ORDER BY t.id DESC), '[]'))
	FROM tokens t
$$;

-- Revokes token p_id (p_by: who): {id, kind, name, revoked}.  A box's
-- token revoked this way stops its box as robot_box_revoke() does when
-- it was the box's last.  Every robotd forgets what it cached of tokens
-- (NOTIFY ':tokens').
CREATE FUNCTION robot_token_revoke(p_id bigint, p_by text) RETURNS json
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	t tokens;
BEGIN
	SELECT * INTO t FROM tokens WHERE id = p_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no token %', p_id USING ERRCODE = 'RB404';
	END IF;
	IF t.revoked IS NULL THEN
		UPDATE tokens SET revoked = now(), revoked_by = p_by
			WHERE id = p_id RETURNING * INTO t;
	END IF;
	IF t.kind = 'box' AND NOT EXISTS (SELECT 1 FROM tokens
		WHERE kind = 'box' AND name = t.name AND revoked IS NULL) THEN
		PERFORM robot_box_revoke(t.name, p_by);
	END IF;
	PERFORM pg_notify('robot_jobs', ':tokens');
	RETURN json_build_object('id', t.id, 'kind', t.kind, 'name', t.name,
		'revoked', t.revoked);
END $$;

-- A box's enrollment code: its hash kept for p_seconds, for box p_name
-- of group p_group.  Returns when it expires.
CREATE FUNCTION robot_enroll_code(p_name text, p_group text, p_code text,
	p_seconds int) RETURNS timestamptz LANGUAGE sql AS $$
	INSERT INTO enrollments (name, tbox_group, hash, expires)
	VALUES (p_name, p_group, sha256(convert_to(p_code, 'UTF8')),
		now() + make_interval(secs => p_seconds))
	RETURNING expires
$$;

-- A box trades its enrollment code for its own token (p_token, made by
-- robotd): once, before the code expires.  A box revoked before is its
-- lab's again.  {name, tbox_group}; RB401 says why not, and what to do.
CREATE FUNCTION robot_enroll(p_code text, p_token text) RETURNS json
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	e enrollments;
	t bigint;
BEGIN
	SELECT * INTO e FROM enrollments
		WHERE hash = sha256(convert_to(p_code, 'UTF8')) FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'unknown enrollment code: ask robotd''s operator for one (robotd box enroll NAME, on its host)'
			USING ERRCODE = 'RB401';
	END IF;
	IF e.used IS NOT NULL THEN
		RAISE EXCEPTION 'this enrollment code was used at %: a code is good once; ask robotd''s operator for a new one (robotd box enroll %)',
			to_char(e.used AT TIME ZONE 'UTC',
				'YYYY-MM-DD HH24:MI "UTC"'), e.name
			USING ERRCODE = 'RB401';
	END IF;
	IF e.expires < now() THEN
		RAISE EXCEPTION 'this enrollment code expired at %: ask robotd''s operator for a new one (robotd box enroll %)',
			to_char(e.expires AT TIME ZONE 'UTC',
				'YYYY-MM-DD HH24:MI "UTC"'), e.name
			USING ERRCODE = 'RB401';
	END IF;
	INSERT INTO tokens (kind, name, hash, tbox_group)
		VALUES ('box', e.name, sha256(convert_to(p_token, 'UTF8')),
			e.tbox_group)
		RETURNING id INTO t;
	UPDATE enrollments SET used = now(), token = t WHERE id = e.id;
	UPDATE boxes SET revoked = NULL WHERE name = e.name;
	RETURN json_build_object('name', e.name, 'tbox_group', e.tbox_group);
END $$;
