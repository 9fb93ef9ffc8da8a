/*
 * unit.c: LKP's units.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/unit.h"
#include "robot/core/banned.h"

/*
 * Parses the leading decimal number of s ("12", "1.5") into *v and sets
 * *rest to what follows.  Returns a reason on failure.
 */
static const char *
leading_number(const char *s, double *v, const char **rest, bool *whole)
{
	const char *p = s;
	char *end;

	if (*p == '-')
		return "must be more than zero";
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return "does not start with a number";
	*whole = true;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		*whole = false;
		p++;
		if (!isdigit((unsigned char)*p))
			return "has a malformed number";
		while (isdigit((unsigned char)*p))
			p++;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end != p || !isfinite(*v))
		return "is out of range";
	*rest = p;
	return NULL;
}

const char *
unit_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGTPE";
	const char *rest, *err, *u;
	double v, mult = 1;
	bool whole;

	if ((err = leading_number(s, &v, &rest, &whole)) != NULL)
		return err;
	if (*rest != '\0' &&
	    (u = strchr(units, toupper((unsigned char)*rest))) != NULL) {
		mult = ldexp(1.0, 10 * (int)(u - units + 1));
		rest++;
		if (*rest == 'i')
			rest++;
		if (*rest == 'B' || *rest == 'b')
			rest++;
	} else if (*rest == 'B' || *rest == 'b') {
		rest++;
	}
	if (*rest != '\0')
		return "has an unknown unit (sizes are like 9B, 4K, 60G)";
	v *= mult;
	if (v == 0)
		return "must be more than zero";
	if (v >= 18446744073709551616.0)
		return "is too large";
	if (v != floor(v))
		return "is not a whole number of bytes";
	*bytes = (uint64_t)v;
	return NULL;
}

const char *
unit_count(const char *s, const char *const *suffixes, uint64_t *n,
	   const char **suffix_used)
{
	const char *rest, *err;
	double v;
	bool whole;

	if ((err = leading_number(s, &v, &rest, &whole)) != NULL)
		return err;
	if (suffix_used != NULL)
		*suffix_used = "";
	if (*rest != '\0') {
		size_t i;

		for (i = 0; suffixes != NULL && suffixes[i] != NULL; i++)
			if (strcmp(rest, suffixes[i]) == 0)
				break;
		if (suffixes == NULL || suffixes[i] == NULL)
			return "has an unknown unit";
		if (suffix_used != NULL)
			*suffix_used = suffixes[i];
	}
	if (!whole)
		return "is not a whole number";
	if (v == 0)
		return "must be more than zero";
	if (v > 1e15)
		return "is too large";
	*n = (uint64_t)v;
	return NULL;
}

const char *
unit_duration(const char *s, double *seconds)
{
	const char *rest, *err;
	double v, mult = 1;
	bool whole;

	if ((err = leading_number(s, &v, &rest, &whole)) != NULL)
		return err;
	if (strcmp(rest, "") == 0 || strcmp(rest, "s") == 0)
		mult = 1;
	else if (strcmp(rest, "m") == 0)
		mult = 60;
	else if (strcmp(rest, "h") == 0)
		mult = 3600;
	else if (strcmp(rest, "d") == 0)
		mult = 86400;
	else
		return "has an unknown unit (durations are like 30s, 5m, 1h)";
	if (v == 0)
		return "must be more than zero";
	if (v * mult > 366 * 86400.0)
		return "is longer than a year";
	*seconds = v * mult;
	return NULL;
}

const char *
unit_uint_zero(const char *s, uint64_t *n)
{
	const char *p = s;
	char *end;

	if (*p == '-')
		return "must not be negative";
	if (!isdigit((unsigned char)*p))
		return "is not a whole number";
	errno = 0;
	*n = strtoull(p, &end, 10);
	if (errno != 0)
		return "is too large";
	if (*end != '\0')
		return "is not a whole number";
	return NULL;
}

void
unit_format_size(uint64_t bytes, char *out, int outlen)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (bytes != 0 && bytes % 1024 == 0 && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, (size_t)outlen, "%lluB",
			 (unsigned long long)bytes);
	else
		snprintf(out, (size_t)outlen, "%llu%c",
			 (unsigned long long)bytes, units[u]);
}
