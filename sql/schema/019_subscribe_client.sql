-- 019_subscribe_client.sql: who asked for a subscription (the client's
-- address), so that robot_subscribe() limits the confirmation mails one
-- client may have sent, and those of the last hour are counted at once.
ALTER TABLE subscriptions ADD COLUMN client text;
CREATE INDEX subscriptions_created ON subscriptions (created);
