/*
 * test_outbox.c: what becomes of an outbox row after a try (sent,
 * tried again after a backoff, failed for good), and the backoff.
 */
#include "reporters/outbox.h"
#include "robot/core/backoff.h"
#include "tap.h"

static void
test_backoff(void)
{
	CHECK_DBL(backoff_delay(10, 3600, 1), 10, 0);
	CHECK_DBL(backoff_delay(10, 3600, 2), 20, 0);
	CHECK_DBL(backoff_delay(10, 3600, 9), 2560, 0);
	CHECK_DBL(backoff_delay(10, 3600, 10), 3600, 0);
	CHECK_DBL(backoff_delay(10, 3600, 1000000), 3600, 0);
	CHECK_DBL(backoff_delay(10, 3600, 0), 10, 0);
	/* a tree polled every 600 s: 1200 s after its first failure */
	CHECK_DBL(backoff_delay(1200, 3600, 1), 1200, 0);
	CHECK_DBL(backoff_delay(1200, 3600, 2), 2400, 0);
	CHECK_DBL(backoff_delay(1200, 3600, 3), 3600, 0);
}

static void
test_outcome(void)
{
	int retry = -1;

	CHECK_STR(outbox_outcome(true, false, 1, &retry), "sent");
	CHECK_STR(outbox_outcome(false, false, 1, &retry), "pending");
	CHECK_INT(retry, 10);
	CHECK_STR(outbox_outcome(false, false, 3, &retry), "pending");
	CHECK_INT(retry, 40);
	CHECK_STR(outbox_outcome(false, false, 20, &retry), "pending");
	CHECK_INT(retry, 3600);
	/* refused for good, or the last of about two days of tries */
	CHECK_STR(outbox_outcome(false, true, 1, &retry), "failed");
	CHECK_STR(outbox_outcome(false, false, 47, &retry), "pending");
	CHECK_STR(outbox_outcome(false, false, 48, &retry), "failed");
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_backoff),
		TAP_CASE(test_outcome),
		{NULL, NULL},
	};

	return tap_run(cases);
}
