/*
 * path.c: paths the commands write to (path.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "robot/core/path.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

char *
path_trim(const char *dir)
{
	char *d = xstrdup(dir);
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	return d;
}

bool
path_mkdirs(const char *dir, mode_t mode)
{
	char *d = path_trim(dir);
	bool ok = true;

	for (char *p = d + 1; ok && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ok = mkdir(d, mode) == 0 || errno == EEXIST;
		*p = '/';
	}
	if (ok)
		ok = mkdir(d, mode) == 0 || errno == EEXIST;
	free(d);
	return ok;
}
