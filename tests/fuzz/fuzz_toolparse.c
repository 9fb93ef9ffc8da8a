/*
 * fuzz_toolparse.c: libFuzzer target for the box's parsers of tool
 * output: the first byte picks one of toolparse's programs (fs_mark,
 * vmstat, iostat, proc-vmstat, time, perf-profile, perf-stat) for the
 * rest; the rest is also read
 * as /proc/stat, /proc/vmstat, /proc/meminfo and /proc/diskstats.
 * Built with -Dfuzz=true (clang); run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/procfs.h"
#include "jobs/box/toolparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
emit(const char *key, const char *value, void *arg)
{
	size_t *n = arg;

	*n += strlen(key) + strlen(value);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nprog = 0, n = 0;
	struct procfs_snapshot s;
	const char *err;
	char *text;

	if (size == 0)
		return 0;
	while (toolparse_programs[nprog] != NULL)
		nprog++;
	(void)toolparse_run(toolparse_programs[data[0] % nprog],
			    (const char *)data + 1, size - 1, emit, &n, &err);
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	memset(&s, 0, sizeof s);
	(void)procfs_parse_stat(text, &s);
	(void)procfs_parse_vmstat(text, &s);
	(void)procfs_parse_meminfo(text, &s);
	(void)procfs_parse_diskstats(text, NULL, 0, &s);
	procfs_snapshot_release(&s);
	free(text);
	return 0;
}
