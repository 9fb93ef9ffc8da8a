/*
 * boxconf.c: the box configuration file.
 */
#include <sys/utsname.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/box/boxconf.h"
#include "jobs/catalog.h"
#include "jobs/unit.h"
#include "robot/core/docload.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static uint64_t
mem_total(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *fp = fopen("/proc/meminfo", "r");

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof line, fp) != NULL)
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return (uint64_t)kb * 1024;
}

static void
set_defaults(struct boxconf *c)
{
	char host[256] = "localhost";

	memset(c, 0, sizeof *c);
	gethostname(host, sizeof host - 1);
	for (char *p = host; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
		    *p != '.')
			*p = '_';
	c->name = xstrdup(host);
	c->tbox_group = xstrdup(host);
	c->workdir = xstrdup("/var/tmp/robot-box");
	c->perf = xstrdup("perf");
	c->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (c->cpus < 1)
		c->cpus = 1;
	c->memory = mem_total();
	c->ram_limit = c->memory / 2;
	c->timeout = 30 * 60;
	c->hook_timeout = 10 * 60;
	c->settle = 3;
}

static bool
get_str(const char *file, const struct node *n, const char *key,
	enum catalog_value kind, char **out, struct errlist *el)
{
	const struct node_pair *p = node_get_pair(n, key);
	char *msg;

	if (p == NULL || p->value->kind == NODE_NULL)
		return true;
	if ((msg = catalog_check(kind, NULL, p->value)) != NULL ||
	    p->value->kind != NODE_SCALAR) {
		errlist_error(el, file, p->line, "%s: %s", key,
			      msg ? msg : "is not a single value");
		free(msg);
		return false;
	}
	free(*out);
	*out = node_to_s(p->value);
	return true;
}

static void
get_duration(const char *file, const struct node *n, const char *key,
	     double *out, struct errlist *el)
{
	char *s = NULL;

	if (get_str(file, n, key, CV_DURATION, &s, el) && s != NULL)
		unit_duration(s, out);
	free(s);
}

/* settle: a duration, or 0 (or no) for none. */
static void
get_settle(const char *file, const struct node *n, double *out,
	   struct errlist *el)
{
	char *s = NULL;
	const char *why;

	if (!get_str(file, n, "settle", CV_ANY, &s, el) || s == NULL)
		return;
	if (strcmp(s, "0") == 0 || strcmp(s, "0s") == 0 || strcmp(s, "no") == 0)
		*out = 0;
	else if ((why = unit_duration(s, out)) != NULL)
		errlist_error(el, file, node_get_pair(n, "settle")->line,
			      "settle: '%s' %s, or 0 for no wait", s, why);
	free(s);
}

static void
get_yes_no(const char *file, const struct node *n, const char *key, bool *out,
	   struct errlist *el)
{
	static const char *const yes[] = {"yes", "y", "true", NULL};
	static const char *const no[] = {"no", "n", "false", NULL};
	char *s = NULL;
	size_t i;

	if (!get_str(file, n, key, CV_ANY, &s, el) || s == NULL)
		return;
	for (i = 0; yes[i] != NULL && strcmp(s, yes[i]) != 0; i++)
		;
	if (yes[i] != NULL) {
		*out = true;
	} else {
		for (i = 0; no[i] != NULL && strcmp(s, no[i]) != 0; i++)
			;
		if (no[i] != NULL)
			*out = false;
		else
			errlist_error(el, file, node_get_pair(n, key)->line,
				      "%s: yes or no is expected", key);
	}
	free(s);
}

static bool
get_paths(const char *file, const struct node *n, const char *key, char ***out,
	  size_t *nout, struct errlist *el)
{
	const struct node_pair *p = node_get_pair(n, key);
	const struct node *v;

	if (p == NULL || p->value->kind == NODE_NULL)
		return true;
	v = p->value;
	if (v->kind != NODE_SEQ) {
		errlist_error(el, file, p->line,
			      "%s: a list of block devices "
			      "is expected",
			      key);
		return false;
	}
	for (size_t i = 0; i < v->nitems; i++) {
		const struct node *item = v->items[i];

		if (!node_is_str(item) ||
		    !str_has_prefix(item->text, "/dev/") ||
		    strstr(item->text, "..") != NULL) {
			errlist_error(el, file, item->line,
				      "%s: a block device under /dev is "
				      "expected",
				      key);
			continue;
		}
		*out = xreallocarray(*out, *nout + 1, sizeof **out);
		(*out)[(*nout)++] = xstrdup(item->text);
	}
	return true;
}

