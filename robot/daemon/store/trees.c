/*
 * trees.c: the store's trees (trees.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/trees.h"
#include "robot/core/banned.h"

void
store_tree_claim_free(struct store_tree_claim *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nbranches; i++)
		free(c->branches[i]);
	for (size_t i = 0; i < c->nheads; i++) {
		free(c->heads[i].branch);
		free(c->heads[i].sha);
	}
	free(c->branches);
	free(c->heads);
	free(c->name);
	free(c->url);
	free(c->base_ref);
	free(c);
}

const char *
store_tree_claim_head(const struct store_tree_claim *c, const char *branch)
{
	for (size_t i = 0; i < c->nheads; i++)
		if (strcmp(c->heads[i].branch, branch) == 0)
			return c->heads[i].sha;
	return NULL;
}

/* robot_tree_claim()'s JSON, decoded; NULL when it is not one. */
static void *
tree_claim_decode(const char *text)
{
	json_t *j = rjson_loads(text, NULL), *branches, *heads, *v;
	struct store_tree_claim *c;
	const char *key;
	size_t i;

	if (j == NULL || rjson_get_str(j, "name") == NULL ||
	    rjson_get_str(j, "url") == NULL ||
	    rjson_get_str(j, "base_ref") == NULL) {
		json_decref(j);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->name = xstrdup(rjson_get_str(j, "name"));
	c->url = xstrdup(rjson_get_str(j, "url"));
	c->base_ref = xstrdup(rjson_get_str(j, "base_ref"));
	c->poll = (int)json_integer_value(json_object_get(j, "poll"));
	c->failures = (int)json_integer_value(json_object_get(j, "failures"));
	branches = json_object_get(j, "branches");
	c->branches =
		xcalloc(json_array_size(branches) + 1, sizeof *c->branches);
	json_array_foreach(branches, i, v)
	{
		if (json_is_string(v))
			c->branches[c->nbranches++] =
				xstrdup(json_string_value(v));
	}
	heads = json_object_get(j, "heads");
	c->heads = xcalloc(json_object_size(heads) + 1, sizeof *c->heads);
	json_object_foreach(heads, key, v)
	{
		if (!json_is_string(v))
			continue;
		c->heads[c->nheads].branch = xstrdup(key);
		c->heads[c->nheads++].sha = xstrdup(json_string_value(v));
	}
	json_decref(j);
	return c;
}

static void
read_tree_claim(const struct db_result *r, const struct problem *p, store_fn cb,
		void *arg)
{
	void *c;
	struct problem *q = store_decode(r, p, tree_claim_decode, &c);

	((store_tree_claim_cb)cb)(c, q, arg);
	store_decoded_free(q, p);
}

static const struct store_stmt claim = {"SELECT robot_tree_claim($1::int)", "i",
					read_tree_claim, false};

void
store_tree_claim(struct store *s, int seconds, store_tree_claim_cb cb,
		 void *arg)
{
	store_call(s, &claim, STORE_FN(cb), arg, STORE_INT(seconds));
}

static const struct store_stmt failed = {
	"SELECT robot_tree_failed($1, $2, $3::int)", "ssi", store_read_text,
	false};

void
store_tree_failed(struct store *s, const char *name, const char *error,
		  int retry_in, store_text_cb cb, void *arg)
{
	store_call(s, &failed, STORE_FN(cb), arg, STORE_TEXT(name),
		   STORE_TEXT(error), STORE_INT(retry_in));
}

void
store_tree_fetched_free(struct store_tree_fetched *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->njobs; i++) {
		free(f->jobs[i].name);
		free(f->jobs[i].text);
	}
	for (size_t i = 0; i < f->ngroups; i++)
		free(f->groups[i]);
	for (size_t i = 0; i < f->nheads; i++) {
		free(f->heads[i].branch);
		free(f->heads[i].sha);
		free(f->heads[i].base);
	}
	free(f->jobs);
	free(f->groups);
	free(f->heads);
	free(f);
}

/* robot_tree_fetched()'s JSON, decoded (what cannot be is left out). */
static struct store_tree_fetched *
tree_fetched_decode(const char *text)
{
	json_t *j = rjson_loads(text, NULL), *a, *v;
	struct store_tree_fetched *f = xcalloc(1, sizeof *f);
	size_t i;

	f->runs = (int)json_integer_value(json_object_get(j, "runs"));
	f->max_runs = (int)json_integer_value(json_object_get(j, "max_runs"));
	a = json_object_get(j, "jobs");
	f->jobs = xcalloc(json_array_size(a) + 1, sizeof *f->jobs);
	json_array_foreach(a, i, v)
	{
		if (rjson_get_str(v, "name") == NULL ||
		    rjson_get_str(v, "text") == NULL)
			continue;
		f->jobs[f->njobs].name = xstrdup(rjson_get_str(v, "name"));
		f->jobs[f->njobs++].text = xstrdup(rjson_get_str(v, "text"));
	}
	a = json_object_get(j, "tbox_groups");
	f->groups = xcalloc(json_array_size(a) + 1, sizeof *f->groups);
	json_array_foreach(a, i, v)
	{
		if (json_is_string(v))
			f->groups[f->ngroups++] = xstrdup(json_string_value(v));
	}
	a = json_object_get(j, "heads");
	f->heads = xcalloc(json_array_size(a) + 1, sizeof *f->heads);
	json_array_foreach(a, i, v)
	{
		struct store_tree_new_head *h = &f->heads[f->nheads];
		const char *base = rjson_get_str(v, "base");

		if (rjson_get_str(v, "branch") == NULL ||
		    rjson_get_str(v, "sha") == NULL)
			continue;
		h->branch = xstrdup(rjson_get_str(v, "branch"));
		h->sha = xstrdup(rjson_get_str(v, "sha"));
		h->base = base ? xstrdup(base) : NULL;
		f->nheads++;
	}
	json_decref(j);
	return f;
}

