-- 028_jobs_box.sql: a box's runs, newest first, found without reading
-- every run: the box's page (robot_box()) and the queue filtered by box.
CREATE INDEX jobs_box ON jobs (box, id) WHERE box IS NOT NULL;
