/*
 * boxes.c: the store's boxes (boxes.h).
 */
#include <stddef.h>

#include "robot/daemon/store/boxes.h"
#include "robot/daemon/store/call.h"
#include "robot/core/banned.h"

static const struct view_field box_facts_fields[] = {
	VIEW_FO(store_box_facts, "cpus", VIEW_INT, cpus),
	VIEW_FO(store_box_facts, "memory", VIEW_NUM, memory),
	VIEW_FO(store_box_facts, "cpu_model", VIEW_STR, cpu_model),
	VIEW_FO(store_box_facts, "kernel", VIEW_STR, kernel),
	VIEW_FO(store_box_facts, "proc_version", VIEW_STR, proc_version),
	{"disks", VIEW_STRS, offsetof(struct store_box_facts, disks), VIEW_OPT,
	 NULL, offsetof(struct store_box_facts, ndisks)},
};
const struct view_type store_box_facts_view =
	VIEW_TYPE("facts", struct store_box_facts, box_facts_fields);

static const struct store_stmt box_page = {
	"SELECT robot_box($1)", "s", store_read_text, false, .shared = true};

void
store_box(struct store *s, const char *name, store_text_cb cb, void *arg)
{
	store_call(s, &box_page, STORE_FN(cb), arg, STORE_TEXT(name));
}

#define BF(st, key, kind, field) VIEW_F(store_box##st, key, kind, field)
static const struct view_field box_run_fields[] = {
	BF(_run, "id", VIEW_INT, id),
	BF(_run, "state", VIEW_STR, state),
	BF(_run, "series", VIEW_STR, series),
	BF(_run, "commit", VIEW_STR, commit),
	BF(_run, "error", VIEW_STR, error),
	BF(_run, "updated", VIEW_STR, updated),
};
static const struct view_type box_run =
	VIEW_TYPE("run", struct store_box_run, box_run_fields);
static const struct view_field box_note_fields[] = {
	BF(_note, "series", VIEW_STR, series),
	BF(_note, "message", VIEW_STR, message),
	BF(_note, "created", VIEW_STR, created),
};
static const struct view_type box_note =
	VIEW_TYPE("note", struct store_box_note, box_note_fields);
static const struct view_field box_fields[] = {
	BF(, "name", VIEW_STR, name),
	BF(, "tbox_group", VIEW_STR, tbox_group),
	BF(, "state", VIEW_STR, state),
	BF(, "suspect", VIEW_STR, suspect),
	BF(, "revoked", VIEW_STR, revoked),
	BF(, "failures", VIEW_INT, failures),
	BF(, "last_seen", VIEW_STR, last_seen),
	BF(, "registered", VIEW_STR, registered),
	BF(, "power_cycled", VIEW_STR, power_cycled),
	VIEW_O(store_box, "facts", store_box_facts_view, facts),
	VIEW_A(store_box, "runs", box_run, runs, nruns),
	VIEW_A(store_box, "notes", box_note, notes, nnotes),
};
#undef BF
const struct view_type store_box_view =
	VIEW_TYPE("box", struct store_box, box_fields);

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

static const struct store_stmt box_revoke = {"SELECT robot_box_revoke($1, $2)",
					     "ss", store_read_text, false};

void
store_box_revoke(struct store *s, const char *box, const char *by,
		 store_text_cb cb, void *arg)
{
	store_call(s, &box_revoke, STORE_FN(cb), arg, STORE_TEXT(box),
		   STORE_TEXT(by));
}

static const struct view_field reference_run_fields[] = {
	VIEW_F(store_reference_run, "box", VIEW_STR, box),
	VIEW_F(store_reference_run, "series", VIEW_STR, series),
	VIEW_F(store_reference_run, "commit", VIEW_STR, commit),
	VIEW_F(store_reference_run, "job", VIEW_INT, job),
};
static const struct view_type reference_run = VIEW_TYPE(
	"reference run", struct store_reference_run, reference_run_fields);
static const struct view_field reference_runs_fields[] = {
	VIEW_A(store_reference_runs, "runs", reference_run, runs, nruns),
};
static const struct view_type reference_runs_view = VIEW_TYPE(
	"reference runs", struct store_reference_runs, reference_runs_fields);

static void
read_reference(const struct db_result *r, const struct problem *p, store_fn cb,
	       void *arg)
{
	store_read_view(r, p, &reference_runs_view, cb, arg);
}

static const struct store_stmt reference_due = {
	"SELECT json_build_object('runs', robot_reference_due($1::int))::text",
	"i", read_reference, false};

void
store_reference_due(struct store *s, int every, store_reference_cb cb,
		    void *arg)
{
	store_call(s, &reference_due, STORE_FN(cb), arg, STORE_INT(every));
}

static const struct view_field canary_fields[] = {
	VIEW_F(store_canary, "series", VIEW_STR, series),
	VIEW_F(store_canary, "commit", VIEW_STR, commit),
	VIEW_F(store_canary, "kpi", VIEW_STR, kpi),
	VIEW_N(store_canary, "values", values, nvalues),
	VIEW_I(store_canary, "ids", ids, nids),
};
static const struct view_type canary_view =
	VIEW_TYPE("canary", struct store_canary, canary_fields);
static const struct view_field canary_claim_fields[] = {
	VIEW_F(store_canary_claim, "box", VIEW_STR, box),
	VIEW_F(store_canary_claim, "checked", VIEW_INT, checked),
	VIEW_A(store_canary_claim, "canaries", canary_view, canaries,
	       ncanaries),
};
static const struct view_type canary_claim_view = VIEW_TYPE(
	"canary claim", struct store_canary_claim, canary_claim_fields);

static void
read_canary(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	store_read_view(r, p, &canary_claim_view, cb, arg);
}

static const struct store_stmt canary_next = {
	"SELECT robot_canary_next()::text", "", read_canary, false};

void
store_canary_next(struct store *s, store_canary_cb cb, void *arg)
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

static const struct view_field silent_box_fields[] = {
	VIEW_F(store_silent_box, "box", VIEW_STR, box),
	VIEW_F(store_silent_box, "series", VIEW_STR, series),
	VIEW_F(store_silent_box, "lease", VIEW_INT, lease),
};
static const struct view_type silent_box =
	VIEW_TYPE("silent box", struct store_silent_box, silent_box_fields);
static const struct view_field silent_boxes_fields[] = {
	VIEW_A(store_silent_boxes, "boxes", silent_box, boxes, nboxes),
};
static const struct view_type silent_boxes_view = VIEW_TYPE(
	"silent boxes", struct store_silent_boxes, silent_boxes_fields);

static void
read_silent(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	store_read_view(r, p, &silent_boxes_view, cb, arg);
}

static const struct store_stmt power_cycle_due = {
	"SELECT json_build_object('boxes', "
	"robot_power_cycle_due($1::int))::text",
	"i", read_silent, false};

void
store_power_cycle_due(struct store *s, int grace, store_silent_cb cb, void *arg)
{
	store_call(s, &power_cycle_due, STORE_FN(cb), arg, STORE_INT(grace));
}
