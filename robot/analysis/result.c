/*
 * result.c: result documents.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot/analysis/result.h"
#include "robot/core/name.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

const char *
result_status_name(enum result_status s)
{
	switch (s) {
	case RESULT_OK:
		return "ok";
	case RESULT_FAILED:
		return "failed";
	case RESULT_INCOMPLETE:
		return "incomplete";
	}
	return "?";
}

static json_t *
string_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

json_t *
result_doc_new(const struct result_head *h)
{
	json_t *doc = json_object();

	json_object_set_new(doc, "version", json_integer(RESULT_VERSION));
	if (h->job != NULL)
		json_object_set_new(doc, "job", h->job);
	json_object_set_new(doc, "key", json_string(h->key));
	json_object_set_new(doc, "tbox_group", json_string(h->tbox_group));
	json_object_set_new(doc, "box", string_or_null(h->box));
	json_object_set_new(doc, "tree", string_or_null(h->tree));
	json_object_set_new(doc, "commit", string_or_null(h->commit));
	if (h->started != NULL)
		json_object_set_new(doc, "started", json_string(h->started));
	if (h->finished != NULL)
		json_object_set_new(doc, "finished", json_string(h->finished));
	json_object_set_new(doc, "status",
			    json_string(result_status_name(h->status)));
	json_object_set_new(doc, "error", string_or_null(h->error));
	if (h->status == RESULT_FAILED)
		json_object_set_new(doc, "fault",
				    json_string(h->job_fault ? "job" : "box"));
	return doc;
}

/* A metric's name; false after saying why it is not one. */
static bool
metric_name_ok(const char *where, const char *what, const char *name,
	       struct errlist *el)
{
	const char *why = name_check(NAME_METRIC, name, strlen(name));

	if (why == NULL)
		return true;
	{
		char *q = str_quote(name);

		errlist_error(el, where, 0, "%s metric '%s' %s", what, q, why);
		free(q);
	}
	return false;
}

/* A string member: required, or NULL allowed when optional. */
static const char *
get_string(const char *where, json_t *doc, const char *key, bool required,
	   struct errlist *el)
{
	json_t *v = json_object_get(doc, key);

	if (v == NULL || json_is_null(v)) {
		if (required)
			errlist_error(el, where, 0, "'%s' is missing", key);
		return NULL;
	}
	if (!json_is_string(v)) {
		errlist_error(el, where, 0, "'%s' is not a string", key);
		return NULL;
	}
	if (required && json_string_length(v) == 0) {
		errlist_error(el, where, 0, "'%s' is empty", key);
		return NULL;
	}
	return json_string_value(v);
}

/* A string member that is a name of kind: required, or NULL (or empty)
 * allowed when optional. */
static const char *
get_name(const char *where, json_t *doc, const char *key, bool required,
	 enum name_kind kind, struct errlist *el)
{
	const char *s = get_string(where, doc, key, required, el);
	size_t len = s ? json_string_length(json_object_get(doc, key)) : 0;
	const char *why;

	if (len == 0)
		return s;
	if ((why = name_check(kind, s, len)) != NULL) {
		errlist_error(el, where, 0, "'%s' %s: it must be %s", key, why,
			      name_kind_text(kind));
		return NULL;
	}
	return s;
}

/* A value: 0 with a number in *out, NUMBER_NOT when it is not a finite
 * number, NUMBER_HUGE when it is beyond +-RESULT_MAX_VALUE. */
enum { NUMBER_OK, NUMBER_NOT, NUMBER_HUGE };

static int
number_of(json_t *v, double *out)
{
	if (json_is_integer(v))
		*out = (double)json_integer_value(v);
	else if (json_is_real(v))
		*out = json_real_value(v);
	else
		return NUMBER_NOT;
	if (!isfinite(*out))
		return NUMBER_NOT;
	return fabs(*out) > RESULT_MAX_VALUE ? NUMBER_HUGE : NUMBER_OK;
}

/* The run's status, and its error when it failed. */
static void
parse_status(const char *where, json_t *doc, struct result *r,
	     struct errlist *el)
{
	const char *status = get_string(where, doc, "status", true, el);

	if (status == NULL)
		;
	else if (strcmp(status, "ok") == 0)
		r->status = RESULT_OK;
	else if (strcmp(status, "failed") == 0)
		r->status = RESULT_FAILED;
	else if (strcmp(status, "incomplete") == 0)
		r->status = RESULT_INCOMPLETE;
	else
		errlist_error(el, where, 0,
			      "'status' must be ok, failed or incomplete");
	if (r->status == RESULT_FAILED && r->error == NULL)
		errlist_error(el, where, 0,
			      "a failed run needs an 'error' saying why");
}

