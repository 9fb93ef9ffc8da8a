-- 013_channels.sql: an outbox row's channel is one of robotd's report
-- channels (reporters/channel.c's table), no longer a list fixed here,
-- so that a new channel needs no migration.
ALTER TABLE outbox DROP CONSTRAINT outbox_channel_check;