bool
boxconf_load(const char *path, struct boxconf *c, struct errlist *el)
{
	static const char *const known[] = {
		"name",           "tbox_group",     "workdir",
		"ram_disk_limit", "hdd_partitions", "ssd_partitions",
		"hook",           "tree",           "timeout",
		"perf",           "hook_runs_job",  "hook_timeout",
		"hook_after",     "settle",         NULL};
	size_t before = el->nerrors;
	const struct node *n;
	struct node *docs;
	char *size = NULL;

	set_defaults(c);
	if (path == NULL)
		return true;
	c->path = xstrdup(path);
	if ((docs = docload_config(path, known, &n, el)) == NULL)
		return false;
	if (n == NULL) {
		node_free(docs);
		return true; /* an empty file: the defaults */
	}
	get_str(path, n, "name", CV_NAME, &c->name, el);
	free(c->tbox_group);
	c->tbox_group = xstrdup(c->name);
	get_str(path, n, "tbox_group", CV_NAME, &c->tbox_group, el);
	if (get_str(path, n, "workdir", CV_ANY, &c->workdir, el) &&
	    c->workdir[0] != '/')
		errlist_error(el, path, node_get_pair(n, "workdir")->line,
			      "workdir: an absolute path is expected");
	get_str(path, n, "hook", CV_ANY, &c->hook, el);
	get_yes_no(path, n, "hook_runs_job", &c->hook_runs_job, el);
	if (c->hook_runs_job && c->hook == NULL)
		errlist_error(el, path, node_get_pair(n, "hook_runs_job")->line,
			      "hook_runs_job: there is no hook to run the job");
	get_duration(path, n, "hook_timeout", &c->hook_timeout, el);
	get_yes_no(path, n, "hook_after", &c->hook_after, el);
	if (c->hook_after && c->hook == NULL)
		errlist_error(
			el, path, node_get_pair(n, "hook_after")->line,
			"hook_after: there is no hook to run after a run");
	get_str(path, n, "tree", CV_NAME, &c->tree, el);
	get_str(path, n, "perf", CV_ANY, &c->perf, el);
	if (get_str(path, n, "ram_disk_limit", CV_SIZE, &size, el) &&
	    size != NULL)
		unit_size(size, &c->ram_limit);
	get_duration(path, n, "timeout", &c->timeout, el);
	get_settle(path, n, &c->settle, el);
	get_paths(path, n, "hdd_partitions", &c->hdd, &c->nhdd, el);
	get_paths(path, n, "ssd_partitions", &c->ssd, &c->nssd, el);
	free(size);
	node_free(docs);
	return el->nerrors == before;
}

void
boxconf_release(struct boxconf *c)
{
	free(c->path);
	free(c->name);
	free(c->tbox_group);
	free(c->workdir);
	free(c->hook);
	free(c->tree);
	free(c->perf);
	for (size_t i = 0; i < c->nhdd; i++)
		free(c->hdd[i]);
	for (size_t i = 0; i < c->nssd; i++)
		free(c->ssd[i]);
	free(c->hdd);
	free(c->ssd);
	memset(c, 0, sizeof *c);
}

/* Whether a program is in the directories a root PATH has. */
static bool
have_program(const char *name)
{
	static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin",
					   "/bin", NULL};

	for (size_t i = 0; dirs[i] != NULL; i++) {
		char *p = xasprintf("%s/%s", dirs[i], name);
		bool ok = access(p, X_OK) == 0;

		free(p);
		if (ok)
			return true;
	}
	return false;
}

/* s as a fact shows it: printable ASCII, each run of blanks one space,
 * none at the ends, at most BOXCONF_FACT_TEXT bytes; NULL when nothing
 * is left. */
static char *
fact_text(const char *s)
{
	char *t = xmalloc(strlen(s) + 1), *q = t;

	for (; *s != '\0' && q - t < BOXCONF_FACT_TEXT; s++) {
		bool blank = isspace((unsigned char)*s) ||
			     (unsigned char)*s < 0x20 ||
			     (unsigned char)*s > 0x7e;

		if (!blank)
			*q++ = *s;
		else if (q > t && q[-1] != ' ')
			*q++ = ' ';
	}
	while (q > t && q[-1] == ' ')
		q--;
	*q = '\0';
	if (q == t) {
		free(t);
		return NULL;
	}
	return t;
}

/* The first line of a small file, as a fact; NULL when there is none. */
static char *
file_fact(const char *path)
{
	char line[512];
	FILE *fp = fopen(path, "r");
	char *t = NULL;

	if (fp == NULL)
		return NULL;
	if (fgets(line, sizeof line, fp) != NULL)
		t = fact_text(line);
	fclose(fp);
	return t;
}

/* The CPU's model as /proc/cpuinfo names it (x86's "model name", others'
 * "cpu model", "Processor" or "Hardware"), or NULL. */
