/*
 * split.c: the split command.
 *
 * Every file is split before anything is written: one bad file means
 * exit status 2, every problem of every file on stderr, and no output.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/emit.h"
#include "jobs/jobfile.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/path.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/banned.h"

#define SPLIT_STR(x)  #x
#define SPLIT_XSTR(x) SPLIT_STR(x)

static const char split_usage[] =
	"usage: robot split [--json] [--yaml] [-o DIR] [--max-jobs N] "
	"FILE...\n"
	"\n"
	"Splits LKP job files into atomic jobs and prints their keys.\n"
	"  --json        print one JSON array of the atomic jobs\n"
	"  --yaml        print the atomic jobs as YAML documents\n"
	"  -o DIR        write one YAML file per atomic job into DIR,\n"
	"                named <file>-<path_params>[-<commit>].yaml as LKP "
	"does\n"
	"  --max-jobs N  refuse files that give more than N atomic jobs\n"
	"                (default " SPLIT_XSTR(JOBFILE_DEFAULT_MAX_JOBS) ")\n";

/* "dir/fsmark.yaml" -> "fsmark" */
static char *
file_stem(const char *path)
{
	char *copy = xstrdup(path), *base = basename(copy), *stem;
	static const char *const exts[] = {".yaml", ".yml", ".json", NULL};

	for (size_t i = 0; exts[i] != NULL; i++) {
		if (str_has_suffix(base, exts[i]) &&
		    strlen(base) > strlen(exts[i])) {
			base[strlen(base) - strlen(exts[i])] = '\0';
			break;
		}
	}
	stem = xstrdup(base);
	free(copy);
	return stem;
}

static bool
write_file(const char *path, const char *data)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	FILE *fp = fopen(tmp, "w");
	bool ok;

	if (fp == NULL) {
		log_warn("cannot create '%s'", tmp);
		free(tmp);
		return false;
	}
	ok = fputs(data, fp) != EOF;
	ok = (fclose(fp) == 0) && ok;
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok) {
		log_warn("cannot write '%s'", path);
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

static int
write_dir(const char *dir, struct jobfile **files, size_t nfiles)
{
	int status = 0;

	/* "out/" and "out" name one folder: no "out//x.yaml". */
	char *top = path_trim(dir);

	if (!path_mkdirs(top, 0777)) {
		log_warn("cannot create '%s'", top);
		free(top);
		return 1;
	}
	for (size_t f = 0; f < nfiles; f++) {
		struct jobfile *jf = files[f];
		char *stem = file_stem(jf->name);

		for (size_t i = 0; i < jf->njobs; i++) {
			struct atomic_job *aj = &jf->jobs[i];
			char *path, *yaml;

			/* As LKP's split-job: the commit after the
			 * path_params when the job has one. */
			if (aj->commit != NULL)
				path = xasprintf("%s/%s-%s-%s.yaml", top, stem,
						 aj->path_params, aj->commit);
			else
				path = xasprintf("%s/%s-%s.yaml", top, stem,
						 aj->path_params);
			yaml = emit_yaml(aj->job, aj->key);
			if (yaml == NULL) {
				log_warnx("cannot write '%s' as YAML", path);
				status = 1;
			} else if (!write_file(path, yaml)) {
				status = 1;
			} else {
				printf("%s\n", path);
			}
			free(yaml);
			free(path);
		}
		free(stem);
	}
	free(top);
	return status;
}

static int
print_json(struct jobfile **files, size_t nfiles)
{
	json_t *a = json_array();
	int status = 0;

	for (size_t f = 0; f < nfiles; f++) {
		for (size_t i = 0; i < files[f]->njobs; i++) {
			json_t *j = jobfile_job_json(&files[f]->jobs[i]);

			json_object_set_new(j, "file",
					    json_string(files[f]->name));
			json_object_set_new(
				j, "document",
				json_integer(files[f]->jobs[i].document + 1));
			json_array_append_new(a, j);
		}
	}
	if (!rjson_print(a, stdout))
		status = 1;
	json_decref(a);
	return status;
}

/* What split's options give. */
struct split_args {
	struct jobfile_options opt;
	bool yaml;
	const char *outdir;
};

static bool
split_option(int c, const char *arg, void *ctx)
{
	struct split_args *sa = ctx;
	char *end;
	long v;

	switch (c) {
	case 'y':
		sa->yaml = true;
		return true;
	case 'o':
		sa->outdir = arg;
		return true;
	default: /* --max-jobs */
		v = strtol(arg, &end, 10);
		if (*end != '\0' || v <= 0) {
			log_warnx("--max-jobs wants a number above zero, not "
				  "'%s'",
				  arg);
			return false;
		}
		sa->opt.max_jobs = (size_t)v;
		return true;
	}
}

int
cmd_split(int argc, char **argv)
{
	static const struct option own[] = {
		{"yaml", no_argument, NULL, 'y'},
		{"max-jobs", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0}};
	static const struct cli_command cmd = {split_usage, CLI_JSON, own,
					       "o:", split_option};
	struct split_args sa = {{JOBFILE_AUTO, 0}, false, NULL};
	struct jobfile_options opt;
	bool json, yaml;
	const char *outdir;
	struct cli_args ca;
	struct jobfile **files;
	struct errlist el;
	size_t nfiles, total = 0;
	int status = cli_options(argc, argv, &cmd, &sa, &ca);

	json = ca.json;
	cli_args_release(&ca);
	if (status != -1)
		return status;
	opt = sa.opt;
	yaml = sa.yaml;
	outdir = sa.outdir;
	status = 0;
	if (optind >= argc)
		return cli_usage_error(&cmd);
	nfiles = (size_t)(argc - optind);
	files = xcalloc(nfiles, sizeof *files);
	errlist_init(&el);
	for (size_t i = 0; i < nfiles; i++) {
		files[i] = jobfile_split_path(argv[optind + (int)i], &opt, &el);
		if (files[i] != NULL)
			total += files[i]->njobs;
	}
	errlist_sort(&el);
	errlist_print(&el, stderr);
	if (el.nerrors > 0) {
		fprintf(stderr, "%zu error%s; nothing written\n", el.nerrors,
			el.nerrors == 1 ? "" : "s");
		status = 2;
	} else if (outdir != NULL) {
		status = write_dir(outdir, files, nfiles);
	} else if (json) {
		status = print_json(files, nfiles);
	} else {
		for (size_t f = 0; f < nfiles; f++) {
			for (size_t i = 0; i < files[f]->njobs; i++) {
				struct atomic_job *aj = &files[f]->jobs[i];

				if (yaml) {
					char *y = emit_yaml(aj->job, aj->key);

					printf("---\n%s", y ? y : "");
					free(y);
				} else if (aj->commit != NULL)
					printf("%s @ %s\n", aj->key,
					       aj->commit);
				else
					printf("%s\n", aj->key);
			}
		}
	}
	if (status == 0 && !json)
		fprintf(stderr, "%zu atomic job%s from %zu file%s\n", total,
			total == 1 ? "" : "s", nfiles, nfiles == 1 ? "" : "s");
	for (size_t i = 0; i < nfiles; i++)
		jobfile_free(files[i]);
	free(files);
	errlist_release(&el);
	if (fflush(stdout) != 0 && status == 0)
		status = 1;
	return status;
}
