-- 033_commit_email.sql: a commit's author address as git reads it (%ae),
-- apart from its name: the author mail goes to it, never to the first
-- <...> of "NAME <EMAIL>", which may sit in the name (issue 61).  A
-- commit whose author line git cannot read has no date of its own: its
-- committer's, else none (it failed the tree's whole fetch before).
ALTER TABLE tree_commits ADD COLUMN email text;
ALTER TABLE tree_commits ALTER COLUMN date DROP NOT NULL;
