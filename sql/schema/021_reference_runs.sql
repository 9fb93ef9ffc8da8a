-- 021_reference_runs.sql: an idle box's reference runs (issue 26, "box
-- health"): a box that has taken no run for reference_every seconds is
-- given one run of its canary, pinned to it, so that a box that changed
-- while the lab was quiet is caught before it takes a pair.  Whether a
-- box took a run lately, and what it ran, is read from its leases by
-- their time.
CREATE INDEX leases_box_created ON leases (box, created);