/* At most RESULT_MAX_METRICS metrics in "stats" and "series". */
static bool
count_ok(const char *where, json_t *doc, size_t nstats, struct errlist *el)
{
	if (nstats + json_object_size(json_object_get(doc, "series")) <=
	    RESULT_MAX_METRICS)
		return true;
	errlist_error(el, where, 0, "the document holds more than %d metrics",
		      RESULT_MAX_METRICS);
	return false;
}

/* "stats": a metric's name to a finite number. */
static void
parse_stats(const char *where, json_t *doc, struct result *r,
	    struct errlist *el)
{
	json_t *stats = json_object_get(doc, "stats"), *v;
	const char *name;

	if (stats == NULL || json_is_null(stats)) {
		if (r->status == RESULT_OK)
			errlist_error(el, where, 0,
				      "'stats' is missing from a run that is "
				      "ok");
		return;
	}
	if (!json_is_object(stats)) {
		errlist_error(el, where, 0, "'stats' is not an object");
		return;
	}
	if (!count_ok(where, doc, json_object_size(stats), el))
		return;
	r->stats = xcalloc(json_object_size(stats) + 1, sizeof *r->stats);
	json_object_foreach(stats, name, v)
	{
		double d;
		int k;

		if (!metric_name_ok(where, "stats", name, el))
			continue;
		if ((k = number_of(v, &d)) != NUMBER_OK) {
			char *q = str_quote(name);

			if (k == NUMBER_HUGE)
				errlist_error(el, where, 0,
					      "stats '%s' is beyond +-%g, more "
					      "than its summaries can hold",
					      q, RESULT_MAX_VALUE);
			else
				errlist_error(el, where, 0,
					      "stats '%s' is not a finite "
					      "number",
					      q);
			free(q);
			continue;
		}
		r->stats[r->nstats++] = (struct result_stat){name, d};
	}
}

/* "series": a metric's name to an array of finite numbers. */
static void
check_series(const char *where, json_t *doc, struct errlist *el)
{
	json_t *series = json_object_get(doc, "series"), *v, *x;
	const char *name;

	if (series == NULL || json_is_null(series))
		return;
	if (!json_is_object(series)) {
		errlist_error(el, where, 0, "'series' is not an object");
		return;
	}
	json_object_foreach(series, name, v)
	{
		size_t i;
		double d;
		int k = json_is_array(v) ? NUMBER_OK : NUMBER_NOT;

		if (!metric_name_ok(where, "series", name, el))
			continue;
		json_array_foreach(v, i, x)
		{
			if (k != NUMBER_OK)
				break;
			k = number_of(x, &d);
		}
		if (k != NUMBER_OK) {
			char *q = str_quote(name);

			if (k == NUMBER_HUGE)
				errlist_error(
					el, where, 0,
					"series '%s' holds a value beyond "
					"+-%g, more than its summaries "
					"can hold",
					q, RESULT_MAX_VALUE);
			else
				errlist_error(el, where, 0,
					      "series '%s' is not an array of "
					      "finite numbers",
					      q);
			free(q);
		}
	}
}

bool
result_parse(const char *where, json_t *doc, struct result *r,
	     struct errlist *el)
{
	memset(r, 0, sizeof *r);
	return result_check(where, doc, false, r, el);
}

bool
result_check(const char *where, json_t *doc, bool stats_read, struct result *r,
	     struct errlist *el)
{
	size_t before = el->nerrors;
	json_t *v;

