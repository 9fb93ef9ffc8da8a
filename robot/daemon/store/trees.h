/*
 * trees.h: the store's trees (sql/functions/trees.sql): a tree claimed
 * for a fetch and the fetch's end, a head's runs queued, and the trees
 * as the API lists and changes them.
 */
#ifndef ROBOT_STORE_TREES_H
#define ROBOT_STORE_TREES_H

#include "robot/core/view.h"
#include "robot/daemon/store.h"

struct store_tree_head {
	char *branch, *sha;
};

/* A tree claimed for a fetch (robot_tree_claim()), decoded. */
struct store_tree_claim {
	char *name, *url;
	char *base_ref;  /* a ref, or a glob of tags */
	char **branches; /* globs of watched branches */
	size_t nbranches;
	struct store_tree_head *heads; /* the heads known */
	size_t nheads;
	int poll;     /* seconds between fetches */
	int failures; /* fetches that failed in a row */
};
/* c is the callback's to keep (store_tree_claim_free()); NULL with no
 * problem when no tree is due. */
typedef void (*store_tree_claim_cb)(struct store_tree_claim *c,
				    const struct problem *p, void *arg);
void store_tree_claim_free(struct store_tree_claim *c);
/* The known head of branch, or NULL. */
const char *store_tree_claim_head(const struct store_tree_claim *c,
				  const char *branch);
/* The next tree due for a fetch, claimed for seconds. */
void store_tree_claim(struct store *s, int seconds, store_tree_claim_cb cb,
		      void *arg);
/* A fetch failed: the error kept, the next try in retry_in seconds;
 * {error, retry_in}. */
void store_tree_failed(struct store *s, const char *name, const char *error,
		       int retry_in, store_text_cb cb, void *arg);
/* What to test after a fetch (robot_tree_fetched()), decoded. */
struct store_tree_job {
	char *name, *text; /* a job file */
};
struct store_tree_new_head {
	char *branch, *sha;
	char *base; /* its merge-base with the base ref, or NULL */
};
struct store_tree_fetched {
	struct store_tree_job *jobs;
	size_t njobs;
	char **groups; /* tbox_groups */
	size_t ngroups;
	int runs, max_runs;                /* per side */
	struct store_tree_new_head *heads; /* the new ones, newest first */
	size_t nheads;
};
/* f is the callback's to keep (store_tree_fetched_free()); NULL with no
 * problem when the tree was removed meanwhile. */
typedef void (*store_tree_fetched_cb)(struct store_tree_fetched *f,
				      const struct problem *p, void *arg);
void store_tree_fetched_free(struct store_tree_fetched *f);
/* A fetch went well: heads ([{branch, sha, base, forced}]) and commits
 * ([{sha, parents, author, date, subject}]) recorded; what to test. */
void store_tree_fetched(struct store *s, const char *name, const char *heads,
			const char *commits, store_tree_fetched_cb cb,
			void *arg);

/* {"trees": [...]} with heads and the last fetch, or one tree (NULL when
 * there is none; decoded by store_tree_view). */
void store_trees(struct store *s, const char *name, store_text_cb cb,
		 void *arg);
struct store_tree_page_head {
	const char *branch, *sha, *base, *updated;
};
/* One tree, as its page reads it. */
struct store_tree {
	const char *name, *url, *base_ref, *fetched, *fetch_error;
	long long runs, max_runs, commits;
	struct store_tree_page_head *heads;
	size_t nheads;
};
extern const struct view_type store_tree_view;
/* Adds (or, with replace, changes) a tree from its JSON (checked by
 * trees.c): the tree, or 409 when it exists (404 when it does not). */
void store_tree_put(struct store *s, const char *json, bool replace,
		    store_text_cb cb, void *arg);
/* Removes a tree, its mirror's records and heads: its name, or NULL. */
void store_tree_remove(struct store *s, const char *name, store_text_cb cb,
		       void *arg);

#endif
