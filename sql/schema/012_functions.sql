-- 012_functions.sql: functions, views and triggers leave the migrations.
-- They live in sql/functions/, each once, as today's definition, and
-- robotd recreates them at every start in a schema of their own,
-- robot_functions (docs/architecture.md, "The database").  This drops
-- the ones earlier migrations made in public, and their triggers with
-- them; the same start then makes them anew.
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
		JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'public' AND p.proname LIKE 'robot\_%'
	LOOP
		EXECUTE format('DROP FUNCTION %s CASCADE', f);
	END LOOP;
END $$;

-- What 001 gained after databases had been made with it (it was edited
-- in place): the 'released' state of a lease, the index of a box's
-- active leases, and the queue's tighter autovacuum.  A database made
-- before has them now; one made after is unchanged.
ALTER TABLE leases DROP CONSTRAINT leases_state_check,
	ADD CONSTRAINT leases_state_check
	CHECK (state IN ('active', 'done', 'expired', 'released'));
CREATE INDEX IF NOT EXISTS leases_box ON leases (box)
	WHERE state = 'active';
ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0.02,
	autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE leases SET (autovacuum_vacuum_scale_factor = 0.02,
	autovacuum_analyze_scale_factor = 0.02);
-- And what 010 gained so: the index of pairs by state.
CREATE INDEX IF NOT EXISTS pairs_state ON pairs (state);
