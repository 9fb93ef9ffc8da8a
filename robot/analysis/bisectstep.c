/*
 * bisectstep.c: a midpoint's class, and the next midpoint.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/bisectstep.h"
#include "robot/core/buf.h"
#include "robot/core/banned.h"

static bool
is(const char *v, const char *name)
{
	return v != NULL && strcmp(v, name) == 0;
}

static void
change_text(char *buf, size_t len, const struct bisect_side *s)
{
	if (isfinite(s->change_pct))
		snprintf(buf, len, "%+.1f%%", s->change_pct);
	else
		snprintf(buf, len, "?");
}

const char *
bisect_changed(const char *change)
{
	return is(change, "improvement") ? "improved" : "regressed";
}

enum bisect_class
bisect_classify(const struct bisect_side *good, const struct bisect_side *bad,
		const char *change, char *reason, size_t len)
{
	bool gr = is(good->verdict, change);
	bool br = is(bad->verdict, change);
	char gc[32], bc[32];
	int runs = good->runs < bad->runs ? good->runs : bad->runs;

	change_text(gc, sizeof gc, good);
	change_text(bc, sizeof bc, bad);
	if (is(good->pair_verdict, "failed") ||
	    is(bad->pair_verdict, "failed")) {
		snprintf(reason, len, "no run of it ended ok");
		return BISECT_SKIP;
	}
	if (good->verdict == NULL || bad->verdict == NULL) {
		snprintf(reason, len, "the KPI was not measured at it");
		return BISECT_SKIP;
	}
	if (gr && !br) {
		snprintf(reason, len,
			 "like bad: %s from good, %s (%s) to bad, %d runs", gc,
			 bc, bad->verdict, runs);
		return BISECT_BAD;
	}
	if (br && !gr) {
		snprintf(reason, len,
			 "like good: %s (%s) from good, %s to bad, %d runs", gc,
			 good->verdict, bc, runs);
		return BISECT_GOOD;
	}
	if (gr && br) {
		bool nearer_bad =
			fabs(good->change_pct) >= fabs(bad->change_pct);

		snprintf(reason, len,
			 "%s from good (%s) and to bad (%s): nearer %s, "
			 "%d runs",
			 bisect_changed(change), gc, bc,
			 nearer_bad ? "bad" : "good", runs);
		return nearer_bad ? BISECT_BAD : BISECT_GOOD;
	}
	if (is(good->verdict, "unchanged") && !is(bad->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like good: unchanged from good (%s), %s (%s) to bad, "
			 "%d runs",
			 gc, bc, bad->verdict, runs);
		return BISECT_GOOD;
	}
	if (is(bad->verdict, "unchanged") && !is(good->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like bad: %s (%s) from good, unchanged to bad (%s), "
			 "%d runs",
			 gc, good->verdict, bc, runs);
		return BISECT_BAD;
	}
	if (is(good->verdict, "unchanged") && is(bad->verdict, "unchanged")) {
		snprintf(reason, len,
			 "like both ends: unchanged from good (%s) and to bad "
			 "(%s), %d runs",
			 gc, bc, runs);
		return BISECT_SKIP;
	}
	snprintf(reason, len,
		 "like neither end: %s (%s) from good, %s (%s) "
		 "to bad, %d runs",
		 gc, good->verdict, bc, bad->verdict, runs);
	return BISECT_UNSURE;
}

const char *
bisect_class_name(enum bisect_class c)
{
	switch (c) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_SKIP:
		return "skip";
	case BISECT_UNSURE:
		return "unsure";
	}
	return "?";
}

/* Whether line starts with a SHA followed by a space: its length. */
static bool
sha_at(const char *s)
{
	for (int i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[40] == ' ' || s[40] == '\n' || s[40] == '\0';
}

static bool
listed(const char *sha, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(list[i], sha, 40) == 0)
			return true;
	return false;
}

bool
bisect_pick(const char *out, const char *bad, const char *const *skipped,
	    size_t nskipped, struct bisect_pick *p)
{
	struct buf left;
	bool bad_seen = false;

	memset(p, 0, sizeof *p);
	buf_init(&left);
	for (const char *l = out; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n == 0) {
			l += 1;
			continue;
		}
		if (!sha_at(l) || memchr(l, '(', n) == NULL) {
			buf_release(&left);
			return false;
		}
		p->candidates++;
		if (strncmp(l, bad, 40) == 0) {
			bad_seen = true;
			if (n > 81 && l[40] == ' ' && sha_at(l + 41))
				memcpy(p->parent, l + 41, 40);
		} else if (listed(l, skipped, nskipped)) {
			buf_addf(&left, "%s%.10s", left.len ? ", " : "", l);
		} else if (p->commit[0] == '\0') {
			memcpy(p->commit, l, 40);
		}
		l += n + (nl != NULL);
	}
	if (p->commit[0] != '\0') {
		p->next = BISECT_MID;
		memset(p->parent, 0, sizeof p->parent);
		buf_release(&left);
	} else if (left.len > 0) {
		p->next = BISECT_ALL_SKIPPED;
		buf_addf(&left, " or %.10s", bad);
		p->left = buf_detach(&left);
	} else if (bad_seen) {
		p->next = BISECT_FIRST_BAD;
		buf_release(&left);
	} else {
		p->next = BISECT_NONE;
		buf_release(&left);
	}
	return true;
}
