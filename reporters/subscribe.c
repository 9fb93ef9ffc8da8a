/*
 * subscribe.c: double opt-in subscriptions (subscribe.h): a subscription
 * checked, its confirmation mail, and its way through the store.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reporters/crypto.h"
#include "reporters/mail.h"
#include "reporters/report.h"
#include "reporters/subscribe.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

void
subscribe_ask(struct event_base *base, struct store *s,
	      const struct settings *set, const char *base_url, json_t *sub,
	      const char *client, store_text_cb cb, void *arg)
{
	struct report_config cfg = {base_url, set->mail_from, NULL};
	struct store_subscribe ss;
	json_t *faults;
	char *token, *hash, *link, *subject, *message, *text;

	if ((faults = subscribe_check(sub)) != NULL) {
		defer_problem(
			base,
			problem_new(PROBLEM_INVALID, faults, "%s",
				    json_array_size(faults) == 1
					    ? json_string_value(
						      json_array_get(faults, 0))
					    : "a subscription with faults"),
			cb, arg);
		return;
	}
	token = crypto_token();
	hash = crypto_sha256(token);
	link = xasprintf("%s/subscriptions/confirm?t=%s", base_url, token);
	message = subscribe_confirmation(&cfg, sub, link, &subject);
	text = rjson_dumps(sub, JSON_COMPACT);
	ss = (struct store_subscribe){text, hash, subject, message, client};
	log_info("subscription asked for %s", rjson_get_str(sub, "email"));
	store_subscribe(s, &ss, cb, arg);
	free(token);
	free(hash);
	free(link);
	free(subject);
	free(message);
	free(text);
}

void
subscribe_confirm(struct store *s, const char *token, store_text_cb cb,
		  void *arg)
{
	char *hash = crypto_sha256(token);

	store_subscription_confirm(s, hash, cb, arg);
	free(hash);
}

void
subscribe_end(struct store *s, const char *token, store_text_cb cb, void *arg)
{
	store_unsubscribe(s, token, cb, arg);
}

char *
subscribe_confirmation(const struct report_config *cfg, json_t *sub,
		       const char *link, char **subject)
{
	struct buf b;
	bool regressions = !json_is_false(json_object_get(sub, "regressions"));
	bool improvements = json_is_true(json_object_get(sub, "improvements"));
	struct buf what;
	size_t col = 0;

	/* Nothing the asker chose but the address (checked) and which
	 * reports: a mail to anyone must carry no text of a stranger's
	 * (the filters are on the link's page). */
	*subject = xstrdup("[robot] confirm your subscription to robot's "
			   "reports");
	buf_init(&what);
	buf_addf(&what,
		 "someone, maybe you, asked robot (%s) to mail %s its "
		 "reports of ",
		 cfg->public_url, rjson_get_str(sub, "email"));
	buf_addf(&what, "%s%s%s", regressions ? "regressions" : "",
		 regressions && improvements ? " and " : "",
		 improvements ? "improvements" : "");
	buf_addc(&what, '\0');
	buf_init(&b);
	buf_adds(&b, "Hello,\n\n");
	report_wrap(&b, what.data, &col, 0);
	buf_release(&what);
	buf_adds(&b, ".\n\nTo confirm, open this link within a week:\n\n  ");
	buf_adds(&b, link);
	buf_adds(&b, "\n\nIf you did not ask for this, do nothing: robot "
		     "sends no other mail to an\naddress before it is "
		     "confirmed.\n");
	return buf_detach(&b);
}

/* A fault for each member a subscription does not have. */
static void
unknown_members(json_t *sub, json_t *faults)
{
	static const char *const known[] = {
		"email",       "tree",         "branch",
		"testcase",    "metric",       "min_change",
		"regressions", "improvements", NULL};
	const char *key;
	json_t *v;

	json_object_foreach(sub, key, v)
	{
		bool ok = false;

		for (size_t i = 0; known[i] != NULL; i++)
			ok = ok || strcmp(key, known[i]) == 0;
		if (!ok) {
			char *q = str_printable(key, strlen(key), 40);

			json_array_append_new(
				faults, json_sprintf("unknown member '%s' (a "
						     "subscription has email, "
						     "tree, branch, testcase, "
						     "metric, min_change, "
						     "regressions, "
						     "improvements)",
						     q));
			free(q);
		}
	}
}

/* The address: checked, and made lowercase. */
static void
check_email(json_t *sub, json_t *faults)
{
	const char *e = rjson_get_str(sub, "email");

	if (e == NULL)
		json_array_append_new(faults,
				      json_string("email is the address to "
						  "mail, a string"));
	else if (mail_address_check(e) != NULL)
		json_array_append_new(
			faults,
			json_sprintf("email: %s", mail_address_check(e)));
	else {
		char *l = xstrdup(e);

		for (char *c = l; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		json_object_set_new(sub, "email", json_string(l));
		free(l);
	}
}

json_t *
subscribe_check(json_t *sub)
{
	static const char *const globs[] = {"tree", "branch", "testcase",
					    "metric", NULL};
	json_t *faults = json_array(), *v;

	if (!json_is_object(sub)) {
		json_array_append_new(faults,
				      json_string("the body is a JSON object"));
		return faults;
	}
	unknown_members(sub, faults);
	check_email(sub, faults);
	for (size_t i = 0; globs[i] != NULL; i++) {
		const char *g;
		bool ok = true;

		v = json_object_get(sub, globs[i]);
		if (v == NULL || json_is_null(v))
			continue;
		g = json_string_value(v);
		for (const char *c = g; ok && c != NULL && *c; c++)
			ok = *c > 0x20 && *c < 0x7f;
		if (g == NULL || !ok || strlen(g) == 0 || strlen(g) > 200)
			json_array_append_new(
				faults, json_sprintf("%s is a glob of 1 to 200 "
						     "printable characters "
						     "without spaces",
						     globs[i]));
	}
	v = json_object_get(sub, "min_change");
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		char *end;
		double d = strtod(t, &end);

		if (end != t && (strcmp(end, "%") == 0 || *end == '\0'))
			json_object_set_new(sub, "min_change", json_real(d));
		v = json_object_get(sub, "min_change");
	}
	if (v != NULL && !json_is_null(v) &&
	    (!json_is_number(v) || !(json_number_value(v) >= 0) ||
	     json_number_value(v) > 10000))
		json_array_append_new(faults,
				      json_string("min_change is a percentage "
						  "from 0 to 10000: 5 or "
						  "\"5%\""));
	for (int i = 0; i < 2; i++) {
		const char *k = i == 0 ? "regressions" : "improvements";

		v = json_object_get(sub, k);
		if (v != NULL && !json_is_boolean(v))
			json_array_append_new(
				faults, json_sprintf("%s is true or false", k));
	}
	if (json_is_false(json_object_get(sub, "regressions")) &&
	    !json_is_true(json_object_get(sub, "improvements")))
		json_array_append_new(faults,
				      json_string("a subscription to neither "
						  "regressions nor "
						  "improvements gets nothing"));
	if (json_array_size(faults) == 0) {
		json_decref(faults);
		return NULL;
	}
	return faults;
}
