/*
 * boxes.c: the store's boxes (boxes.h).
 */
#include "robot/daemon/store/boxes.h"
#include "robot/daemon/store/call.h"
#include "robot/core/banned.h"

static const struct store_stmt reg = {
	"SELECT robot_register($1, $2, $3::jsonb, $4::int)", "sssi",
	store_read_text, false};

void
store_register(struct store *s, const char *box, const char *group,
	       const char *facts, int broken_after, store_text_cb cb, void *arg)
{
	store_call(s, &reg, STORE_FN(cb), arg, STORE_TEXT(box),
		   STORE_TEXT(group), STORE_TEXT(facts),
		   STORE_INT(broken_after));
}

static const struct store_stmt reset = {"SELECT robot_reset($1)", "s",
					store_read_text, false};

void
store_reset(struct store *s, const char *box, store_text_cb cb, void *arg)
{
	store_call(s, &reset, STORE_FN(cb), arg, STORE_TEXT(box));
}

static const struct store_stmt reference_due = {
	"SELECT robot_reference_due($1::int)::text", "i", store_read_text,
	false};

void
store_reference_due(struct store *s, int every, store_text_cb cb, void *arg)
{
	store_call(s, &reference_due, STORE_FN(cb), arg, STORE_INT(every));
}

static const struct store_stmt canary_next = {
	"SELECT robot_canary_next()::text", "", store_read_text, false};

void
store_canary_next(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &canary_next, STORE_FN(cb), arg);
}

static const struct store_stmt suspect = {
	"SELECT robot_box_suspect($1, $2::bigint, $3, $4, $5)", "slsss",
	store_read_text, false};

void
store_box_suspect(struct store *s, const char *box, long long since,
		  const char *kpi, const char *series, const char *message,
		  store_text_cb cb, void *arg)
{
	store_call(s, &suspect, STORE_FN(cb), arg, STORE_TEXT(box),
		   STORE_LONG(since), STORE_TEXT(kpi), STORE_TEXT(series),
		   STORE_TEXT(message));
}

static const struct store_stmt power_cycle_due = {
	"SELECT robot_power_cycle_due($1::int)::text", "i", store_read_text,
	false};

void
store_power_cycle_due(struct store *s, int grace, store_text_cb cb, void *arg)
{
	store_call(s, &power_cycle_due, STORE_FN(cb), arg, STORE_INT(grace));
}
