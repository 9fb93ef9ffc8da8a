-- 034_box_asked.sql: when a box last asked for work.  A round pinned to
-- a box goes on elsewhere when its box holds no lease and has asked for
-- nothing for a minute; its last_seen would not do, since registering
-- again moves it (issue 61: a box registering every 20 s kept a round
-- on itself for ever).
ALTER TABLE boxes ADD COLUMN last_asked timestamptz;
