/*
 * subscribe.c: double opt-in subscriptions (subscribe.h).
 */
#include <stdlib.h>

#include "reporters/crypto.h"
#include "reporters/report.h"
#include "reporters/subscribe.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

/* A refusal answered from the loop. */
struct refusal {
	struct problem *p;
	store_text_cb cb;
	void *arg;
};

static void
refusal_answer(void *arg)
{
	struct refusal *r = arg;

	r->cb(NULL, r->p, r->arg);
	problem_free(r->p);
	free(r);
}

void
subscribe_ask(struct event_base *base, struct store *s,
	      const struct settings *set, const char *base_url, json_t *sub,
	      const char *client, store_text_cb cb, void *arg)
{
	struct report_config cfg = {base_url, set->mail_from, NULL};
	struct store_subscribe ss;
	json_t *faults;
	char *token, *hash, *link, *subject, *message, *text;

	if ((faults = report_subscription_check(sub)) != NULL) {
		struct refusal *r = xmalloc(sizeof *r);

		r->p = problem_new(
			PROBLEM_INVALID, faults, "%s",
			json_array_size(faults) == 1
				? json_string_value(json_array_get(faults, 0))
				: "a subscription with faults");
		r->cb = cb;
		r->arg = arg;
		defer(base, refusal_answer, r);
		return;
	}
	token = crypto_token();
	hash = crypto_sha256(token);
	link = xasprintf("%s/subscriptions/confirm?t=%s", base_url, token);
	message = report_confirmation(&cfg, sub, link, &subject);
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
