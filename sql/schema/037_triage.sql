-- 037_triage.sql: what maintainers say of a finding (issue 58): its
-- triage state, beside the report's own (state: new, reported,
-- bisecting, bisected, fixed, invalid, which robotd keeps as it told of
-- it).  A finding is untriaged until a person acts on it; robotd sets
-- recovered when a later head measures back.  Each change is an event
-- (triage_events), with who made it and how: by the page, a mail, the
-- API or the CLI.  A token of kind triage may triage any finding.
ALTER TABLE regressions ADD COLUMN triage text NOT NULL DEFAULT 'untriaged'
	CHECK (triage IN ('untriaged', 'acknowledged', 'invalid', 'wontfix',
		'duplicate', 'fixed', 'recovered'));
ALTER TABLE regressions ADD COLUMN triage_reason text
	CHECK (triage_reason IN ('box', 'test', 'noise', 'other'));
ALTER TABLE regressions ADD COLUMN triage_text text;
ALTER TABLE regressions ADD COLUMN assignee text;
ALTER TABLE regressions ADD COLUMN duplicate_of bigint
	REFERENCES regressions ON DELETE SET NULL;
ALTER TABLE regressions ADD COLUMN fix_claimed text;   -- fixed-by's commit
ALTER TABLE regressions ADD COLUMN fix_confirmed timestamptz;
ALTER TABLE regressions ADD COLUMN bug_url text;
ALTER TABLE regressions ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
-- the report's state a person's invalid closed it from (untriage
-- opens it to that again)
ALTER TABLE regressions ADD COLUMN triage_closed_from text;
-- What people said and robotd said back, before this: a finding a
-- person marked invalid or fixed is triaged so, one robotd found fixed
-- recovered.
UPDATE regressions SET triage = CASE state WHEN 'invalid' THEN 'invalid'
	ELSE 'recovered' END WHERE state IN ('invalid', 'fixed');
CREATE INDEX regressions_triage ON regressions (triage, id);
CREATE TABLE triage_events (
	id bigserial PRIMARY KEY,
	regression bigint NOT NULL REFERENCES regressions ON DELETE CASCADE,
	action text NOT NULL,            -- ack, invalid, ..., recovered
	detail text,                     -- its argument, as applied
	by_name text NOT NULL,           -- a token's name, an address, robotd
	how text NOT NULL CHECK (how IN ('page', 'mail', 'api', 'cli',
		'robotd')),
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX triage_events_regression ON triage_events (regression, id);
-- What the answers teach: a finding marked invalid for its box counts
-- against each box that ran its runs (robot_regression_triage()): the
-- lab page shows each box's count of 30 days, and that many makes the
-- box suspect (the setting box_false_alarms).
CREATE TABLE box_false_alarms (
	box text NOT NULL,
	regression bigint NOT NULL REFERENCES regressions ON DELETE CASCADE,
	created timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (box, regression)
);
ALTER TABLE tokens DROP CONSTRAINT tokens_kind_check;
ALTER TABLE tokens ADD CONSTRAINT tokens_kind_check
	CHECK (kind IN ('submit', 'box', 'admin', 'triage'));
