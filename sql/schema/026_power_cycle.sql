-- 026_power_cycle.sql: a box that does not come back (issue 32).  A box
-- whose lease expired after it was last heard from went silent in the
-- middle of a run (it kexec'd into a kernel that hangs, say): robotd
-- runs the lab's power_cycle command on it, once until it is heard from
-- again (power_cycled), and tells the operators in a lab note.
ALTER TABLE boxes ADD COLUMN power_cycled timestamptz;
ALTER TABLE lab_notes DROP CONSTRAINT lab_notes_kind_check;
ALTER TABLE lab_notes ADD CONSTRAINT lab_notes_kind_check
	CHECK (kind IN ('noisy', 'suspect', 'power-cycle'));
