/*
 * show.c: what several commands print: a bisection and its steps (robot bisect, robot bisections).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/show.h"
#include "robot/core/rjson.h"
#include "robot/core/banned.h"

long long
show_id(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* "b6aefd0a21 ("subject")" of a commit object {sha, subject}. */
void
show_commit(json_t *c)
{
	printf("%.10s", cli_shown(c, "sha"));
	if (rjson_get_str(c, "subject") != NULL)
		printf(" (\"%s\")", cli_shown(c, "subject"));
}

void
show_step(json_t *s)
{
	json_t *runs = json_object_get(s, "runs");

	printf("  %4lld  %-8s %.10s  %3lld ok %2lld failed %2lld waiting  "
	       "%-11s %s\n",
	       show_id(s, "n"), cli_shown(s, "kind"),
	       cli_shown(json_object_get(s, "commit"), "sha"),
	       show_id(runs, "ok"), show_id(runs, "failed"),
	       show_id(runs, "waiting"),
	       rjson_get_str(s, "verdict") ? cli_shown(s, "verdict")
					   : "(running)",
	       rjson_get_str(s, "reason") ? cli_shown(s, "reason") : "");
}

void
show_bisection(json_t *b)
{
	json_t *fb = json_object_get(b, "first_bad"), *s;
	size_t i;

	printf("bisection %lld (%s): %s in %s\n", show_id(b, "id"),
	       cli_shown(b, "state"),
	       rjson_get_str(b, "kpi") ? cli_shown(b, "kpi") : "its worst KPI",
	       cli_shown(b, "series"));
	printf("tree %s, good %.10s, bad %.10s", cli_shown(b, "tree"),
	       cli_shown(b, "good"), cli_shown(b, "bad"));
	if (json_is_integer(json_object_get(b, "regression")))
		printf(" (regression %lld)", show_id(b, "regression"));
	printf(", %lld runs queued\n", show_id(b, "runs_queued"));
	if (json_is_integer(json_object_get(b, "lead")))
		printf("follows bisection %lld (the same range on another "
		       "series): confirms its first bad commit against its "
		       "parent\n",
		       show_id(b, "lead"));
	if (json_is_object(fb)) {
		printf("first bad commit: ");
		show_commit(fb);
		if (rjson_get_str(fb, "author") != NULL)
			printf(" by %s", cli_shown(fb, "author"));
		printf("\n");
	}
	if (rjson_get_str(b, "reason") != NULL)
		printf("%s\n", cli_shown(b, "reason"));
	printf("  step  kind     commit      runs                        "
	       "verdict     why\n");
	json_array_foreach(json_object_get(b, "steps"), i, s) show_step(s);
}

void
show_bisections(json_t *j)
{
	json_t *list = json_object_get(j, "bisections"), *b;
	size_t i;

	if (json_array_size(list) == 0) {
		printf("no bisections\n");
		return;
	}
	printf("%-5s %-9s %5s %5s %5s  %-12s %s\n", "ID", "STATE", "STEPS",
	       "LEFT", "RUNS", "FIRST BAD", "KPI / SERIES");
	json_array_foreach(list, i, b)
	{
		json_t *fb = json_object_get(b, "first_bad");
		char left[16] = "-";

		if (strcmp(cli_shown(b, "state"), "running") == 0 &&
		    json_is_integer(json_object_get(b, "candidates")))
			snprintf(left, sizeof left, "%lld",
				 show_id(b, "candidates"));
		if (json_is_integer(json_object_get(b, "lead")))
			snprintf(left, sizeof left, "#%lld",
				 show_id(b, "lead"));
		printf("%-5lld %-9s %5lld %5s %5lld  %-12.10s %s %s\n",
		       show_id(b, "id"), cli_shown(b, "state"),
		       show_id(b, "steps"), left, show_id(b, "runs_queued"),
		       json_is_object(fb) ? cli_shown(fb, "sha") : "-",
		       rjson_get_str(b, "kpi") ? cli_shown(b, "kpi") : "-",
		       cli_shown(b, "series"));
	}
}
