-- 016_lab_notes.sql: what robotd tells the lab's operators, not the
-- maintainers: a pair that stayed inconclusive at the run cap because
-- its box is too noisy for the job (issue 26, "noisy boxes named").  The
-- pair keeps the words; the note goes to the operators' mail and
-- webhook (robotd's settings) through the outbox, with its own JSON.
ALTER TABLE pairs ADD COLUMN note text;
CREATE TABLE lab_notes (
	id bigserial PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('noisy')),
	pair bigint REFERENCES pairs ON DELETE CASCADE,
	series text NOT NULL,
	boxes text[] NOT NULL,
	kpi text,
	message text NOT NULL,
	told timestamptz,                -- handed to the outbox
	claim timestamptz,
	created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lab_notes_untold ON lab_notes (id) WHERE told IS NULL;
ALTER TABLE outbox ADD COLUMN doc jsonb;  -- a row's own JSON (a note's)
