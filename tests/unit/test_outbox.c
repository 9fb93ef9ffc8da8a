/*
 * test_outbox.c: what becomes of an outbox row after a try (sent,
 * tried again after a backoff, failed for good), and the backoff.
 */
#include <string.h>

#include "reporters/channel.h"
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

/* The chat form of a report: a branch or subject of another's making
 * cannot ping a channel (Slack's <!channel>, Mattermost's @here) or
 * make a link; the text reads the same otherwise. */
static void
test_chat_text(void)
{
	json_t *doc =
		json_pack("{s:s, s:s}", "subject",
			  "[robot] [t:p<!channel>@here] [a&b] 0123456789: "
			  "x -5.0% regression for @all, mail a@b.org",
			  "url", "http://robot.example.org/regressions/1");
	json_t *j = channel_chat_text(doc);
	const char *t = json_string_value(json_object_get(j, "text"));

	CHECK(t != NULL);
	CHECK(strchr(t, '<') == NULL && strchr(t, '>') == NULL);
	CHECK(strstr(t, "&lt;!channel&gt;") != NULL);
	CHECK(strstr(t, "[a&amp;b]") != NULL);
	CHECK(strstr(t, "@here") == NULL && strstr(t, "@all") == NULL);
	CHECK(strstr(t, "a@b.org") != NULL);
	CHECK(strstr(t, "\nhttp://robot.example.org/regressions/1") != NULL);
	CHECK_INT(json_object_size(j), 1);
	json_decref(j);
	json_decref(doc);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_backoff),
		TAP_CASE(test_outcome),
		TAP_CASE(test_chat_text),
		{NULL, NULL},
	};

	return tap_run(cases);
}
