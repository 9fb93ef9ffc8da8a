/*
 * lkpfloor.c: the table of LKP's floors, compiled on first use.  The
 * table is built in and checked by the tests, so a bad line is a bug.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/lkpfloor.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct lkpfloor_rule {
	regex_t re;
	double floor;
};

static struct lkpfloor_rule *rules;
static size_t nrules;
static bool loaded;

static void
lkpfloor_load(void)
{
	const char *p = lkpfloor_default_text;

	loaded = true;
	while (*p != '\0') {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n), *colon = strrchr(line, ':');

		p += n + (p[n] == '\n');
		if (line[0] == '#' || line[0] == '\0' || colon == NULL) {
			free(line);
			continue;
		}
		*colon = '\0';
		{
			char *anchored = xasprintf("^(%s)$", line);

			rules = xreallocarray(rules, nrules + 1, sizeof *rules);
			if (regcomp(&rules[nrules].re, anchored,
				    REG_EXTENDED | REG_NOSUB) != 0)
				fatalx("lkp-thresholds: bad pattern '%s'",
				       line);
			rules[nrules++].floor = strtod(colon + 1, NULL);
			free(anchored);
		}
		free(line);
	}
}

double
lkpfloor_of(const char *metric)
{
	if (!loaded)
		lkpfloor_load();
	for (size_t i = 0; i < nrules; i++)
		if (regexec(&rules[i].re, metric, 0, NULL, 0) == 0)
			return rules[i].floor;
	return 0;
}
