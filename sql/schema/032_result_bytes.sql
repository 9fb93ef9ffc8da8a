-- 032_result_bytes.sql: how long each result document is, so that
-- GET /api/results can answer in pages of a bounded size without reading
-- the documents to find out (issue 61: one answer of every document at
-- a commit was 157 MB).  Rows stored before have none: their length is
-- measured when a page needs it.
ALTER TABLE results ADD COLUMN bytes int;
