-- 030_subscription_replaced.sql: the same subscription asked again
-- before it was confirmed (issue 55: two unconfirmed rows, two mails,
-- and two confirmed subscriptions once both links were followed).  The
-- newer request replaces the older: its row is "replaced", its link
-- says so, and only the newest link confirms.
ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_state_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_state_check
	CHECK (state IN ('unconfirmed', 'confirmed', 'unsubscribed',
		'replaced'));
