-- 039_mutes.sql: muting (issue 58).  A series, a metric pattern (a glob)
-- or a box is muted with a reason until it expires: a finding that
-- matches an active mute when it is found, or when the mute is made,
-- is still measured and recorded, shown as muted (muted_by), and not
-- mailed: no report, no news in its thread.  Ended before it expires
-- (robot unmute), its findings are no longer muted; expired, they stay
-- so, and a lab note says it expired (noted).
CREATE TABLE mutes (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('series', 'metric', 'box')),
	pattern text NOT NULL,  -- a series, a metric glob, a box
	reason text NOT NULL,
	expires timestamptz NOT NULL,
	by_name text NOT NULL,
	how text NOT NULL CHECK (how IN ('page', 'mail', 'api', 'cli')),
	ended timestamptz,      -- unmuted before it expired
	noted timestamptz,      -- its expiry told in a lab note
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mutes_active ON mutes (expires) WHERE ended IS NULL;
ALTER TABLE regressions ADD COLUMN muted_by bigint
	REFERENCES mutes ON DELETE SET NULL;
ALTER TABLE lab_notes DROP CONSTRAINT lab_notes_kind_check;
ALTER TABLE lab_notes ADD CONSTRAINT lab_notes_kind_check
	CHECK (kind IN ('noisy', 'suspect', 'power-cycle', 'mute'));
