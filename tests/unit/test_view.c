/*
 * test_view.c: a document decoded by its field table (robot/core/view.h):
 * every kind, nested objects and arrays, nulls as zero values, an
 * optional key, and each way a document can fail to fit (not JSON, not
 * an object, a key missing, a value of another kind) with the key's
 * path in the message and nothing kept.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "robot/core/view.h"
#include "tap.h"

struct finding {
	long long id;
	const char *kpi;
	double change_pct;
};

struct lab {
	long long boxes, idle;
};

struct home {
	struct lab lab;
	struct finding *findings;
	size_t nfindings;
	const char **names;
	size_t nnames;
	double *vals;
	size_t nvals;
	long long *ids;
	size_t nids;
	const char *fetched;
	bool busy;
	const json_t *info;
	long long extra;
};

static const struct view_field finding_fields[] = {
	{"id", VIEW_INT, offsetof(struct finding, id), 0, NULL, 0},
	{"kpi", VIEW_STR, offsetof(struct finding, kpi), 0, NULL, 0},
	{"change_pct", VIEW_NUM, offsetof(struct finding, change_pct), 0, NULL,
	 0},
};
static const struct view_type finding_view =
	VIEW_TYPE("finding", struct finding, finding_fields);
static const struct view_field lab_fields[] = {
	{"boxes", VIEW_INT, offsetof(struct lab, boxes), 0, NULL, 0},
	{"idle", VIEW_INT, offsetof(struct lab, idle), 0, NULL, 0},
};
static const struct view_type lab_view =
	VIEW_TYPE("lab", struct lab, lab_fields);
static const struct view_field home_fields[] = {
	{"lab", VIEW_OBJECT, offsetof(struct home, lab), 0, &lab_view, 0},
	{"findings", VIEW_ARRAY, offsetof(struct home, findings), 0,
	 &finding_view, offsetof(struct home, nfindings)},
	{"names", VIEW_STRS, offsetof(struct home, names), 0, NULL,
	 offsetof(struct home, nnames)},
	{"vals", VIEW_NUMS, offsetof(struct home, vals), VIEW_OPT, NULL,
	 offsetof(struct home, nvals)},
	{"ids", VIEW_INTS, offsetof(struct home, ids), VIEW_OPT, NULL,
	 offsetof(struct home, nids)},
	{"fetched", VIEW_STR, offsetof(struct home, fetched), 0, NULL, 0},
	{"busy", VIEW_BOOL, offsetof(struct home, busy), 0, NULL, 0},
	{"info", VIEW_JSON, offsetof(struct home, info), 0, NULL, 0},
	{"extra", VIEW_INT, offsetof(struct home, extra), VIEW_OPT, NULL, 0},
};
static const struct view_type home_view =
	VIEW_TYPE("home", struct home, home_fields);

static void
test_every_kind(void)
{
	struct view_doc d = {0};
	struct home h;
	char err[256] = "";

	CHECK(view_load(&d, &home_view,
			"{\"lab\": {\"boxes\": 4, \"idle\": 3}, \"findings\": "
			"[{\"id\": 7, \"kpi\": \"dd.write_bytes_per_sec\", "
			"\"change_pct\": -93.5}, {\"id\": 8, \"kpi\": null, "
			"\"change_pct\": null}], \"names\": [\"a\", null], "
			"\"fetched\": null, \"busy\": true, \"info\": "
			"{\"subject\": \"x\"}, \"unknown\": 1, \"vals\": "
			"[1, 2.5, null], \"ids\": [7, 9007199254740993]}",
			&h, err, sizeof err));
	CHECK_STR(err, "");
	CHECK_INT((int)h.lab.boxes, 4);
	CHECK_INT((int)h.lab.idle, 3);
	CHECK_INT((int)h.nfindings, 2);
	CHECK(h.nfindings == 2 && h.findings[0].id == 7 &&
	      strcmp(h.findings[0].kpi, "dd.write_bytes_per_sec") == 0 &&
	      h.findings[0].change_pct == -93.5);
	CHECK(h.nfindings == 2 && h.findings[1].kpi == NULL &&
	      isnan(h.findings[1].change_pct));
	CHECK(h.nnames == 2 && strcmp(h.names[0], "a") == 0 &&
	      h.names[1] == NULL);
	CHECK(h.fetched == NULL);
	CHECK(h.busy);
	CHECK(json_is_object(h.info) &&
	      strcmp(json_string_value(json_object_get(h.info, "subject")),
		     "x") == 0);
	CHECK_INT((int)h.extra, 0);
	CHECK(h.nvals == 3 && h.vals[0] == 1 && h.vals[1] == 2.5 &&
	      isnan(h.vals[2]));
	CHECK(h.nids == 2 && h.ids[0] == 7 && h.ids[1] == 9007199254740993LL);
	view_release(&d);
	CHECK(d.nroots == 0 && d.nallocs == 0);
}

/* Each document that does not fit: the message names the key's path. */
static void
test_misfits(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"{\"lab\": ", "home: not JSON"},
		{"[1, 2]", "home: not a JSON object"},
		{"{\"findings\": [], \"names\": [], \"fetched\": null, "
		 "\"busy\": true, \"info\": null}",
		 "home: lab: missing"},
		{"{\"lab\": {\"boxes\": 4}, \"findings\": [], \"names\": [], "
		 "\"fetched\": null, \"busy\": true, \"info\": null}",
		 "home: lab.idle: missing"},
		{"{\"lab\": {\"boxes\": \"4\", \"idle\": 1}, \"findings\": [], "
		 "\"names\": [], \"fetched\": null, \"busy\": true, \"info\": "
		 "null}",
		 "home: lab.boxes: not an integer"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": "
		 "[{\"id\": "
		 "1, \"kpi\": \"k\", \"change_pct\": 1}, {\"id\": 2, \"kpi\": "
		 "3, \"change_pct\": 1}], \"names\": [], \"fetched\": null, "
		 "\"busy\": true, \"info\": null}",
		 "home: findings[1].kpi: not a string"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": [7], "
		 "\"names\": [], \"fetched\": null, \"busy\": true, \"info\": "
		 "null}",
		 "home: findings[0]: not an object"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": {}, "
		 "\"names\": [], \"fetched\": null, \"busy\": true, \"info\": "
		 "null}",
		 "home: findings: not an array"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": [], "
		 "\"names\": [1], \"fetched\": null, \"busy\": true, \"info\": "
		 "null}",
		 "home: names[0]: not a string"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": "
		 "[{\"id\": "
		 "1, \"kpi\": \"k\", \"change_pct\": \"-3\"}], \"names\": [], "
		 "\"fetched\": null, \"busy\": 1, \"info\": null}",
		 "home: findings[0].change_pct: not a number"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": [], "
		 "\"names\": [], \"fetched\": null, \"busy\": 1, \"info\": "
		 "null}",
		 "home: busy: not true or false"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": [], "
		 "\"names\": [], \"fetched\": null, \"busy\": true, \"info\": "
		 "null, \"vals\": [1, \"2\"]}",
		 "home: vals[1]: not a number"},
		{"{\"lab\": {\"boxes\": 4, \"idle\": 1}, \"findings\": [], "
		 "\"names\": [], \"fetched\": null, \"busy\": true, \"info\": "
		 "null, \"ids\": [1, 2.5]}",
		 "home: ids[1]: not an integer"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct view_doc d = {0};
		struct home h;
		char err[256] = "";

		CHECK(!view_load(&d, &home_view, bad[i].text, &h, err,
				 sizeof err));
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			tap_diag("case %zu: \"%s\", want \"%s\"", i, err,
				 bad[i].want);
		CHECK(strncmp(err, bad[i].want, strlen(bad[i].want)) == 0);
		CHECK(h.findings == NULL && h.nfindings == 0 &&
		      h.lab.boxes == 0);
		view_release(&d);
	}
	{
		struct view_doc d = {0};
		struct home h;
		char err[256] = "";

		CHECK(!view_load(&d, &home_view, NULL, &h, err, sizeof err));
		CHECK_STR(err, "home: no document");
	}
}

/* Two documents in one doc live until it is released. */
static void
test_two_documents(void)
{
	struct view_doc d = {0};
	struct lab a, b;
	char err[128];
	json_t *j = json_pack("{s:i, s:i}", "boxes", 2, "idle", 1);

	CHECK(view_decode(&d, &lab_view, j, &a, err, sizeof err));
	json_decref(j); /* d holds its own reference */
	CHECK(view_load(&d, &lab_view, "{\"boxes\": 5, \"idle\": 5}", &b, err,
			sizeof err));
	CHECK(a.boxes == 2 && b.boxes == 5);
	CHECK_INT((int)d.nroots, 2);
	view_release(&d);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_every_kind),
		TAP_CASE(test_misfits),
		TAP_CASE(test_two_documents),
		{NULL, NULL},
	};

	return tap_run(cases);
}
