/*
 * leases.c: the store's leases (leases.h).
 */
#include <stddef.h>
#include <stdlib.h>

#include "robot/daemon/store/call.h"
#include "robot/daemon/store/leases.h"
#include "robot/core/banned.h"

static const struct store_stmt check = {
	"SELECT robot_lease_check($1::bigint, $2)", "ls", store_read_text,
	false};

void
store_lease_check(struct store *s, long long lease, const char *box,
		  store_text_cb cb, void *arg)
{
	store_call(s, &check, STORE_FN(cb), arg, STORE_LONG(lease),
		   STORE_TEXT(box));
}

static void
read_claim(const struct db_result *r, const struct problem *p, store_fn cb,
	   void *arg)
{
	struct store_claim cl = {0, NULL, NULL};

	if (p == NULL && db_rows(r) > 0) {
		const char *lease = db_value(r, 0, 0);

		cl.lease = lease ? strtoll(lease, NULL, 10) : 0;
		cl.json = db_value(r, 0, 1);
		cl.group = db_value(r, 0, 2);
	}
	((store_claim_cb)cb)(p == NULL ? &cl : NULL, p, arg);
}

static const struct store_stmt claim = {
	"SELECT c.lease, CASE WHEN c.lease IS NULL THEN NULL ELSE "
	"json_build_object('lease', c.lease, 'deadline', "
	"c.deadline, 'job_id', c.job_id, 'key', c.key, 'commit', "
	"c.commit, 'tree', c.tree, 'run', c.run, 'runs', c.runs, "
	"'attempt', c.attempts, 'tbox_group', c.tbox_group, "
	"'lease_seconds', $2::int, 'job', c.job)::text END, "
	"c.tbox_group FROM robot_claim($1, $2::int) c",
	"si", read_claim, false};

void
store_claim(struct store *s, const char *box, int seconds, store_claim_cb cb,
	    void *arg)
{
	store_call(s, &claim, STORE_FN(cb), arg, STORE_TEXT(box),
		   STORE_INT(seconds));
}

static const struct store_stmt release = {"SELECT robot_release($1::bigint)",
					  "l", store_read_text, false};

void
store_release(struct store *s, long long lease, store_text_cb cb, void *arg)
{
	store_call(s, &release, STORE_FN(cb), arg, STORE_LONG(lease));
}

static const struct store_stmt heartbeat = {
	"SELECT robot_heartbeat($1::bigint, $2, $3::int, $4::int)", "lsii",
	store_read_text, false};

void
store_heartbeat(struct store *s, long long lease, const char *box, int seconds,
		int max_life, store_text_cb cb, void *arg)
{
	store_call(s, &heartbeat, STORE_FN(cb), arg, STORE_LONG(lease),
		   STORE_TEXT(box), STORE_INT(seconds), STORE_INT(max_life));
}

static const struct store_stmt upload = {
	"SELECT robot_upload($1::bigint, $2, $3, $4, $5, $6, $7, $8, "
	"$9::json, $10::int, $11::boolean)",
	"lssssssssib", store_read_text, false};

void
store_upload(struct store *s, const struct store_upload *u, store_text_cb cb,
	     void *arg)
{
	store_call(s, &upload, STORE_FN(cb), arg, STORE_LONG(u->lease),
		   STORE_TEXT(u->box), STORE_TEXT(u->key),
		   STORE_TEXT(u->tbox_group), STORE_TEXT(u->doc_box),
		   STORE_TEXT(u->commit), STORE_TEXT(u->status),
		   STORE_TEXT(u->error), STORE_TEXT(u->doc),
		   STORE_INT(u->broken_after), STORE_BOOL((int)u->job_fault));
}

static const struct view_field sweep_fields[] = {
	VIEW_F(store_sweep, "expired", VIEW_INT, expired),
	VIEW_F(store_sweep, "orphaned", VIEW_INT, orphaned),
	VIEW_F(store_sweep, "mutes_expired", VIEW_INT, mutes_expired),
	VIEW_I(store_sweep, "mended", mended, nmended),
};
static const struct view_type sweep_view =
	VIEW_TYPE("sweep", struct store_sweep, sweep_fields);

static void
read_sweep(const struct db_result *r, const struct problem *p, store_fn cb,
	   void *arg)
{
	store_read_view(r, p, &sweep_view, cb, arg);
}

static const struct store_stmt sweep = {
	"SELECT json_build_object('expired', robot_expire($1::int), "
	"'orphaned', robot_rounds_orphaned(), 'mended', "
	"robot_pairs_mend(), 'folded', robot_job_counts_fold(), "
	"'mutes_expired', robot_mutes_expire())::text",
	"i", read_sweep, false};

void
store_sweep(struct store *s, int lease_seconds, store_sweep_cb cb, void *arg)
{
	store_call(s, &sweep, STORE_FN(cb), arg, STORE_INT(lease_seconds));
}
