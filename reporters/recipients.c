/*
 * recipients.c: who gets a report (recipients.h).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reporters/mail.h"
#include "reporters/recipients.h"
#include "robot/analysis/series.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

bool
report_glob(const char *glob, const char *s)
{
	return glob == NULL || (s != NULL && fnmatch(glob, s, 0) == 0);
}

void
recipients_add(json_t *outbox, const char *channel, const char *recipient)
{
	json_t *o;
	size_t i;

	json_array_foreach(outbox, i, o)
	{
		if (strcmp(rjson_get_str(o, "channel"), channel) == 0 &&
		    strcmp(rjson_get_str(o, "recipient"), recipient) == 0)
			return;
	}
	json_array_append_new(outbox,
			      json_pack("{s:s, s:s}", "channel", channel,
					"recipient", recipient));
}

/* The recipients every report has (a webhook's URL, ...). */
void
recipients_fixed(json_t *outbox, const char *const *fixed)
{
	for (size_t i = 0;
	     fixed != NULL && fixed[i] != NULL && fixed[i + 1] != NULL; i += 2)
		recipients_add(outbox, fixed[i], fixed[i + 1]);
}

/* The addresses of a job's mail_to or mail_cc (a string, or a list). */
static void
outbox_job_mail(json_t *outbox, json_t *v)
{
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		char *a = mail_address_of(json_string_value(v));

		if (a != NULL)
			recipients_add(outbox, "mail", a);
		free(a);
		return;
	}
	json_array_foreach(v, i, x)
	{
		outbox_job_mail(outbox, x);
	}
}

/* Whether subscriber s wants finding f of tree. */
static bool
wants(const struct store_claim_subscriber *s, const char *tree,
      const struct store_claim_finding *f)
{
	char *tc = series_testcase(f->series != NULL ? f->series : "");
	double change = f->change_pct, min = s->min_change;
	bool ok;

	ok = (f->kind != NULL && strcmp(f->kind, "improvement") == 0
		      ? s->improvements
		      : s->regressions) &&
	     report_glob(s->tree, tree) && report_glob(s->branch, f->branch) &&
	     report_glob(s->testcase, tc) && report_glob(s->metric, f->kpi) &&
	     (!isfinite(min) || (isfinite(change) && fabs(change) >= min));
	free(tc);
	return ok;
}

/* A report's recipients: matching subscribers, the jobs' mail_to and
 * mail_cc and, where the tree allows it, the author of the commit at
 * fault (for regressions only), and the webhooks. */
json_t *
recipients_of(const struct store_claim *claim, const char *const *fixed)
{
	json_t *outbox = json_array();
	bool regressed = false;

	for (size_t i = 0; i < claim->nfindings; i++)
		regressed = regressed || (claim->findings[i].kind != NULL &&
					  strcmp(claim->findings[i].kind,
						 "regression") == 0);
	for (size_t i = 0; i < claim->nsubscribers; i++)
		for (size_t k = 0; k < claim->nfindings; k++)
			if (claim->subscribers[i].email != NULL &&
			    wants(&claim->subscribers[i], claim->tree,
				  &claim->findings[k])) {
				recipients_add(outbox, "mail",
					       claim->subscribers[i].email);
				break;
			}
	/* the atomic jobs' own (their files', the submitter's to say:
	 * read leniently) */
	for (size_t i = 0; regressed && i < claim->npairs; i++) {
		json_t *job = json_object_get(claim->pairs[i].job, "job");

		outbox_job_mail(outbox, json_object_get(job, "mail_to"));
		outbox_job_mail(outbox, json_object_get(job, "mail_cc"));
	}
	/* The author of the commit at fault; a range has none. */
	if (regressed && claim->culprit && claim->tree_info.mail_author) {
		/* The address as git read it; the first <...> of the
		 * author only for a commit fetched before it was kept
		 * (a name may hold a <...> of its own). */
		const char *who = claim->commit.email != NULL
					  ? claim->commit.email
					  : claim->commit.author;
		char *a = mail_address_of(who != NULL ? who : "");

		if (a != NULL)
			recipients_add(outbox, "mail", a);
		free(a);
	}
	recipients_fixed(outbox, fixed);
	return outbox;
}
