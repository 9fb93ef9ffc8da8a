-- 027_noise.sql: a KPI's noise from its series' history, and one
-- bisection for several series (issue 63; docs/statistics.md "Noise
-- from history", docs/bisect.md).
--
-- Each final pair measured in rounds keeps, for each KPI it did not find
-- changed, the variance of a round's difference its rounds showed (of
-- the logs) and its degrees of freedom: robotd fits a prior of the
-- series' newest such pairs (robot/analysis/noise.c) and weighs a pair's
-- own noise with it.  The history restarts where the KPI changed (a
-- regression or improvement recorded for the series) and, for the rounds
-- of a box, where the box turned suspect or was reset (noise_since).
CREATE TABLE noise (
	pair bigint NOT NULL REFERENCES pairs ON DELETE CASCADE,
	metric text NOT NULL,
	series text NOT NULL,
	var float8 NOT NULL CHECK (var > 0 AND var < 'Infinity'),
	df float8 NOT NULL CHECK (df > 0 AND df < 'Infinity'),
	boxes text[] NOT NULL,           -- the boxes its rounds ran on
	created timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (pair, metric)
);
CREATE INDEX noise_history ON noise (series, metric, created);
ALTER TABLE boxes ADD COLUMN noise_since timestamptz;
-- A bisection that follows another of the same tree and range (its
-- lead, on another series): it waits for the lead's first bad commit
-- and only confirms it against its parent on its own series.
ALTER TABLE bisections ADD COLUMN lead bigint REFERENCES bisections;
CREATE INDEX bisections_lead ON bisections (lead) WHERE lead IS NOT NULL;
