-- 018_box_health.sql: boxes that change under you (issue 26, "box
-- health").  The runs a box takes of one series at one commit form its
-- canary: when its latest runs there move away from its earlier ones,
-- the box changed, not the commit.  Such a box is suspect from the
-- first of the moved runs: it takes no work, the findings it took part
-- in since are held and measured again on other boxes, and the lab's
-- operators are told (a lab note), until `robot box reset`.
ALTER TABLE boxes ADD COLUMN suspect timestamptz;
ALTER TABLE boxes ADD COLUMN canary_checked bigint NOT NULL DEFAULT 0;
ALTER TABLE lab_notes DROP CONSTRAINT lab_notes_kind_check;
ALTER TABLE lab_notes ADD CONSTRAINT lab_notes_kind_check
	CHECK (kind IN ('noisy', 'suspect'));
