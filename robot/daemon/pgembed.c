/*
 * pgembed.c: a private PostgreSQL cluster.
 *
 * initdb refuses to run as root, so as root the cluster belongs to the
 * postgres user (the Debian package makes it) and its commands run
 * through runuser, as ../shared/MACHINE.md shows.  The socket directory
 * is private to that user (and root).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/pgembed.h"
#include "robot/core/banned.h"

/* The directory of initdb and pg_ctl (not on Debian's PATH). */
static char *
pg_bindir(void)
{
	static const char *const guesses[] = {
		"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
		"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/14/bin",
		NULL};
	char line[512];
	FILE *fp = popen("pg_config --bindir 2>/dev/null", "r");

	if (fp != NULL) {
		if (fgets(line, sizeof line, fp) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			pclose(fp);
			if (access(line, X_OK) == 0) {
				char *initdb = xasprintf("%s/initdb", line);
				bool ok = access(initdb, X_OK) == 0;

				free(initdb);
				if (ok)
					return xstrdup(line);
			}
		} else {
			pclose(fp);
		}
	}
	for (size_t i = 0; guesses[i] != NULL; i++) {
		char *initdb = xasprintf("%s/initdb", guesses[i]);
		bool ok = access(initdb, X_OK) == 0;

		free(initdb);
		if (ok)
			return xstrdup(guesses[i]);
	}
	return NULL;
}

/* Runs argv (as the postgres user when root); its output to log_path
 * (NULL: nowhere). */
static int
run(char *const argv[], const char *log_path)
{
	pid_t pid = fork();
	int status;

	if (pid == -1)
		return -1;
	if (pid == 0) {
		int fd = open(log_path ? log_path : "/dev/null",
			      O_WRONLY | O_CREAT | O_APPEND, 0644);
		struct passwd *pw = getpwnam("postgres");
		char **args;
		size_t n = 0;

		/* The server appends to the same log later, as postgres. */
		if (fd != -1 && log_path != NULL && geteuid() == 0 &&
		    pw != NULL && fchown(fd, pw->pw_uid, pw->pw_gid) == -1)
			_exit(126);
		if (fd != -1) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		while (argv[n] != NULL)
			n++;
		args = xcalloc(n + 4, sizeof *args);
		if (geteuid() == 0) {
			args[0] = "runuser";
			args[1] = "-u";
			args[2] = "postgres";
			args[3] = "--";
			memcpy(args + 4, argv, n * sizeof *args);
			args = xreallocarray(args, n + 5, sizeof *args);
			args[n + 4] = NULL;
		} else {
			memcpy(args, argv, n * sizeof *args);
			args[n] = NULL;
		}
		execvp(args[0], args);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool
own_dir(const char *path, mode_t mode)
{
	struct passwd *pw;

	if (mkdir(path, mode) == -1 && errno != EEXIST)
		return false;
	chmod(path, mode);
	if (geteuid() == 0) {
		if ((pw = getpwnam("postgres")) == NULL)
			return false;
		if (chown(path, pw->pw_uid, pw->pw_gid) == -1)
			return false;
	}
	return true;
}

char *
pgembed_start(const char *state_dir, bool *started, char **err)
{
	char *bin = pg_bindir(), *pg = xasprintf("%s/pg", state_dir);
	char *data = xasprintf("%s/data", pg), *sock = xasprintf("%s/run", pg);
	char *logf = xasprintf("%s/server.log", pg);
	char *initdb = NULL, *pgctl = NULL, *opts = NULL, *version = NULL;
	char *conninfo = NULL;
	struct stat st;

	*err = NULL;
	*started = false;
	if (bin == NULL) {
		*err = xstrdup("PostgreSQL is not installed (initdb not found; "
			       "scripts/deps installs it)");
		goto out;
	}
	if (geteuid() == 0 && getpwnam("postgres") == NULL) {
		*err = xstrdup("there is no postgres user to run the embedded "
			       "database as (install the postgresql package)");
		goto out;
	}
	mkdir(state_dir, 0755);
	if (!own_dir(pg, 0700) || !own_dir(sock, 0700)) {
		*err = xasprintf("cannot prepare '%s': %s", pg,
				 strerror(errno));
		goto out;
	}
	initdb = xasprintf("%s/initdb", bin);
	pgctl = xasprintf("%s/pg_ctl", bin);
	version = xasprintf("%s/PG_VERSION", data);
	if (stat(version, &st) != 0) {
		char *argv[] = {initdb,  "-D",          data,        "-U",
				"robot", "-A",          "trust",     "-E",
				"UTF8",  "--no-locale", "--no-sync", NULL};

		log_info("making the embedded database in '%s'", data);
		if (!own_dir(data, 0700) || run(argv, logf) != 0) {
			*err = xasprintf("initdb of '%s' failed; see '%s'",
					 data, logf);
			goto out;
		}
	}
	{
		char *status[] = {pgctl, "status", "-D", data, NULL};

		if (run(status, NULL) == 0) {
			log_info("the embedded database in '%s' is running; "
				 "using it",
				 data);
			conninfo = xasprintf(
				"host=%s user=robot dbname=postgres", sock);
			goto out;
		}
	}
	opts = xasprintf("-k %s -c listen_addresses='' "
			 "-c synchronous_commit=off -c max_connections=200 "
			 "-c shared_buffers=128MB",
			 sock);
	{
		char *argv[] = {pgctl, "start", "-w", "-t", "60", "-D",
				data,  "-l",    logf, "-o", opts, NULL};

		if (run(argv, NULL) != 0) {
			*err = xasprintf("cannot start the embedded database; "
					 "see '%s'",
					 logf);
			goto out;
		}
	}
	log_info("started the embedded database in '%s'", data);
	*started = true;
	conninfo = xasprintf("host=%s user=robot dbname=postgres", sock);
out:
	free(bin);
	free(pg);
	free(data);
	free(sock);
	free(logf);
	free(initdb);
	free(pgctl);
	free(opts);
	free(version);
	return conninfo;
}

void
pgembed_stop(const char *state_dir)
{
	char *bin = pg_bindir(), *data = xasprintf("%s/pg/data", state_dir);
	char *pgctl = bin ? xasprintf("%s/pg_ctl", bin) : NULL;

	if (pgctl != NULL) {
		char *argv[] = {pgctl, "stop", "-m", "fast",
				"-w",  "-D",   data, NULL};

		if (run(argv, NULL) != 0)
			log_warnx("cannot stop the embedded database in '%s'",
				  data);
		else
			log_info("stopped the embedded database");
	}
	free(bin);
	free(data);
	free(pgctl);
}
