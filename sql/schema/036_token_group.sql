-- 036_token_group.sql: the group a box token may register its box in
-- (issue 61: a box token picked its own group, and a box of bad facts
-- in a new group made every submit to that group fail).  An enrolled
-- box's token has its enrollment's group; `robotd token create --kind
-- box --group G` names one; a box whose tokens name none stays in the
-- group it first registered in.
ALTER TABLE tokens ADD COLUMN tbox_group text;
