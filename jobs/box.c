/*
 * box.c: robot-box, the test-box side of the robot.
 *
 *   robot-box serve --server URL ...  work for robotd: lease, run, upload
 *   robot-box run [options] JOBFILE   run a job file's atomic jobs here
 *   robot-box parse PROGRAM [FILE]    LKP's parsers of tool output
 *   robot-box cleanup                 remove what a killed run left
 *
 * Each subcommand lives in its own module; this file only dispatches.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../robot/log.h"
#include "../robot/rjson.h"
#include "../robot/xmalloc.h"
#include "box.h"
#include "boxconf.h"
#include "child.h"
#include "jobfile.h"
#include "runner.h"
#include "serve.h"
#include "storage.h"
#include "toolparse.h"
#include "tunables.h"
#include "../robot/banned.h"

/*
 * One robot-box at a time per work directory: runs change global state
 * (loop devices, mounts, vm.* tunables).  The lock is held until exit.
 */
bool
box_lock_workdir(const struct boxconf *bc)
{
	char *path;
	int fd;

	mkdir(bc->workdir, 0755);
	path = xasprintf("%s/lock", bc->workdir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1) {
		log_warn("cannot open '%s'", path);
		free(path);
		return false;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		log_warnx("another robot-box is working in '%s' (%s is locked)",
			  bc->workdir, path);
		free(path);
		close(fd);
		return false;
	}
	free(path);
	return true; /* fd stays open: the lock lasts until exit */
}

/* Undoes what a killed run left; returns how many things. */
int
box_cleanup_leftovers(const struct boxconf *bc)
{
	char *saved = xasprintf("%s/sysctl.saved", bc->workdir);
	int n = storage_cleanup(bc), t = tunables_restore_file(saved);

	if (t > 0)
		log_info("cleanup: restored %d vm.* setting%s", t,
			 t == 1 ? "" : "s");
	free(saved);
	return n + t;
}

bool
box_load_config(const char *path, struct boxconf *bc)
{
	struct errlist el;
	bool ok;

	errlist_init(&el);
	ok = boxconf_load(path, bc, &el);
	errlist_print(&el, stderr);
	errlist_release(&el);
	if (!ok)
		boxconf_release(bc);
	return ok;
}

bool
box_need_root(const char *what)
{
	if (geteuid() == 0)
		return true;
	log_warnx("robot-box %s needs root: it sets up loop devices, "
		  "filesystems and vm.* tunables",
		  what);
	return false;
}

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
		if ((strncmp(k, "fsmark.", 7) == 0 ||
		     strncmp(k, "dd.", 3) == 0 ||
		     strncmp(k, "unlink.", 7) == 0) &&
		    strstr(k, ".time.") == NULL)
			printf("  %-44s %16.2f\n", k, json_number_value(v));
	}
}

static void
run_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot-box run [--json] [--commit SHA] [--tree NAME] "
		"[--repeat N]\n"
		"                     [--config FILE] JOBFILE\n"
		"\n"
		"Runs each atomic job of JOBFILE on this box (as root) and "
		"prints one result\n"
		"document per run: a summary, or with --json a JSON array.\n"
		"  --commit SHA  provision this commit first (default: the "
		"job's commit)\n"
		"  --tree NAME   the tree the commit is in (default: the "
		"box's)\n"
		"  --repeat N    runs per atomic job (default: the job's "
		"repeat, else 1)\n"
		"  --config F    the box configuration (default: built-in "
		"defaults)\n");
}