static void
read_tree_fetched(const struct db_result *r, const struct problem *p,
		  store_fn cb, void *arg)
{
	const char *text =
		p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;

	((store_tree_fetched_cb)cb)(text ? tree_fetched_decode(text) : NULL, p,
				    arg);
}

static const struct store_stmt fetched = {
	"SELECT robot_tree_fetched($1, $2::json, $3::json)", "sss",
	read_tree_fetched, false};

void
store_tree_fetched(struct store *s, const char *name, const char *heads,
		   const char *commits, store_tree_fetched_cb cb, void *arg)
{
	store_call(s, &fetched, STORE_FN(cb), arg, STORE_TEXT(name),
		   STORE_TEXT(heads), STORE_TEXT(commits));
}

static const struct store_stmt one = {
	"SELECT row_to_json(x) FROM (SELECT t.name, "
	"robot_redact(t.url) AS url, "
	"t.branches, t.base_ref, t.jobs, t.tbox_groups, t.runs, "
	"t.max_runs, t.poll, t.mail_author, t.bisect, t.fetched, "
	"robot_redact(t.fetch_error) AS fetch_error, t.next_fetch, "
	"(SELECT coalesce(json_agg(json_build_object('branch', "
	"h.branch, 'sha', h.sha, 'base', h.base, 'updated', "
	"h.updated) ORDER BY h.branch), '[]') FROM tree_heads h "
	"WHERE h.tree = t.name) AS heads, (SELECT count(*) FROM "
	"tree_commits c WHERE c.tree = t.name) AS commits FROM trees "
	"t WHERE t.name = $1) x",
	"s", store_read_text, false};

static const struct store_stmt all = {
	"SELECT json_build_object('trees', coalesce(json_agg(x ORDER "
	"BY x.name), '[]')) FROM (SELECT t.name, "
	"robot_redact(t.url) AS url, t.branches, "
	"t.base_ref, t.tbox_groups, t.runs, t.max_runs, t.poll, "
	"t.fetched, robot_redact(t.fetch_error) AS fetch_error, "
	"(SELECT coalesce(json_agg("
	"json_build_object('branch', h.branch, 'sha', h.sha, 'base', "
	"h.base) ORDER BY h.branch), '[]') FROM tree_heads h WHERE "
	"h.tree = t.name) AS heads FROM trees t) x",
	"", store_read_text, false, .shared = true};

void
store_trees(struct store *s, const char *name, store_text_cb cb, void *arg)
{
	if (name != NULL)
		store_call(s, &one, STORE_FN(cb), arg, STORE_TEXT(name));
	else
		store_call(s, &all, STORE_FN(cb), arg);
}

static const struct view_field tree_head_fields[] = {
	VIEW_F(store_tree_page_head, "branch", VIEW_STR, branch),
	VIEW_F(store_tree_page_head, "sha", VIEW_STR, sha),
	VIEW_F(store_tree_page_head, "base", VIEW_STR, base),
	VIEW_F(store_tree_page_head, "updated", VIEW_STR, updated),
};
static const struct view_type tree_head =
	VIEW_TYPE("head", struct store_tree_page_head, tree_head_fields);
static const struct view_field tree_fields[] = {
	VIEW_F(store_tree, "name", VIEW_STR, name),
	VIEW_F(store_tree, "url", VIEW_STR, url),
	VIEW_F(store_tree, "base_ref", VIEW_STR, base_ref),
	VIEW_F(store_tree, "fetched", VIEW_STR, fetched),
	VIEW_F(store_tree, "fetch_error", VIEW_STR, fetch_error),
	VIEW_F(store_tree, "runs", VIEW_INT, runs),
	VIEW_F(store_tree, "max_runs", VIEW_INT, max_runs),
	VIEW_F(store_tree, "commits", VIEW_INT, commits),
	VIEW_A(store_tree, "heads", tree_head, heads, nheads),
};
const struct view_type store_tree_view =
	VIEW_TYPE("tree", struct store_tree, tree_fields);

static const struct store_stmt add = {"SELECT robot_tree_add($1::json)", "s",
				      store_read_text, false};
static const struct store_stmt set = {"SELECT robot_tree_set($1::json)", "s",
				      store_read_text, false};

void
store_tree_put(struct store *s, const char *json, bool replace,
	       store_text_cb cb, void *arg)
{
	store_call(s, replace ? &set : &add, STORE_FN(cb), arg,
		   STORE_TEXT(json));
}

static const struct store_stmt removed = {
	"DELETE FROM trees WHERE name = $1 RETURNING "
	"json_build_object('removed', name)",
	"s", store_read_text, false};

void
store_tree_remove(struct store *s, const char *name, store_text_cb cb,
		  void *arg)
{
	store_call(s, &removed, STORE_FN(cb), arg, STORE_TEXT(name));
}
