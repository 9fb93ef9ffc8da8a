-- 009_bisect.sql: bisection (DESIGN.md section 7, docs/bisect.md).
--
-- A bisection walks a tree's history from a good and a bad commit of one
-- series to the first bad commit.  Its steps are stored here; robotd
-- (robot/daemon/bisect.c) drives it: it claims a bisection whose step
-- has its answer (FOR UPDATE SKIP LOCKED, with a deadline and a claim
-- count, so that two robotd never drive one twice and a robotd killed
-- meanwhile leaves it to another), classifies the step, asks git for
-- the next midpoint and stores the next step.
--
-- A step is one or two pairs (003_analysis.sql), analysed like any
-- other, more runs and all:
--
--   ends     (good, bad): do the ends differ on the KPI?
--   mid      (good, M) and (M, bad): is M like good, like bad, or
--            neither (skipped, as git bisect skip)?
--   confirm  (parent, first bad): does the first bad commit differ from
--            its parent?  (a final verdict, not a guess)
--
-- Pairs made for a bisection record no regressions of their own, and do
-- not hold back their head's report.  Runs already in the database are
-- used as they are: a midpoint with runs gets none queued.

-- Bisection on by default, a switch per tree.
ALTER TABLE trees ADD COLUMN bisect boolean NOT NULL DEFAULT true;

-- The pairs a bisection made, and the KPIs' verdicts of a pair's last
-- analysis ([{kpi, verdict, change_pct, p_value}]).
ALTER TABLE pairs ADD COLUMN bisection bigint;
ALTER TABLE pairs ADD COLUMN kpis json;
-- The first bad commit a bisection found.
ALTER TABLE regressions ADD COLUMN bisected_to text;
CREATE TABLE bisections (
	id bigserial PRIMARY KEY,
	regression bigint REFERENCES regressions ON DELETE SET NULL,
	tree text NOT NULL,
	series text NOT NULL,
	kpi text,                        -- NULL until the ends name it
	good text NOT NULL,              -- the ends as given
	bad text NOT NULL,
	goods text[] NOT NULL,           -- known good: good, like-good
	bad_now text NOT NULL,           -- the oldest known bad
	skipped text[] NOT NULL DEFAULT '{}',
	runs int NOT NULL,               -- per commit, at first
	max_runs int NOT NULL,           -- per commit, at most
	state text NOT NULL DEFAULT 'running'
		CHECK (state IN ('running', 'bisected', 'failed',
			'cancelled')),
	first_bad text,
	reason text,                     -- why it ended so
	step bigint,                     -- the step in hand
	claims int NOT NULL DEFAULT 0,   -- claims so far (the claim's token)
	claimed_until timestamptz,
	started_by text NOT NULL,
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now(),
	finished timestamptz
);
CREATE UNIQUE INDEX bisections_running ON bisections (series, good, bad)
	WHERE state = 'running';
CREATE INDEX bisections_work ON bisections (id) WHERE state = 'running';
CREATE INDEX bisections_regression ON bisections (regression);
CREATE TABLE bisect_steps (
	id bigserial PRIMARY KEY,
	bisection bigint NOT NULL REFERENCES bisections ON DELETE CASCADE,
	n int NOT NULL,                  -- 0: the ends
	kind text NOT NULL CHECK (kind IN ('ends', 'mid', 'confirm')),
	commit text NOT NULL,            -- the midpoint, or the bad end
	against text NOT NULL,           -- good end, or the parent
	pair_good bigint REFERENCES pairs, -- (good or parent, commit)
	pair_bad bigint REFERENCES pairs,  -- (commit, bad): mid only
	candidates int,                  -- commits left to look at
	verdict text CHECK (verdict IN ('differ', 'same', 'good', 'bad',
		'skip', 'confirmed', 'unconfirmed')),
	reason text,
	created timestamptz NOT NULL DEFAULT now(),
	decided timestamptz,
	UNIQUE (bisection, n)
);
