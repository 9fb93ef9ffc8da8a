/*
 * run.c: robot-box run: each atomic job of a job file, here, as root,
 * one result document per run (a summary, or JSON).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/box.h"
#include "jobs/box/cgroup.h"
#include "jobs/box/child.h"
#include "jobs/box/run.h"
#include "jobs/box/provision.h"
#include "jobs/box/runner.h"
#include "robot/analysis/workloads.h"
#include "jobs/jobfile.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/banned.h"

static void
print_summary(json_t *doc)
{
	const char *status = rjson_get_str(doc, "status");
	json_t *stats = json_object_get(doc, "stats"), *v;
	json_t *run = json_object_get(doc, "run");
	const char *k;

	printf("%s  run %d/%d  %s", rjson_get_str(doc, "key"),
	       (int)json_integer_value(json_object_get(run, "index")),
	       (int)json_integer_value(json_object_get(run, "of")), status);
	if (rjson_get_str(doc, "commit") != NULL)
		printf("  commit %.12s", rjson_get_str(doc, "commit"));
	printf("\n");
	if (rjson_get_str(doc, "error") != NULL)
		printf("  error: %s\n", rjson_get_str(doc, "error"));
	/* The workload's own figures: the lines a maintainer looks at. */
	json_object_foreach(stats, k, v)
	{
		if (workload_of_metric(k) != NULL &&
		    strstr(k, ".time.") == NULL)
			printf("  %-44s %16.2f\n", k, json_number_value(v));
	}
}

static void
run_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot-box run [--json] [--commit SHA | --label NAME] "
		"[--tree NAME]\n"
		"                     [--repeat N] [--config FILE] JOBFILE\n"
		"\n"
		"Runs each atomic job of JOBFILE on this box (as root) and "
		"prints one result\n"
		"document per run: a summary, or with --json a JSON array.\n"
		"  --commit SHA  provision this commit first (default: the "
		"job's commit);\n"
		"                needs the box's provisioning hook (hook: in "
		"its configuration)\n"
		"  --label NAME  a box without a hook: name the runs NAME; "
		"they are marked\n"
		"                unprovisioned (the box's own kernel), and "
		"robot compare says so\n"
		"  --tree NAME   the tree the commit is in (default: the "
		"box's)\n"
		"  --repeat N    runs per atomic job (default: the job's "
		"repeat, else 3)\n"
		"  --config F    the box configuration (default: built-in "
		"defaults)\n");
}

struct run_request {
	const struct boxconf *bc;
	const struct jobfile *jf;
	const char *commit; /* NULL: each job's own */
	const char *tree;   /* NULL: the box's */
	int repeat;         /* 0: each job's own */
	bool json;
};

/* Runs every atomic job its number of times, printing each result or,
 * with json, all at the end; 1 when a run failed. */
static int
run_jobs(const struct run_request *rq)
{
	int total = 0, done = 0, status = 0;
	json_t *all = json_array();

	for (size_t i = 0; i < rq->jf->njobs; i++)
		total += rq->repeat ? rq->repeat
				    : jobfile_repeat(&rq->jf->jobs[i]);
	for (size_t i = 0; i < rq->jf->njobs && !child_stop_signal(); i++) {
		const struct atomic_job *aj = &rq->jf->jobs[i];
		int runs = rq->repeat ? rq->repeat : jobfile_repeat(aj);

		for (int k = 1; k <= runs && !child_stop_signal(); k++) {
			const char *error;
			char label[32];
			json_t *doc;

			snprintf(label, sizeof label, "[%d/%d]", ++done, total);
			doc = runner_run(&(struct runner_request){
				rq->bc, aj,
				rq->commit ? rq->commit : aj->commit,
				rq->tree ? rq->tree : rq->bc->tree, k, runs,
				label});
			error = rjson_get_str(doc, "error");
			log_info("%s %s: %s%s%s", label, aj->key,
				 rjson_get_str(doc, "status"),
				 error ? ": " : "", error ? error : "");
			if (strcmp(rjson_get_str(doc, "status"), "ok") != 0)
				status = 1;
			if (!rq->json) {
				print_summary(doc);
				fflush(stdout);
			}
			json_array_append_new(all, doc);
			provision_after(rq->bc,
					rq->tree ? rq->tree : rq->bc->tree,
					rq->commit ? rq->commit : aj->commit);
		}
	}
	if (rq->json && !rjson_print(all, stdout))
		status = 1;
	json_decref(all);
	return status;
}

int
run_main(int argc, char **argv)
{
	/* Only what this box can run, includes read from the file's folder. */
	static const struct jobfile_options run_options = {JOBFILE_AUTO, 0,
							   true, true};
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"commit", required_argument, NULL, 'c'},
		{"label", required_argument, NULL, 'l'},
		{"tree", required_argument, NULL, 't'},
		{"repeat", required_argument, NULL, 'r'},
		{"config", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *commit = NULL, *label = NULL, *tree = NULL, *config = NULL;
	int repeat = 0, c, status;
	struct run_request rq;
	struct boxconf bc;
	struct jobfile *jf;
	struct errlist el;
	bool json = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			commit = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 't':
			tree = optarg;
			break;
		case 'r':
			repeat = atoi(optarg);
			if (repeat < 1 || repeat > 100) {
				log_warnx("--repeat wants 1 to 100, not '%s'",
					  optarg);
				return 2;
			}
			break;
		case 'f':
			config = optarg;
			break;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			run_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		run_usage(stderr);
		return 2;
	}
	if (commit != NULL && label != NULL) {
		log_warnx("--commit or --label, not both");
		return 2;
	}
	if (!box_load_config(config, &bc))
		return 2;
	/* Runs named after a commit the box did not run would compare as
	 * if it had: without a hook, the name must say so. */
	if (commit != NULL && bc.hook == NULL) {
		log_warnx("this box has no provisioning hook (hook: in its "
			  "configuration): it runs its own kernel, and runs "
			  "labelled %s would not be of %s; give --label %s to "
			  "name them so, marked unprovisioned",
			  commit, commit, commit);
		boxconf_release(&bc);
		return 2;
	}
	if (label != NULL && bc.hook != NULL) {
		log_warnx("this box provisions commits (hook: %s): give "
			  "--commit, not --label",
			  bc.hook);
		boxconf_release(&bc);
		return 2;
	}
	if (label != NULL)
		commit = label;
	errlist_init(&el);
	jf = jobfile_split_path(argv[optind], &run_options, &el);
	errlist_sort(&el);
	errlist_print(&el, stderr);
	if (jf == NULL) {
		errlist_release(&el);
		boxconf_release(&bc);
		return 2;
	}
	if (!box_need_root("run") || !box_lock_workdir(&bc)) {
		jobfile_free(jf);
		errlist_release(&el);
		boxconf_release(&bc);
		return 1;
	}
	child_signals_init();
	if (box_cleanup_leftovers(&bc) > 0)
		log_info("cleaned up what an earlier run left");
	cgroup_join(&bc); /* a kill -9 of this run leaves nothing running */
	rq = (struct run_request){&bc, jf, commit, tree, repeat, json};
	status = run_jobs(&rq);
	jobfile_free(jf);
	errlist_release(&el);
	boxconf_release(&bc);
	if (child_stop_signal())
		return 128 + child_stop_signal();
	return status;
}
