-- 015_blame.sql: a regression names the commit at fault once it is
-- known (culprit: the head of a one-commit range, or the first bad
-- commit a bisection found), and the runs of each side of its pair.
-- A report is about one commit (the culprit) or, when none is known,
-- a range (base..head].
ALTER TABLE regressions ADD COLUMN culprit text;
ALTER TABLE regressions ADD COLUMN base_runs int;
ALTER TABLE regressions ADD COLUMN head_runs int;
UPDATE regressions SET culprit = bisected_to WHERE bisected_to IS NOT NULL;
UPDATE regressions r SET base_runs = (p.comparison->'base_runs'->>'ok')::int,
	head_runs = (p.comparison->'head_runs'->>'ok')::int
	FROM pairs p WHERE p.id = r.pair
	AND json_typeof(p.comparison->'base_runs') = 'object';
ALTER TABLE reports ADD COLUMN range text;  -- 'BASE..HEAD', a range's
CREATE INDEX bisections_ends ON bisections (series, good, bad);
-- What a bisection looks for: the commit that brought a regression, or
-- an improvement (the verdict its ends show).
ALTER TABLE bisections ADD COLUMN change text NOT NULL DEFAULT 'regression'
	CHECK (change IN ('regression', 'improvement'));