static char *
cpu_model(void)
{
	static const char *const keys[] = {"model name", "cpu model",
					   "Processor", "Hardware", NULL};
	char line[512], *found[4] = {NULL, NULL, NULL, NULL}, *t = NULL;
	FILE *fp = fopen("/proc/cpuinfo", "r");

	if (fp == NULL)
		return NULL;
	while (fgets(line, sizeof line, fp) != NULL) {
		char *colon = strchr(line, ':');

		for (size_t i = 0; colon != NULL && keys[i] != NULL; i++)
			if (found[i] == NULL &&
			    strncmp(line, keys[i], strlen(keys[i])) == 0 &&
			    strspn(line + strlen(keys[i]), " \t") ==
				    (size_t)(colon - line - strlen(keys[i])))
				found[i] = fact_text(colon + 1);
	}
	fclose(fp);
	for (size_t i = 0; i < 4; i++) {
		if (t == NULL)
			t = found[i];
		else
			free(found[i]);
	}
	return t;
}

/* The box's disks, "vda: QEMU HARDDISK, 100G" (its model, else its
 * driver, and its size), at most BOXCONF_FACT_DISKS of them; RAM and
 * loop devices are none. */
static json_t *
disks(void)
{
	static const char *const skip[] = {"loop", "ram", "zram", "nbd",
					   "dm-",  "md",  "sr",   NULL};
	json_t *list = json_array();
	struct dirent **ents = NULL;
	int n = scandir("/sys/block", &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		bool skipped = name[0] == '.';
		char *p, *model, link[4096], size[32] = "";
		unsigned long long sectors = 0;
		ssize_t len;
		FILE *fp;

		for (size_t k = 0; !skipped && skip[k] != NULL; k++)
			skipped = str_has_prefix(name, skip[k]);
		if (skipped || json_array_size(list) >= BOXCONF_FACT_DISKS) {
			free(ents[i]);
			continue;
		}
		p = xasprintf("/sys/block/%s/device/model", name);
		model = file_fact(p);
		free(p);
		if (model == NULL) { /* virtio and the like: the driver */
			p = xasprintf("/sys/block/%s/device/driver", name);
			len = readlink(p, link, sizeof link - 1);
			free(p);
			if (len > 0) {
				link[len] = '\0';
				model = fact_text(strrchr(link, '/') != NULL
							  ? strrchr(link, '/') +
								    1
							  : link);
			}
		}
		p = xasprintf("/sys/block/%s/size", name);
		if ((fp = fopen(p, "r")) != NULL) {
			if (fscanf(fp, "%llu", &sectors) == 1 && sectors > 0)
				snprintf(size, sizeof size, ", %.0fG",
					 (double)sectors * 512 /
						 (1024.0 * 1024 * 1024));
			fclose(fp);
		}
		free(p);
		p = xasprintf("%s: %s%s", name, model ? model : "unknown",
			      size);
		json_array_append_new(list, json_string(p));
		free(p);
		free(model);
		free(ents[i]);
	}
	free(ents);
	return list;
}

/* Sets the fact key to text, which it takes (nothing when NULL). */
static void
set_fact(json_t *f, const char *key, char *text)
{
	if (text != NULL)
		json_object_set_new(f, key, json_string(text));
	free(text);
}

json_t *
boxconf_facts(const struct boxconf *bc)
{
	static const char *const fss[] = {"btrfs", "ext4", "xfs", NULL};
	json_t *f = json_object(), *fs = json_array();
	struct utsname u;

	for (size_t i = 0; fss[i] != NULL; i++) {
		char *mkfs = xasprintf("mkfs.%s", fss[i]);

		if (have_program(mkfs))
			json_array_append_new(fs, json_string(fss[i]));
		free(mkfs);
	}
	json_object_set_new(f, "cpus", json_integer(bc->cpus));
	json_object_set_new(f, "memory", json_integer((json_int_t)bc->memory));
	json_object_set_new(f, "ram_disk_limit",
			    json_integer((json_int_t)bc->ram_limit));
	json_object_set_new(f, "hdd", json_integer((json_int_t)bc->nhdd));
	json_object_set_new(f, "ssd", json_integer((json_int_t)bc->nssd));
	json_object_set_new(f, "fs", fs);
	json_object_set_new(f, "tbox_group", json_string(bc->tbox_group));
	set_fact(f, "cpu_model", cpu_model());
	set_fact(f, "kernel", uname(&u) == 0 ? fact_text(u.release) : NULL);
	set_fact(f, "proc_version", file_fact("/proc/version"));
	json_object_set_new(f, "disks", disks());
	return f;
}
