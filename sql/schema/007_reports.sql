-- 007_reports.sql: reports (DESIGN.md section 8).
--
-- The final regressions of one commit of a tree become one report, once
-- the commit's analyses are final or a grouping window has passed
-- (robot_report_next()).  robotd renders it (reporters/) and stores it
-- with one outbox row per recipient and channel (robot_report_store()).
-- The outbox is delivered by whichever robotd claims a row first
-- (robot_outbox_next(), FOR UPDATE SKIP LOCKED, with a deadline): a row
-- is sent once in normal operation, and a robotd killed between the
-- server's answer and robot_outbox_done() leaves it to be sent again,
-- with the same Message-ID.
--
-- Later news on a reported regression (still there at a newer head,
-- fixed, bisected) is an event (a trigger on regressions) that becomes a
-- follow-up in the report's thread (robot_followup_next()).
--
-- Subscriptions are double opt-in: nothing but the confirmation is sent
-- to an address before it is confirmed.  Every address that gets mail
-- has a token for its one-click unsubscribe link, which stops all mail
-- to it.

-- The commit's author may be a recipient: a switch per tree.
ALTER TABLE trees ADD COLUMN mail_author boolean NOT NULL DEFAULT false;
CREATE TABLE mail_addresses (
	email text PRIMARY KEY,          -- as checked by robotd, lowercase
	token text NOT NULL UNIQUE,      -- of its unsubscribe link
	opted_out timestamptz,           -- unsubscribed: no mail at all
	created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE subscriptions (
	id bigserial PRIMARY KEY,
	email text NOT NULL REFERENCES mail_addresses,
	tree text,                       -- globs; NULL matches anything
	branch text,
	testcase text,
	metric text,
	min_change float8 NOT NULL DEFAULT 0,  -- |%change| at least
	regressions boolean NOT NULL DEFAULT true,
	improvements boolean NOT NULL DEFAULT false,
	state text NOT NULL DEFAULT 'unconfirmed'
		CHECK (state IN ('unconfirmed', 'confirmed', 'unsubscribed')),
	confirm_hash text UNIQUE,        -- sha256 of the one-time link's token
	created timestamptz NOT NULL DEFAULT now(),
	confirmed timestamptz,
	updated timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_email ON subscriptions (email);
CREATE TABLE reports (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('report', 'followup')),
	tree text,
	branch text,
	commit text NOT NULL,            -- the head it is about
	base text,
	thread bigint REFERENCES reports, -- a follow-up's first report
	message_id text NOT NULL UNIQUE,
	subject text NOT NULL,
	body text NOT NULL,              -- the mail's text
	doc jsonb NOT NULL,              -- the webhook's JSON (docs/reports.md)
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reports_commit ON reports (commit);

-- The first report that told of a regression (its thread), and a claim
-- while one robotd renders it.
ALTER TABLE regressions ADD COLUMN report bigint REFERENCES reports;
ALTER TABLE regressions ADD COLUMN report_claim timestamptz;
CREATE INDEX regressions_untold ON regressions (commit)
	WHERE report IS NULL AND state = 'new';
-- Whether a commit's analyses are all final.
CREATE INDEX pairs_open_head ON pairs (head) WHERE state <> 'final';
CREATE TABLE regression_events (
	id bigserial PRIMARY KEY,
	regression bigint NOT NULL REFERENCES regressions ON DELETE CASCADE,
	kind text NOT NULL CHECK (kind IN ('still', 'fixed', 'bisected')),
	head text,                       -- still there at, fixed by, or the
					 -- first bad commit
	report bigint REFERENCES reports, -- the follow-up that told of it
	claim timestamptz,
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX regression_events_untold ON regression_events (regression)
	WHERE report IS NULL;
CREATE TABLE outbox (
	id bigserial PRIMARY KEY,
	report bigint REFERENCES reports ON DELETE CASCADE,
	channel text NOT NULL CHECK (channel IN ('mail', 'webhook', 'chat')),
	recipient text NOT NULL,         -- an address, or a URL
	subject text,                    -- a mail of its own (a
	message text,                    -- confirmation), else the report's
	state text NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'sent', 'failed', 'cancelled')),
	attempts int NOT NULL DEFAULT 0,
	next_try timestamptz NOT NULL DEFAULT now(),
	claimed_until timestamptz,
	last_error text,
	created timestamptz NOT NULL DEFAULT now(),
	sent timestamptz,
	UNIQUE (report, channel, recipient)
);
CREATE INDEX outbox_due ON outbox (next_try) WHERE state = 'pending';
CREATE INDEX outbox_report ON outbox (report);
