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
#include <glob.h>
#include <pwd.h>
#include <signal.h>
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

/* Whether dir holds an initdb that runs. */
static bool
has_initdb(const char *dir)
{
	char *initdb = xasprintf("%s/initdb", dir);
	bool ok = access(initdb, X_OK) == 0;

	free(initdb);
	return ok;
}

/* The version in a /usr/lib/postgresql/VERSION/bin path, as a number. */
static long
pg_dir_version(const char *path)
{
	return strtol(path + strlen("/usr/lib/postgresql/"), NULL, 10);
}

/*
 * The directory of initdb and pg_ctl (not on Debian's PATH): Debian's
 * newest, /usr/lib/postgresql/VERSION/bin, else what pg_config says.
 * Debian's first, without a process: pg_config is a shell script there
 * that lists those same directories, and robotd asks at each start and
 * each `robotd token` (a pg_config cost about 30 ms of CPU; the tests
 * make some 150 tokens a pass).
 */
static char *
pg_bindir(void)
{
	glob_t g;
	char *best = NULL;
	char line[512];
	FILE *fp;

	if (glob("/usr/lib/postgresql/*/bin", GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (has_initdb(g.gl_pathv[i]) &&
			    (best == NULL || pg_dir_version(g.gl_pathv[i]) >
						     pg_dir_version(best))) {
				free(best);
				best = xstrdup(g.gl_pathv[i]);
			}
		}
	}
	globfree(&g);
	if (best != NULL)
		return best;
	if ((fp = popen("pg_config --bindir 2>/dev/null", "r")) == NULL)
		return NULL;
	if (fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (access(line, X_OK) == 0 && has_initdb(line))
			best = xstrdup(line);
	}
	pclose(fp);
	return best;
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

/*
 * Why the postgres user cannot reach dir, or NULL when it can (or robotd
 * is not root: the cluster is then robotd's own).  Every folder above
 * dir must let postgres search it: `mktemp -d` makes 0700 folders.
 */
static char *
unreachable(const char *dir)
{
	struct passwd *pw = getpwnam("postgres");
	char *path, *slash;
	char *why = NULL;

	if (geteuid() != 0 || pw == NULL)
		return NULL;
	path = xstrdup(dir);
	for (slash = strchr(path + 1, '/'); why == NULL;
	     slash = strchr(slash + 1, '/')) {
		struct stat st;
		mode_t need;

		if (slash != NULL)
			*slash = '\0';
		if (stat(path, &st) == 0) {
			need = st.st_uid == pw->pw_uid   ? S_IXUSR
			       : st.st_gid == pw->pw_gid ? S_IXGRP
							 : S_IXOTH;
			if ((st.st_mode & need) == 0)
				why = xasprintf(
					"the embedded database runs as the "
					"postgres user, who cannot enter '%s' "
					"(mode %04o, owner uid %u): let others "
					"search it (chmod o+x '%s') or choose "
					"another --state-dir",
					path, (unsigned)(st.st_mode & 07777),
					(unsigned)st.st_uid, path);
		}
		if (slash == NULL)
			break;
		*slash = '/';
	}
	free(path);
	return why;
}

/*
 * Starts the server of the cluster in data, its socket in sock, its log
 * in logf; pg_ctl's status (0: it runs).  Commits are durable: the
 * server runs with PostgreSQL's defaults for fsync and
 * synchronous_commit (docs/robotd.md has the cost).  Without JIT: its
 * compiled code is memory both written and run, which robotd's unit
 * forbids (MemoryDenyWriteExecute, dist/systemd/robotd.service), and
 * robotd's queries are too small to gain from it.
 */
static int
start_server(const char *bin, const char *data, const char *sock,
	     const char *logf)
{
	char *pgctl = xasprintf("%s/pg_ctl", bin);
	char *opts = xasprintf("-k %s -c listen_addresses='' "
			       "-c max_connections=200 -c shared_buffers=128MB "
			       "-c jit=off",
			       sock);
	char *argv[] = {pgctl,        "start", "-w",         "-t", "60", "-D",
			(char *)data, "-l",    (char *)logf, "-o", opts, NULL};
	int rc = run(argv, NULL);

	free(pgctl);
	free(opts);
	return rc;
}

int
pgembed_tool(const char *tool, char *const args[], char **out)
{
	char *bin = pg_bindir(), *path, **argv;
	size_t n = 0, len = 0, cap = 0;
	int fds[2] = {-1, -1}, status;
	pid_t pid;

	if (bin == NULL) {
		log_warnx("cannot run %s: PostgreSQL is not installed (initdb "
			  "not found; scripts/deps installs it)",
			  tool);
		return -1;
	}
	path = xasprintf("%s/%s", bin, tool);
	free(bin);
	while (args[n] != NULL)
		n++;
	argv = xcalloc(n + 2, sizeof *argv);
	argv[0] = path;
	memcpy(argv + 1, args, n * sizeof *argv);
	if (out != NULL && pipe(fds) == -1) {
		log_warn("cannot run %s: pipe", tool);
		free(argv);
		free(path);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		if (fds[1] != -1) {
			dup2(fds[1], 1);
			close(fds[0]);
			close(fds[1]);
		}
		execv(path, argv);
		_exit(127);
	}
	if (fds[1] != -1)
		close(fds[1]);
	if (pid != -1 && out != NULL) {
		char *buf = NULL;
		ssize_t r;

		for (;;) {
			if (cap - len < 4096) {
				cap = cap ? cap * 2 : 8192;
				buf = xreallocarray(buf, cap, 1);
			}
			r = read(fds[0], buf + len, cap - len - 1);
			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		buf[len] = '\0';
		*out = buf;
	}
	if (fds[0] != -1)
		close(fds[0]);
	free(argv);
	free(path);
	if (pid == -1) {
		log_warn("cannot run %s: fork", tool);
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char *
pgembed_start(const char *state_dir, bool *started, char **err)
{
	char *bin = pg_bindir(), *pg = xasprintf("%s/pg", state_dir);
	char *data = xasprintf("%s/data", pg), *sock = xasprintf("%s/run", pg);
	char *logf = xasprintf("%s/server.log", pg);
	char *initdb = NULL, *version = NULL;
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
	if ((*err = unreachable(pg)) != NULL)
		goto out;
	initdb = xasprintf("%s/initdb", bin);
	version = xasprintf("%s/PG_VERSION", data);
	if (stat(version, &st) != 0) {
		char *argv[] = {initdb,  "-D",          data,    "-U",
				"robot", "-A",          "trust", "-E",
				"UTF8",  "--no-locale", NULL};

		log_info("making the embedded database in '%s'", data);
		if (!own_dir(data, 0700) || run(argv, logf) != 0) {
			*err = xasprintf("initdb of '%s' failed; see '%s'",
					 data, logf);
			goto out;
		}
	}
	/* What pg_ctl status asks (the postmaster.pid's process runs),
	 * without a runuser and a pg_ctl: about 30 ms of CPU a start. */
	if (pgembed_alive(state_dir)) {
		log_info("the embedded database in '%s' is running; using it",
			 data);
		conninfo =
			xasprintf("host=%s user=robot dbname=postgres", sock);
		goto out;
	}
	if (start_server(bin, data, sock, logf) != 0) {
		*err = xasprintf("cannot start the embedded database; see '%s'",
				 logf);
		goto out;
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

bool
pgembed_alive(const char *state_dir)
{
	char *pidfile = xasprintf("%s/pg/data/postmaster.pid", state_dir);
	FILE *fp = fopen(pidfile, "r");
	long pid = 0;
	bool alive;

	free(pidfile);
	if (fp == NULL)
		return false;
	if (fscanf(fp, "%ld", &pid) != 1)
		pid = 0;
	fclose(fp);
	alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
	return alive;
}

pid_t
pgembed_restart(const char *state_dir)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *bin = pg_bindir();
		char *data = xasprintf("%s/pg/data", state_dir);
		char *sock = xasprintf("%s/pg/run", state_dir);
		char *logf = xasprintf("%s/pg/server.log", state_dir);

		_exit(bin != NULL && start_server(bin, data, sock, logf) == 0
			      ? 0
			      : 1);
	}
	return pid;
}
