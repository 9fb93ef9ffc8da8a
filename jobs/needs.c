/*
 * needs.c: a job's needs and a box's facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jobs/catalog.h"
#include "jobs/needs.h"
#include "jobs/sysctl.h"
#include "jobs/unit.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

bool
needs_parse_disk(const char *spec, struct needs_disk *d)
{
	char sizebuf[32] = "", *end;

	memset(d, 0, sizeof *d);
	d->n = strtoul(spec, &end, 10);
	if (end == spec || d->n == 0 ||
	    sscanf(end, "%15[A-Z]_%31s", d->kind, sizebuf) < 1)
		return false;
	if (sizebuf[0] != '\0' && unit_size(sizebuf, &d->size) != NULL)
		return false;
	if (strcmp(d->kind, "HDD") == 0 || strcmp(d->kind, "SSD") == 0)
		return sizebuf[0] == '\0';
	return (strcmp(d->kind, "BRD") == 0 || strcmp(d->kind, "LOOP") == 0 ||
		strcmp(d->kind, "FILE") == 0) &&
	       d->size > 0;
}

char *
needs_value(const struct node *job, const char *program)
{
	const struct node *v = node_get(job, program);

	if (v != NULL && v->kind == NODE_MAP)
		v = node_get(v, program);
	return v != NULL && v->kind == NODE_SCALAR ? node_to_s(v) : NULL;
}

json_t *
needs_of_job(const struct node *job)
{
	json_t *n = json_object();
	char *disk = needs_value(job, "disk"), *fs = needs_value(job, "fs");
	char *fs2 = needs_value(job, "fs2"), *md = needs_value(job, "md");
	struct needs_disk d;

	if (disk != NULL && needs_parse_disk(disk, &d)) {
		if (strcmp(d.kind, "BRD") == 0 || strcmp(d.kind, "LOOP") == 0)
			json_object_set_new(
				n, "ram",
				json_integer((json_int_t)(d.n * d.size)));
		else if (strcmp(d.kind, "HDD") == 0)
			json_object_set_new(n, "hdd",
					    json_integer((json_int_t)d.n));
		else if (strcmp(d.kind, "SSD") == 0)
			json_object_set_new(n, "ssd",
					    json_integer((json_int_t)d.n));
	}
	if (fs != NULL && fs[0] != '\0')
		json_object_set_new(n, "fs", json_string(fs));
	if (fs2 != NULL && fs2[0] != '\0')
		json_object_set_new(n, "fs2", json_true());
	if (md != NULL && md[0] != '\0' && strcasecmp(md, "JBOD") != 0)
		json_object_set_new(n, "md", json_true());
	free(disk);
	free(fs);
	free(fs2);
	free(md);
	return n;
}

/* The reason robot cannot run a program's value, or NULL. */
static char *
program_unrunnable(const char *key, const struct node *v)
{
	const struct catalog_program *p = catalog_program(key);

	if (v->kind == NODE_NULL && p != NULL && p->kind != CATALOG_WORKLOAD)
		return NULL; /* "fs2:" without a value: without it */
	if (p != NULL && p->kind != CATALOG_MONITOR && !p->runs)
		return xasprintf("%s: %s", key, p->note);
	if (p == NULL && v->kind == NODE_MAP && catalog_lkp_known(key))
		return xasprintf("%s: robot does not run LKP's %s", key, key);
	return NULL;
}

char *
needs_unrunnable(const struct node *job)
{
	const struct node *sysctl = node_get(job, "sysctl");
	char *disk = needs_value(job, "disk"), *why = NULL;
	size_t roles = 0;

	for (size_t i = 0; i < job->npairs; i++)
		if (catalog_role_section(job->pairs[i].key))
			roles++;
	if (roles > 0) {
		free(disk);
		return xasprintf("%s need%s a box for each role, which robot "
				 "does not schedule yet",
				 roles > 1 ? "its server and client roles"
					   : "its role",
				 roles > 1 ? "" : "s");
	}
	if (disk != NULL) {
		size_t n = strspn(disk, "0123456789");

		if (n > 0 && strcasecmp(disk + n, "pmem") == 0)
			why = xstrdup("disk: this lab has no pmem disks");
		free(disk);
		if (why != NULL)
			return why;
	}
	for (size_t i = 0; i < job->npairs && why == NULL; i++)
		why = program_unrunnable(job->pairs[i].key,
					 job->pairs[i].value);
	for (size_t i = 0; why == NULL && sysctl != NULL &&
			   sysctl->kind == NODE_MAP && i < sysctl->npairs;
	     i++) {
		const char *k = sysctl->pairs[i].key;

		if (!sysctl_applies(k))
			why = xasprintf("sysctl: robot-box sets only the vm.* "
					"tunables it restores, not %s "
					"(/proc/sys/%s)",
					k,
					sysctl_path(k) ? sysctl_path(k) : "?");
	}
	return why;
}
