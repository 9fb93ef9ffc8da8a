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
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

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
		if (strcmp(str(o, "channel"), channel) == 0 &&
		    strcmp(str(o, "recipient"), recipient) == 0)
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

/* Whether subscription s wants finding f of tree. */
static bool
wants(json_t *s, const char *tree, json_t *f)
{
	const char *kind = str(f, "kind");
	char *tc = series_testcase(str(f, "series"));
	double change = num(f, "change_pct"), min = num(s, "min_change");
	bool ok;

	ok = json_is_true(json_object_get(s, strcmp(kind, "improvement") == 0
						     ? "improvements"
						     : "regressions")) &&
	     report_glob(str(s, "tree"), tree) &&
	     report_glob(str(s, "branch"), str(f, "branch")) &&
	     report_glob(str(s, "testcase"), tc) &&
	     report_glob(str(s, "metric"), str(f, "kpi")) &&
	     (!isfinite(min) || (isfinite(change) && fabs(change) >= min));
	free(tc);
	return ok;
}

/* A report's recipients: matching subscribers, the jobs' mail_to and
 * mail_cc and, where the tree allows it, the author of the commit at
 * fault (for regressions only), and the webhooks. */
json_t *
recipients_of(json_t *claim, const char *const *fixed)
{
	json_t *outbox = json_array(), *s, *f, *p;
	json_t *findings = json_object_get(claim, "findings");
	const char *tree = str(claim, "tree");
	bool regressed = false;
	size_t i, k;

	json_array_foreach(findings, i, f)
	{
		regressed =
			regressed || strcmp(str(f, "kind"), "regression") == 0;
	}
	json_array_foreach(json_object_get(claim, "subscribers"), i, s)
	{
		json_array_foreach(findings, k, f)
		{
			if (wants(s, tree, f)) {
				recipients_add(outbox, "mail", str(s, "email"));
				break;
			}
		}
	}
	json_array_foreach(json_object_get(claim, "pairs"), i, p)
	{
		json_t *job = json_object_get(json_object_get(p, "job"), "job");

		if (!regressed)
			break;
		outbox_job_mail(outbox, json_object_get(job, "mail_to"));
		outbox_job_mail(outbox, json_object_get(job, "mail_cc"));
	}
	/* The author of the commit at fault; a range has none. */
	if (regressed && json_is_true(json_object_get(claim, "culprit")) &&
	    json_is_true(json_object_get(json_object_get(claim, "tree_info"),
					 "mail_author"))) {
		const char *who =
			str(json_object_get(claim, "commit"), "author");
		char *a = mail_address_of(who != NULL ? who : "");

		if (a != NULL)
			recipients_add(outbox, "mail", a);
		free(a);
	}
	recipients_fixed(outbox, fixed);
	return outbox;
}
