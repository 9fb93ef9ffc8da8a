-- 038_mail_in.sql: replies by mail (issue 58).  Each report's mail has a
-- Reply-To of its own for each recipient: robot+rREPORT.HASH@domain,
-- HASH a keyed hash of the thread's report and the recipient's address
-- (robot_reply_token(), keyed by secrets 'reply', made here once).  A
-- reply whose address checks out may carry triage commands; each mail
-- taken is kept by its Message-ID (mail_in), so that the same mail
-- taken again changes nothing and is answered once.  The answer is a
-- mail of its own in the outbox, in reply to the mail it answers
-- (outbox.in_reply_to).
CREATE TABLE secrets (
	name text PRIMARY KEY,
	value text NOT NULL
);
INSERT INTO secrets (name, value) VALUES ('reply',
	replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
ALTER TABLE outbox ADD COLUMN in_reply_to text;
CREATE TABLE mail_in (
	id bigserial PRIMARY KEY,
	message_id text NOT NULL UNIQUE,
	sender text,                     -- its From address, lowercase
	report bigint REFERENCES reports ON DELETE SET NULL,
	state text NOT NULL CHECK (state IN ('answering', 'answered',
		'ignored')),
	refused text,                    -- why nothing was done, or NULL
	results jsonb NOT NULL DEFAULT '[]',
	created timestamptz NOT NULL DEFAULT now()
);
-- The report mail's one-time link to its findings' page, per recipient
-- (robot_triage_link_open()): used once (triage_links), it opens a
-- session of 7 days that may triage that report's findings as that
-- recipient (a cookie, kept as its sha256).
CREATE TABLE triage_links (
	token text PRIMARY KEY,          -- the link's: rREPORT.HASH
	email text NOT NULL,
	used timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE triage_sessions (
	id_hash text PRIMARY KEY,        -- sha256 of the cookie's value
	report bigint NOT NULL REFERENCES reports ON DELETE CASCADE,
	email text NOT NULL,
	expires timestamptz NOT NULL
);
