-- 031_enroll.sql: boxes that join by a one-time code, and credentials
-- that can be taken back (issue 56).  `robotd box enroll NAME` makes a
-- code (only its hash is kept); `robot-box enroll URL CODE` trades it,
-- once and before it expires, for the box's own token.  A revoked token
-- is kept (its row says when and who), so that its holder is told it
-- was revoked instead of "unknown token"; a revoked box's leases end as
-- 'revoked' and their runs go back to the queue.
CREATE TABLE enrollments (
	id bigserial PRIMARY KEY,
	name text NOT NULL,              -- the box's name
	tbox_group text NOT NULL,
	hash bytea NOT NULL UNIQUE,      -- sha256 of the code; never the code
	created timestamptz NOT NULL DEFAULT now(),
	expires timestamptz NOT NULL,
	used timestamptz,                -- traded: it cannot be again
	token bigint                     -- the token it was traded for
);
ALTER TABLE tokens ADD COLUMN revoked timestamptz;
ALTER TABLE tokens ADD COLUMN revoked_by text;
ALTER TABLE boxes ADD COLUMN revoked timestamptz;
ALTER TABLE leases DROP CONSTRAINT leases_state_check,
	ADD CONSTRAINT leases_state_check
	CHECK (state IN ('active', 'done', 'expired', 'released', 'revoked'));
