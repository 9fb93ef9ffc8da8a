-- 003_analysis.sql: robotd decides by itself (DESIGN.md section 7).
--
-- A pair is one series at two commits, a base and a head: made by a
-- submission of several commits (each compared with the first) and by the
-- tree watcher.  When every run of both sides has ended, the pair is
-- ready; one robotd claims it (FOR UPDATE SKIP LOCKED, with a deadline,
-- so that a robotd killed meanwhile leaves it to another), compares the
-- values stored per series, commit and metric, and either asks for more
-- runs on both sides (an inconclusive KPI) or makes the pair final and
-- records its regressions and improvements (sql/functions/analysis.sql).

-- The values of each metric of each series at each commit, one per ok
-- run, appended when its result is stored: analysis and history read
-- these, never the documents again.
CREATE TABLE metric_values (
	series text NOT NULL,
	commit text NOT NULL,
	metric text NOT NULL,
	vals float8[] NOT NULL,
	n int NOT NULL,
	mean float8 NOT NULL,
	stddev float8 NOT NULL,          -- population, as LKP
	min float8 NOT NULL,
	max float8 NOT NULL,
	PRIMARY KEY (series, commit, metric)
);
-- A metric's history over commits.
CREATE INDEX metric_values_history ON metric_values (series, metric);

-- Runs queued by analysis name their pair (a submission's own runs do
-- not).
ALTER TABLE jobs ADD COLUMN pair bigint;
CREATE TABLE pairs (
	id bigserial PRIMARY KEY,
	series text NOT NULL,
	base text NOT NULL,
	head text NOT NULL,
	tree text,
	branch text,
	max_runs int,                    -- NULL: robotd's max_runs
	state text NOT NULL DEFAULT 'waiting'
		CHECK (state IN ('waiting', 'ready', 'analysing', 'final')),
	claimed_until timestamptz,
	ready_at timestamptz,            -- when its last run ended
	analyses int NOT NULL DEFAULT 0,  -- claims so far (the claim's token)
	verdict text,                    -- regression, improvement, ...
	kpi text,                        -- the KPI that decided
	runs int,                        -- ok runs per side when last compared
	comparison json,                 -- DESIGN.md section 6's JSON
	table_text text,                 -- LKP's table of the changes
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now(),
	UNIQUE (series, base, head)
);
CREATE INDEX pairs_work ON pairs (id) WHERE state IN ('ready', 'analysing');
CREATE INDEX pairs_head ON pairs (series, head);
CREATE INDEX pairs_base ON pairs (series, base);

-- Regressions (and improvements) found: one record per finding, updated
-- by later heads of the same branch that still show it, fixed by one that
-- does not.
CREATE TABLE regressions (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('regression', 'improvement')),
	tree text,
	branch text,
	commit text NOT NULL,            -- the head where it was found
	base text NOT NULL,
	series text NOT NULL,
	kpi text NOT NULL,
	change_pct float8,
	p_value float8,
	runs int NOT NULL,               -- ok runs per side
	pair bigint NOT NULL REFERENCES pairs,
	state text NOT NULL DEFAULT 'new'
		CHECK (state IN ('new', 'reported', 'bisecting', 'bisected',
			'fixed', 'invalid')),
	last_head text NOT NULL,         -- the newest head that shows it
	fixed_by text,
	created timestamptz NOT NULL DEFAULT now(),
	updated timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX regressions_state ON regressions (state, id);
CREATE UNIQUE INDEX regressions_finding ON regressions (series, kpi, base,
	commit, kind);
