/*
 * main.c: robot-box, the test-box side of the robot.
 *
 *   robot-box serve --server URL ...  work for robotd: lease, run, upload
 *   robot-box enroll URL CODE         join robotd's lab (its own token)
 *   robot-box run [options] JOBFILE   run a job file's atomic jobs here
 *   robot-box parse PROGRAM [FILE]    LKP's parsers of tool output
 *   robot-box cleanup                 remove what a killed run left
 *
 * serve and run live in their own modules; this file dispatches and
 * holds the two small commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/box.h"
#include "jobs/box/enroll.h"
#include "jobs/box/run.h"
#include "jobs/box/serve.h"
#include "jobs/box/toolparse.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/protocol.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static int
cmd_cleanup(int argc, char **argv)
{
	const char *config = NULL;
	struct boxconf bc;
	int n;

	if (argc == 3 && strcmp(argv[1], "--config") == 0)
		config = argv[2];
	else if (argc != 1) {
		bool help = argc == 2 && (strcmp(argv[1], "--help") == 0 ||
					  strcmp(argv[1], "-h") == 0);

		fprintf(help ? stdout : stderr,
			"usage: robot-box cleanup [--config FILE]\n"
			"Removes what a killed run left behind: its mounts, "
			"loop devices and\nimages, and the vm.* tunables it "
			"changed.\n");
		return help ? 0 : 2;
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
		"  enroll     join a robotd's lab with the code it printed\n"
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
	/* Every call to robotd says which box protocol it speaks. */
	{
		char h[64];

		snprintf(h, sizeof h, "%s: %d", ROBOT_BOX_PROTOCOL_HEADER,
			 ROBOT_BOX_PROTOCOL);
		client_set_header(h);
	}
	if (strcmp(argv[1], "parse") == 0)
		return cmd_parse(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return serve_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "enroll") == 0)
		return enroll_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "cleanup") == 0)
		return cmd_cleanup(argc - 1, argv + 1);
	log_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