	if (!json_is_object(doc)) {
		errlist_error(el, where, 0,
			      "a result document is a JSON object");
		return false;
	}
	v = json_object_get(doc, "version");
	if (!json_is_integer(v) || json_integer_value(v) != RESULT_VERSION)
		errlist_error(el, where, 0,
			      "'version' must be %d (this robot's result "
			      "format)",
			      RESULT_VERSION);
	r->key = get_name(where, doc, "key", true, NAME_SERIES, el);
	r->tbox_group =
		get_name(where, doc, "tbox_group", true, NAME_LABEL, el);
	r->box = get_name(where, doc, "box", false, NAME_LABEL, el);
	r->tree = get_name(where, doc, "tree", false, NAME_LABEL, el);
	r->commit = get_name(where, doc, "commit", false, NAME_COMMIT, el);
	get_string(where, doc, "started", false, el);
	get_string(where, doc, "finished", false, el);
	r->error = get_string(where, doc, "error", false, el);
	parse_status(where, doc, r, el);
	v = json_object_get(doc, "fault");
	if (v != NULL && !json_is_null(v) &&
	    (!json_is_string(v) || (strcmp(json_string_value(v), "job") != 0 &&
				    strcmp(json_string_value(v), "box") != 0)))
		errlist_error(el, where, 0,
			      "'fault' is \"job\", \"box\" or null");
	r->job_fault = r->status == RESULT_FAILED && json_is_string(v) &&
		       strcmp(json_string_value(v), "job") == 0;
	/* What the box warns of (a short run): a list of strings. */
	v = json_object_get(doc, "warnings");
	if (v != NULL && !json_is_null(v)) {
		size_t i;
		json_t *w;
		bool ok = json_is_array(v);

		json_array_foreach(v, i, w)
		{
			ok = ok && json_is_string(w);
		}
		if (!ok)
			errlist_error(el, where, 0,
				      "'warnings' is not a list of strings");
		else if (json_array_size(v) > 0)
			r->warning = json_string_value(json_array_get(v, 0));
	}
	/* A run named after a commit on a box with no hook to provision
	 * it (robot-box run --label): its own kernel ran. */
	v = json_object_get(doc, "provision");
	r->unprovisioned = r->commit != NULL && json_is_object(v) &&
			   json_is_null(json_object_get(v, "hook"));
	/* The commit's subject, as the provisioning hook told it. */
	r->subject = json_string_value(json_object_get(v, "subject"));
	v = json_object_get(doc, "job");
	if (v != NULL && !json_is_object(v))
		errlist_error(el, where, 0, "'job' is not an object");
	r->profiled = json_is_object(v) &&
		      (json_object_get(v, "perf-profile") != NULL ||
		       json_object_get(v, "perf-stat") != NULL);
	if (stats_read)
		(void)count_ok(where, doc, r->nstats, el);
	else
		parse_stats(where, doc, r, el);
	check_series(where, doc, el);
	v = json_object_get(doc, "outputs");
	if (v != NULL && !json_is_null(v) && !json_is_object(v))
		errlist_error(el, where, 0, "'outputs' is not an object");
	if (el->nerrors > before) {
		free(r->stats);
		memset(r, 0, sizeof *r);
		return false;
	}
	r->json = json_incref(doc);
	r->series = xasprintf("%s/%s", r->key, r->tbox_group);
	return true;
}

void
result_release(struct result *r)
{
	json_decref(r->json);
	free(r->stats);
	free(r->series);
	memset(r, 0, sizeof *r);
}

bool
result_load_file(const char *path, struct result_names *names,
		 struct result **v, size_t *n, struct errlist *el)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t got;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		errlist_error(el, path, 0, "cannot read: %s", strerror(errno));
		if (fd != -1)
			close(fd);
		return false;
	}
	if (st.st_size > RESULT_MAX_BYTES) {
		errlist_error(el, path, 0,
			      "the file is %lld bytes; result documents are "
			      "limited to 16 MiB",
			      (long long)st.st_size);
		close(fd);
		return false;
	}
	/* Read whole (a file may grow while read: no more than the limit)
	 * and parsed from the buffer. */
	buf = result_names_file_buffer(names, (size_t)st.st_size);
	while (len < (size_t)st.st_size &&
	       (got = read(fd, buf + len, (size_t)st.st_size - len)) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1) {
			errlist_error(el, path, 0, "cannot read: %s",
				      strerror(errno));
			close(fd);
			return false;
		}
		len += (size_t)got;
	}
	close(fd);
	buf[len] = '\0';
	return result_read(path, buf, len, names, v, n, el);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool
result_load_path(const char *path, struct result_names *names,
		 struct result **v, size_t *n, struct errlist *el)
{
	struct dirent *de;
	char **files = NULL;
	size_t count = 0;
	struct stat st;
	bool ok = true;
	DIR *d;

	if (stat(path, &st) != 0) {
		errlist_error(el, path, 0, "cannot read: %s", strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode))
		return result_load_file(path, names, v, n, el);
	if ((d = opendir(path)) == NULL) {
		errlist_error(el, path, 0, "cannot read: %s", strerror(errno));
		return false;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		files = xreallocarray(files, count + 1, sizeof *files);
		files[count++] = xasprintf("%s/%s", path, de->d_name);
	}
	closedir(d);
	if (count > 0)
		qsort(files, count, sizeof *files, cmp_names);
	for (size_t i = 0; i < count; i++) {
		if (stat(files[i], &st) == 0 &&
		    (S_ISDIR(st.st_mode) || str_has_suffix(files[i], ".json")))
			ok = result_load_path(files[i], names, v, n, el) && ok;
		free(files[i]);
	}
	free(files);
	return ok;
}
