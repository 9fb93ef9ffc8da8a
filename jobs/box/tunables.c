/*
 * tunables.c: saving, applying and restoring vm.* settings.
 *
 * dirty_bytes and dirty_ratio exclude each other (writing one zeroes the
 * other, and 0 cannot be written to dirty_bytes), and likewise the
 * background pair: of each pair the one that was in force is restored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/box/tunables.h"
#include "jobs/sysctl.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* "vm/dirty_ratio" -> "vm.dirty_ratio", the name used here. */
static char *
dotted(const char *path)
{
	char *d = xstrdup(path);

	for (char *p = d; *p != '\0'; p++)
		if (*p == '/')
			*p = '.';
	return d;
}

/* Whether a name ("vm.dirty_ratio") is a tunable the robot restores. */
static bool
tunable_known(const char *name)
{
	for (size_t i = 0; sysctl_tunable(i) != NULL; i++) {
		char *d = dotted(sysctl_tunable(i));
		bool same = strcmp(d, name) == 0;

		free(d);
		if (same)
			return true;
	}
	return false;
}

static char *
proc_path(const char *name)
{
	char *p = xasprintf("/proc/sys/%s", name);

	for (char *q = p + 10; *q != '\0'; q++)
		if (*q == '.')
			*q = '/';
	return p;
}

char *
tunables_read(const char *name)
{
	char *path = proc_path(name), buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	if (fd == -1)
		return NULL;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return xstrdup(buf);
}

static bool
write_setting(const char *name, const char *value, char **err)
{
	char *path = proc_path(name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd != -1 &&
		  write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	int e = errno;

	if (fd != -1)
		close(fd);
	if (!ok && err != NULL)
		*err = xasprintf("cannot set %s to %s: %s", name, value,
				 strerror(e));
	free(path);
	return ok;
}

bool
tunables_save(struct tunables *t, const char *state_path, char **err)
{
	FILE *fp;

	memset(t, 0, sizeof *t);
	for (size_t i = 0; sysctl_tunable(i) != NULL; i++) {
		char *name = dotted(sysctl_tunable(i)), *v;

		if ((v = tunables_read(name)) == NULL) {
			free(name); /* not on this kernel */
			continue;
		}
		t->names = xreallocarray(t->names, t->n + 1, sizeof *t->names);
		t->values =
			xreallocarray(t->values, t->n + 1, sizeof *t->values);
		t->names[t->n] = name;
		t->values[t->n++] = v;
	}
	t->state_path = xstrdup(state_path);
	if ((fp = fopen(state_path, "w")) == NULL) {
		*err = xasprintf("cannot write '%s': %s", state_path,
				 strerror(errno));
		return false;
	}
	for (size_t i = 0; i < t->n; i++)
		fprintf(fp, "%s %s\n", t->names[i], t->values[i]);
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		*err = xasprintf("cannot write '%s': %s", state_path,
				 strerror(errno));
		fclose(fp);
		return false;
	}
	fclose(fp);
	return true;
}

bool
tunables_apply(const struct node *settings, json_t *applied, char **err)
{
	if (settings == NULL || settings->kind != NODE_MAP)
		return true;
	for (size_t i = 0; i < settings->npairs; i++) {
		const struct node_pair *p = &settings->pairs[i];
		char *v, *name;
		bool ok;

		if (p->value->kind == NODE_NULL)
			continue;
		if (!sysctl_applies(p->key)) {
			*err = xasprintf("robot-box sets only the vm.* "
					 "tunables it restores, not %s "
					 "(/proc/sys/%s)",
					 p->key,
					 sysctl_path(p->key)
						 ? sysctl_path(p->key)
						 : "?");
			return false;
		}
		v = node_to_s(p->value);
		name = dotted(sysctl_path(p->key));
		ok = write_setting(name, v, err);
		free(name);
		if (ok)
			json_object_set_new(applied, p->key, json_string(v));
		free(v);
		if (!ok)
			return false;
	}
	return true;
}

static const char *
saved(char **names, char **values, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return values[i];
	return NULL;
}

/* Writes back every saved value that differs from the current one. */
static int
restore(char **names, char **values, size_t n)
{
	static const char *const pairs[][2] = {
		{"vm.dirty_bytes", "vm.dirty_ratio"},
		{"vm.dirty_background_bytes", "vm.dirty_background_ratio"}};
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		bool paired = false;
		char *now;

		for (size_t k = 0; k < 2; k++)
			if (strcmp(names[i], pairs[k][0]) == 0 ||
			    strcmp(names[i], pairs[k][1]) == 0)
				paired = true;
		if (paired)
			continue;
		now = tunables_read(names[i]);
		if (now != NULL && strcmp(now, values[i]) != 0) {
			char *err = NULL;

			if (write_setting(names[i], values[i], &err))
				count++;
			else
				log_warnx("%s", err);
			free(err);
		}
		free(now);
	}
	for (size_t k = 0; k < 2; k++) {
		const char *bytes = saved(names, values, n, pairs[k][0]);
		const char *ratio = saved(names, values, n, pairs[k][1]);
		const char *name = bytes && strcmp(bytes, "0") != 0
					   ? pairs[k][0]
					   : pairs[k][1];
		const char *want = name == pairs[k][0] ? bytes : ratio;
		char *now_b = tunables_read(pairs[k][0]);
		char *now_r = tunables_read(pairs[k][1]);

		if (want != NULL && now_b != NULL && now_r != NULL &&
		    ((bytes && strcmp(now_b, bytes) != 0) ||
		     (ratio && strcmp(now_r, ratio) != 0))) {
			char *err = NULL;

			if (write_setting(name, want, &err))
				count++;
			else
				log_warnx("%s", err);
			free(err);
		}
		free(now_b);
		free(now_r);
	}
	return count;
}

void
tunables_restore(struct tunables *t)
{
	if (t->state_path == NULL)
		return;
	restore(t->names, t->values, t->n);
	unlink(t->state_path);
}

int
tunables_restore_file(const char *state_path)
{
	char **names = NULL, **values = NULL, line[512];
	size_t n = 0;
	int count;
	FILE *fp = fopen(state_path, "r");

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof line, fp) != NULL) {
		char *sp = strchr(line, ' '), *nl;

		if (sp == NULL || strncmp(line, "vm.", 3) != 0)
			continue;
		*sp = '\0';
		if ((nl = strchr(sp + 1, '\n')) != NULL)
			*nl = '\0';
		if (!tunable_known(line))
			continue; /* never write what the robot does not know */
		names = xreallocarray(names, n + 1, sizeof *names);
		values = xreallocarray(values, n + 1, sizeof *values);
		names[n] = xstrdup(line);
		values[n++] = xstrdup(sp + 1);
	}
	fclose(fp);
	count = restore(names, values, n);
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		free(values[i]);
	}
	free(names);
	free(values);
	unlink(state_path);
	return count;
}

void
tunables_release(struct tunables *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->names[i]);
		free(t->values[i]);
	}
	free(t->names);
	free(t->values);
	free(t->state_path);
	memset(t, 0, sizeof *t);
}

void
tunables_drop_caches(void)
{
	int fd;

	sync();
	if ((fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC)) !=
	    -1) {
		if (write(fd, "3", 1) != 1)
			log_debug("cannot drop the page cache");
		close(fd);
	}
}