static int
cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"commit", required_argument, NULL, 'c'},
		{"tree", required_argument, NULL, 't'},
		{"repeat", required_argument, NULL, 'r'},
		{"config", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *commit = NULL, *tree = NULL, *config = NULL;
	int repeat = 0, c, status = 0, total = 0, done = 0;
	struct boxconf bc;
	struct jobfile *jf;
	struct errlist el;
	json_t *all;
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
	if (!box_load_config(config, &bc))
		return 2;
	errlist_init(&el);
	jf = jobfile_split_path(argv[optind], NULL, &el);
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
	for (size_t i = 0; i < jf->njobs; i++) {
		const struct node *r = node_get(jf->jobs[i].job, "repeat");

		total += repeat ? repeat
				: (r && r->kind == NODE_SCALAR &&
						   r->stype == NODE_INT
					   ? (int)r->ival
					   : 1);
	}
	all = json_array();
	for (size_t i = 0; i < jf->njobs && !child_stop_signal(); i++) {
		const struct atomic_job *aj = &jf->jobs[i];
		const struct node *r = node_get(aj->job, "repeat");
		int runs = repeat ? repeat
				  : (r && r->kind == NODE_SCALAR &&
						     r->stype == NODE_INT
					     ? (int)r->ival
					     : 1);

		for (int k = 1; k <= runs && !child_stop_signal(); k++) {
			struct runner_request rq;
			char label[32];
			json_t *doc;

			snprintf(label, sizeof label, "[%d/%d]", ++done, total);
			rq = (struct runner_request){
				&bc,
				aj,
				commit ? commit : aj->commit,
				tree ? tree : bc.tree,
				k,
				runs,
				label};
			doc = runner_run(&rq);
			log_info("%s %s: %s%s%s", label, aj->key,
				 rjson_get_str(doc, "status"),
				 rjson_get_str(doc, "error") ? ": " : "",
				 rjson_get_str(doc, "error")
					 ? rjson_get_str(doc, "error")
					 : "");
			if (strcmp(rjson_get_str(doc, "status"), "ok") != 0)
				status = 1;
			if (!json) {
				print_summary(doc);
				fflush(stdout);
			}
			json_array_append_new(all, doc);
		}
	}
	if (json && !rjson_print(all, stdout))
		status = 1;
	json_decref(all);
	jobfile_free(jf);
	errlist_release(&el);
	boxconf_release(&bc);
	if (child_stop_signal())
		return 128 + child_stop_signal();
	return status;
}

static int
cmd_cleanup(int argc, char **argv)
{
	const char *config = NULL;
	struct boxconf bc;
	int n;

	if (argc == 3 && strcmp(argv[1], "--config") == 0)
		config = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: robot-box cleanup [--config FILE]\n");
		return 2;
	}
	if (!box_load_config(config, &bc))
		return 2;
	if (!box_need_root("cleanup") || !box_lock_workdir(&bc)) {
		boxconf_release(&bc);
		return 1;
	}
	n = box_cleanup_leftovers(&bc);
	printf("%d thing%s cleaned up\n", n, n == 1 ? "" : "s");
	boxconf_release(&bc);
	return 0;
}

static void
emit_line(const char *key, const char *value, void *arg)
{
	(void)arg;
	printf("%s: %s\n", key, value);
}

static int
cmd_parse(int argc, char **argv)
{
	const char *err = NULL;
	char *data = NULL;
	size_t len = 0, cap = 0, n;
	FILE *fp = stdin;
	bool ok;

	if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: robot-box parse PROGRAM [FILE]\n"
			"prints LKP's \"key: value\" records of a tool's "
			"output; PROGRAM is one of:");
		for (size_t i = 0; toolparse_programs[i] != NULL; i++)
			fprintf(argc < 2 ? stderr : stdout, " %s",
				toolparse_programs[i]);
		fprintf(argc < 2 ? stderr : stdout, "\n");
		return argc < 2 ? 2 : 0;
	}
	if (argc == 3 && (fp = fopen(argv[2], "rb")) == NULL) {
		log_warn("cannot open '%s'", argv[2]);
		return 1;
	}
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > 256 * 1024 * 1024)
				fatalx("'%s' is too large",
				       argc == 3 ? argv[2] : "stdin");
			data = xreallocarray(data, cap, 1);
		}
		n = fread(data + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	if (fp != stdin)
		fclose(fp);
	ok = toolparse_run(argv[1], data, len, emit_line, NULL, &err);
	free(data);
	if (!ok) {
		log_warnx("%s: %s", argv[1], err);
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot-box COMMAND [ARGS]\n\n"
		"commands:\n"
		"  serve      work for a robotd: lease jobs, run them, upload\n"
		"  run        run a job file's atomic jobs on this box\n"
		"  cleanup    remove what a killed run left behind\n"
		"  parse      LKP's parsers of tool output (fsmark, vmstat, "
		"iostat, ...)\n"
		"\nrobot-box COMMAND --help shows a command's options.\n");
}

int
main(int argc, char **argv)
{
	log_init("robot-box", LOG_LEVEL_INFO);
	/* The tools' messages in English: they are parsed. */
	setenv("LC_ALL", "C", 1);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("robot-box %s\n", ROBOT_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "parse") == 0)
		return cmd_parse(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return serve_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "cleanup") == 0)
		return cmd_cleanup(argc - 1, argv + 1);
	log_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
