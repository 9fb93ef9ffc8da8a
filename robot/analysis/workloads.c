/*
 * workloads.c: the table of workloads (workloads.h).
 */
#include <string.h>

#include "robot/analysis/workloads.h"
#include "robot/core/banned.h"

const struct workload_kind workload_kinds[] = {
	{"dd", "dd.", true, "dd.*.write_bytes_per_sec"},
	{"fsmark", "fsmark.", false, NULL},
	{"unlink", "unlink.", false, NULL},
	{NULL, NULL, false, NULL},
};

const struct workload_kind *
workload_of_metric(const char *name)
{
	for (const struct workload_kind *k = workload_kinds; k->name; k++)
		if (strncmp(name, k->prefix, strlen(k->prefix)) == 0)
			return k;
	return NULL;
}

const struct workload_kind *
workload_named(const char *name, size_t len)
{
	for (const struct workload_kind *k = workload_kinds; k->name; k++)
		if (strlen(k->name) == len && strncmp(k->name, name, len) == 0)
			return k;
	return NULL;
}
