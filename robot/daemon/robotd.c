/*
 * robotd.c: the daemon: configuration, the database (embedded or given),
 * migrations, the HTTP API on one libevent loop, the janitor that expires
 * leases, the analysis of finished pairs, the trees' watcher, and signals.
 *
 * robotd is in one of two states: ROBOTD_RUNNING, or ROBOTD_STOPPING
 * after SIGTERM or SIGINT, when it stops listening, answers the boxes
 * waiting for work (they ask again elsewhere or later), lets the requests
 * in flight finish (at most ROBOTD_STOP_SECONDS), and exits.  Leases are
 * the boxes' and live in the database: they run on, and expire only if
 * no robotd hears their heartbeats in time.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "reporters/reporters.h"
#include "robot/core/errlist.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/analysis.h"
#include "robot/daemon/bisect.h"
#include "robot/daemon/db.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/health.h"
#include "robot/daemon/power.h"
#include "robot/daemon/sdnotify.h"
#include "robot/daemon/janitor.h"
#include "robot/daemon/lab.h"
#include "robot/daemon/pgembed.h"
#include "robot/daemon/pgwatch.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"
#include "robot/daemon/store/schema.h"
#include "robot/daemon/credentials.h"
#include "robot/daemon/tokens.h"
#include "robot/daemon/trees.h"
#include "robot/daemon/worker.h"
#include "web/router.h"
#include "robot/core/banned.h"

#define ROBOTD_STOP_SECONDS 10
/* Seconds between checks that no newer robotd upgraded the database
 * under this one (besides its NOTIFY): robotd_check_functions(). */
#define ROBOTD_FUNCTIONS_CHECK 30

enum robotd_state {
	ROBOTD_RUNNING,
	ROBOTD_STOPPING,
};
static const char *const robotd_states[] = {
	[ROBOTD_RUNNING] = "running",
	[ROBOTD_STOPPING] = "stopping",
};
static const struct fsm robotd_fsm =
	FSM("robotd", robotd_states, ROBOTD_STOPPING);

struct robotd {
	struct event_base *base;
	struct settings set; /* live: SIGHUP changes what may change */
	enum robotd_state state;
	bool embedded;
	char *conninfo;
	struct db *db;
	struct store *store;
	struct tokens *tokens;
	struct drain *drain; /* the background work's engine */
	struct lab *lab;
	struct analysis *analysis;
	struct bisect *bisect;
	struct trees *trees;
	struct reporters *reporters;
	struct worker *worker;
	struct janitor *janitor;
	struct health *health;
	struct power *power;
	struct pgwatch *pgwatch; /* the embedded database's supervisor */
	struct router *router;
	struct event *sigterm, *sigint, *sighup, *stopper;
	struct event *watchdog; /* WATCHDOG=1 to systemd, or NULL */
	struct event *versions; /* robotd_check_functions(), now and then */
	struct timespec stop_started;
	int exit_code; /* robotd_serve()'s, once it stopped */
};

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: robotd [--config FILE] [--state-dir DIR | --db DSN]\n"
		"              [--listen ADDR:PORT] [--debug] [--allow-root]\n"
		"       robotd [--config FILE] [--state-dir DIR | --db DSN] "
		"token create\n"
		"              --kind submit|box|admin|triage --name NAME "
		"[--group "
		"G]\n"
		"       robotd [--config FILE] [--state-dir DIR | --db DSN] "
		"box enroll NAME\n"
		"              [--group G] [--expires 1h]\n"
		"       robotd [--config FILE] --check-config\n"
		"       robotd [--config FILE] [--state-dir DIR | --db DSN] "
		"backup|restore FILE\n"
		"\n"
		"The robot's server: the HTTP API, the job queue and the lab's "
		"leases.\n"
		"Without --db it runs a private PostgreSQL in "
		"STATE-DIR/pg.\n"
		"  --config FILE      settings (examples/robotd.yaml has "
		"them all)\n"
		"  --state-dir DIR    where the embedded database lives\n"
		"                     (/var/lib/robot)\n"
		"  --db DSN           an existing PostgreSQL (libpq "
		"conninfo)\n"
		"  --listen ADDR:PORT the API's address (127.0.0.1:8420)\n"
		"  --debug            log every step\n"
		"  --allow-root       serve as root (else refused: run it as "
		"its own user;\n"
		"                     ROBOTD_ALLOW_ROOT=1 does the same)\n"
		"  --check-config     check FILE and exit: 0, or 2 with each "
		"bad line\n"
		"token create prints a new token once; only its hash is "
		"stored; a box\ntoken's --group is the group its box may "
		"register in (without one, the\ngroup it first registers "
		"in).\n"
		"box enroll prints a one-time code that the box trades for "
		"its own token\n(robot-box enroll URL CODE), before it "
		"expires (an hour; at most 7d).\n"
		"backup writes the database to FILE (pg_dump's custom format) "
		"while robotd\nserves; restore loads FILE into it while no "
		"robotd serves, refusing a dump\nof a newer schema than this "
		"robotd knows (docs/deploy.md).\n");
}

static void robotd_check_functions(struct robotd *d);

static void
robotd_on_notify(const char *payload, void *arg)
{
	struct robotd *d = arg;

	/* A worker's topic (":analysis", ":reports", ...: the engine's
	 * table) wakes it; anything else is a box group with work for
	 * the lab.  NULL (a reconnect) is news for all.  ":tokens": a
	 * token was revoked, here or by another robotd; ":functions": a
	 * robotd loaded its functions (a newer one stops this one). */
	if (payload == NULL || strcmp(payload, ":functions") == 0) {
		robotd_check_functions(d);
		if (payload != NULL)
			return;
	}
	if (d->tokens != NULL &&
	    (payload == NULL || strcmp(payload, ":tokens") == 0)) {
		tokens_forget(d->tokens);
		if (payload != NULL)
			return;
	}
	if (d->drain != NULL && drain_notify(d->drain, payload) &&
	    payload != NULL)
		return;
	if (d->lab != NULL)
		lab_on_notify(d->lab, payload);
}

static double
since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void
robotd_on_stopper(evutil_socket_t fd, short what, void *arg)
{
	struct robotd *d = arg;

	(void)fd;
	(void)what;
	if (router_in_flight(d->router) == 0 ||
	    since(&d->stop_started) > ROBOTD_STOP_SECONDS) {
		if (router_in_flight(d->router) > 0)
			log_warnx("stopping with %zu requests unanswered",
				  router_in_flight(d->router));
		event_base_loopbreak(d->base);
	}
}

/* Stops serving: requests in flight are answered (at most
 * ROBOTD_STOP_SECONDS), then the loop ends. */
static void
robotd_begin_stop(struct robotd *d)
{
	struct timeval tv = {0, 50000};

	sdnotify("STOPPING=1");
	FSM_SET(&robotd_fsm, d->state, ROBOTD_STOPPING, "robotd");
	clock_gettime(CLOCK_MONOTONIC, &d->stop_started);
	router_quiesce(d->router);
	lab_quiesce(d->lab);
	d->stopper = event_new(d->base, -1, EV_PERSIST, robotd_on_stopper, d);
	event_add(d->stopper, &tv);
}

static void
robotd_on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct robotd *d = arg;

	(void)what;
	if (d->state == ROBOTD_STOPPING) {
		log_info("signal %d again: stopping now", (int)sig);
		event_base_loopbreak(d->base);
		return;
	}
	log_info("signal %d: stopping (%zu requests in flight)", (int)sig,
		 router_in_flight(d->router));
	robotd_begin_stop(d);
}

/*
 * A newer robotd on the same database (an upgrade across the lab) has
 * loaded functions this one does not know: its calls would run them
 * with an older one's understanding.  It stops, saying so, and takes no
 * more work; started again it refuses the database until it is upgraded
 * (store_migrate()).
 */
static void
robotd_on_functions(const char *text, const struct problem *p, void *arg)
{
	struct robotd *d = arg;
	int v = text != NULL ? atoi(text) : 0;

	if (p != NULL || v <= store_functions_version() ||
	    d->state != ROBOTD_RUNNING)
		return;
	log_warnx("the database's functions are version %d, newer than this "
		  "robotd's (%d, robot %s): a newer robotd upgraded it, so "
		  "this one stops and takes no more work; upgrade it",
		  v, store_functions_version(), ROBOT_VERSION);
	d->exit_code = 1;
	robotd_begin_stop(d);
}

static void
robotd_check_functions(struct robotd *d)
{
	if (d->store != NULL && d->state == ROBOTD_RUNNING)
		store_functions_loaded(d->store, robotd_on_functions, d);
}

static void
robotd_on_versions(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	robotd_check_functions(arg);
}

/* SIGHUP: reread the file; what needs a restart keeps its value. */
static void
robotd_on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct robotd *d = arg;
	struct settings fresh;
	struct errlist el;
	char *names, *err;

	(void)sig;
	(void)what;
	if (d->set.path == NULL) {
		log_info("SIGHUP: no configuration file to reload");
		return;
	}
	sdnotify("RELOADING=1");
	settings_defaults(&fresh);
	errlist_init(&el);
	if (!settings_load(d->set.path, &fresh, &el)) {
		log_warnx("SIGHUP: '%s' has errors; keeping the running "
			  "configuration",
			  d->set.path);
		errlist_print(&el, stderr);
		errlist_release(&el);
		settings_release(&fresh);
		sdnotify("READY=1\nSTATUS=serving; the configuration file "
			 "has errors: the running one kept");
		return;
	}
	errlist_release(&el);
	/* The flags given at start stay over the file. */
	if (settings_reload(&d->set, &fresh, &names) > 0) {
		log_warnx("SIGHUP: %s change only at a restart", names);
		free(names);
	}
	log_info("SIGHUP: reloaded '%s'", d->set.path);
	settings_release(&fresh);
	/* (a renewed certificate, in the same files) */
	if (!router_tls_reload(d->router, &err)) {
		log_warnx("SIGHUP: %s; keeping the certificate before", err);
		free(err);
	} else if (d->set.tls_cert != NULL) {
		log_info("SIGHUP: read the certificate '%s' again",
			 d->set.tls_cert);
	}
	sdnotify("READY=1\nSTATUS=serving");
}

/* WATCHDOG=1 from the loop: a loop that hangs stops saying it. */
static void
robotd_on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sdnotify("WATCHDOG=1");
}

/* Thousands of idle boxes are thousands of descriptors. */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("setrlimit RLIMIT_NOFILE");
	}
}

/* Tells systemd (a Type=notify unit) that robotd serves, and pings its
 * watchdog from the loop at half its interval. */
static void
robotd_notify_ready(struct robotd *d)
{
	uint64_t usec = sdnotify_watchdog_usec();
	char *state = xasprintf("READY=1\nSTATUS=serving on %s:%d\nMAINPID=%ld",
				d->set.listen_addr, router_port(d->router),
				(long)getpid());

	sdnotify(state);
	free(state);
	if (usec > 0) {
		struct timeval tv = {(time_t)(usec / 2 / 1000000),
				     (suseconds_t)(usec / 2 % 1000000)};

		d->watchdog = event_new(d->base, -1, EV_PERSIST,
					robotd_on_watchdog, d);
		event_add(d->watchdog, &tv);
		sdnotify("WATCHDOG=1");
	}
}

static int
robotd_serve(struct robotd *d)
{
	struct web_deps wd;
	struct timeval tv = {0, 10000};
	char *err = NULL, *url;
	int rc = 0;

	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	d->base = event_base_new();
	if (d->base == NULL)
		fatalx("cannot make the event loop");
	d->db = db_new(d->base, d->conninfo, d->set.db_pool, "robot_jobs",
		       robotd_on_notify, d);
	d->store = store_new(d->db);
	d->tokens = tokens_new(d->store);
	/* jansson's hash seed, before a second thread uses jansson. */
	json_object_seed(0);
	d->worker = worker_new(d->base);
	d->lab = lab_new(d->base, d->store, d->worker, &d->set);
	d->drain = drain_new(d->base, d->store);
	d->analysis = analysis_new(d->drain, d->base, d->store, &d->set);
	d->bisect = bisect_new(d->drain, d->base, d->store, &d->set);
	d->trees = trees_new(d->drain, d->base, d->store, &d->set);
	d->reporters = reporters_new(d->drain, d->base, d->store, &d->set);
	d->janitor = janitor_new(d->drain, d->store, &d->set);
	d->health = health_new(d->drain, d->store, &d->set);
	d->power = power_new(d->drain, d->store, &d->set);
	wd = (struct web_deps){d->base,     d->store,  d->tokens,    d->lab,
			       d->analysis, d->bisect, d->reporters, &d->set};
	d->router = router_new(&wd, &err);
	if (d->router == NULL) {
		/* (what was made for it goes as at a stop) */
		log_warnx("%s", err);
		free(err);
		rc = 1;
		goto stop;
	}
	url = xasprintf("%s://%s:%d", router_scheme(d->router),
			d->set.listen_addr, router_port(d->router));
	reporters_set_url(d->reporters, url);
	free(url);
	/* Every worker looks once the loop runs (robotd listens, its URL
	 * known). */
	drain_notify(d->drain, NULL);
	if (d->embedded)
		d->pgwatch = pgwatch_new(d->base, d->set.state_dir);
	d->sigterm = evsignal_new(d->base, SIGTERM, robotd_on_stop, d);
	d->sigint = evsignal_new(d->base, SIGINT, robotd_on_stop, d);
	d->sighup = evsignal_new(d->base, SIGHUP, robotd_on_hup, d);
	event_add(d->sigterm, NULL);
	event_add(d->sigint, NULL);
	event_add(d->sighup, NULL);
	log_info("listening on %s://%s:%d (lease %d s, %s database)",
		 router_scheme(d->router), d->set.listen_addr,
		 router_port(d->router), d->set.lease_seconds,
		 d->embedded ? "embedded" : "external");
	robotd_notify_ready(d);
	{
		/* (a NOTIFY missed while the database was away) */
		struct timeval every = {ROBOTD_FUNCTIONS_CHECK, 0};

		d->versions = event_new(d->base, -1, EV_PERSIST,
					robotd_on_versions, d);
		event_add(d->versions, &every);
	}
	event_base_dispatch(d->base);
stop:
	/* Unanswered requests get 503 from the failed queries and from the
	 * lab, then the loop runs a little so that libmicrohttpd sends
	 * those answers.  The worker stops first: what it finishes may still
	 * queue a query, which then fails; what comes to it after runs at
	 * once. */
	worker_stop(d->worker);
	analysis_stop(d->analysis);
	drain_stop(d->drain);
	db_free(d->db);
	d->db = NULL;
	lab_free(d->lab);
	d->lab = NULL;
	analysis_free(d->analysis);
	d->analysis = NULL;
	bisect_free(d->bisect);
	d->bisect = NULL;
	trees_free(d->trees);
	d->trees = NULL;
	reporters_free(d->reporters);
	d->reporters = NULL;
	worker_free(d->worker);
	d->worker = NULL;
	for (int i = 0;
	     i < 20 && d->router != NULL && router_in_flight(d->router) > 0;
	     i++) {
		event_base_loopexit(d->base, &tv);
		event_base_dispatch(d->base);
	}
	router_free(d->router);
	/* The works still in hand, then their workers. */
	drain_free(d->drain);
	janitor_free(d->janitor);
	health_free(d->health);
	power_free(d->power);
	pgwatch_free(d->pgwatch);
	tokens_free(d->tokens);
	store_free(d->store);
	if (d->sigterm != NULL) {
		event_free(d->sigterm);
		event_free(d->sigint);
		event_free(d->sighup);
	}
	if (d->stopper != NULL)
		event_free(d->stopper);
	if (d->watchdog != NULL)
		event_free(d->watchdog);
	if (d->versions != NULL)
		event_free(d->versions);
	/* What was deferred (defer()) runs before the loop goes. */
	for (int i = 0; i < 4; i++)
		event_base_loop(d->base, EVLOOP_NONBLOCK);
	event_base_free(d->base);
	log_info("stopped");
	return rc != 0 ? rc : d->exit_code;
}

/* `robotd backup FILE`: the database, as pg_dump's custom format. */
static int
robotd_backup(const struct robotd *d, const char *file)
{
	char *args[] = {"--format=custom", "--file",    (char *)file,
			"--dbname",        d->conninfo, NULL};
	int rc;

	umask(077); /* (tokens' hashes, subscribers' addresses) */
	rc = pgembed_tool("pg_dump", args, NULL);
	if (rc != 0) {
		log_warnx("backup to '%s' failed (pg_dump exited %d)", file,
			  rc);
		return 1;
	}
	log_info("backed up the database to '%s'", file);
	return 0;
}

/* The newest schema version a dump's robot_schema records (its COPY's
 * first column), 0 when it has none. */
static int
dump_schema_version(const char *file, bool *ok)
{
	char *args[] = {"--data-only", "--table=robot_schema", "--file=-",
			(char *)file, NULL};
	char *out = NULL, *line, *save = NULL;
	bool rows = false;
	int v = 0;

	*ok = pgembed_tool("pg_restore", args, &out) == 0;
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "COPY ", 5) == 0) {
			rows = true;
		} else if (rows && strcmp(line, "\\.") == 0) {
			rows = false;
		} else if (rows) {
			int x = (int)strtol(line, NULL, 10);

			v = x > v ? x : v;
		}
	}
	free(out);
	return v;
}

/* `robotd restore FILE`: FILE's objects into the database (each
 * dropped first), when its schema is not newer than this robotd's;
 * robotd migrates the rest at its next start. */
static int
robotd_restore(const struct robotd *d, const char *file)
{
	char *args[] = {
		"--clean",  "--if-exists", "--no-owner", "--single-transaction",
		"--dbname", d->conninfo,   (char *)file, NULL};
	bool ok;
	int v = dump_schema_version(file, &ok), rc;

	if (!ok) {
		log_warnx("cannot read '%s' as a backup (pg_dump's custom "
			  "format)",
			  file);
		return 1;
	}
	if (v > store_schema_latest()) {
		log_warnx(
			"'%s' holds schema version %d, newer than this robotd "
			"knows (%d): restore it with that robotd's version",
			file, v, store_schema_latest());
		return 1;
	}
	rc = pgembed_tool("pg_restore", args, NULL);
	if (rc != 0) {
		log_warnx("restore of '%s' failed (pg_restore exited %d); the "
			  "database is as it was",
			  file, rc);
		return 1;
	}
	log_info("restored '%s' (schema version %d); robotd migrates it at "
		 "its next start",
		 file, v);
	return 0;
}

/* The flags that set a setting, over the configuration file. */
struct robotd_flag {
	const char *setting;
	const char *value;
	const char *what; /* the flag, for the message when it is bad */
};

/* Loads the settings: the file, then the flags; false after saying why. */
static bool
robotd_settings(struct robotd *d, const char *config,
		const struct robotd_flag *flags, size_t n)
{
	struct errlist el;
	bool ok;

	settings_defaults(&d->set);
	errlist_init(&el);
	ok = config == NULL || settings_load(config, &d->set, &el);
	errlist_print(&el, stderr);
	errlist_release(&el);
	for (size_t i = 0; ok && i < n; i++) {
		char cwd[4096], *v, *why;

		if (flags[i].value == NULL)
			continue;
		/* The socket's directory must be absolute: libpq takes a
		 * relative host for a host name. */
		if (strcmp(flags[i].setting, "state_dir") == 0 &&
		    flags[i].value[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
			v = xasprintf("%s/%s", cwd, flags[i].value);
		else
			v = xstrdup(flags[i].value);
		if (!settings_set(&d->set, flags[i].setting, v, &why)) {
			log_warnx("%s: %s", flags[i].what, why);
			free(why);
			ok = false;
		}
		free(v);
	}
	if (!ok)
		settings_release(&d->set);
	return ok;
}

/* The state directory (its embedded database) is this robotd's while it
 * serves: an flock on STATE/robotd.pid (which holds its pid), kept until
 * it exits.  False, after saying which robotd has it, when another
 * serves from it: two on one directory would share, and then stop, one
 * embedded database. */
static bool
robotd_lock(const struct robotd *d)
{
	char *path = xasprintf("%s/robotd.pid", d->set.state_dir);
	char pid[32] = "";
	int fd;
	ssize_t n;

	mkdir(d->set.state_dir, 0755);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1) {
		log_warn("cannot open %s", path);
		free(path);
		return false;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			n = read(fd, pid, sizeof pid - 1);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			log_warnx("another robotd (pid %s) serves %s: stop it "
				  "first, or give this one another state_dir",
				  pid[0] ? pid : "?", d->set.state_dir);
		} else
			log_warn("cannot lock %s", path);
		close(fd);
		free(path);
		return false;
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 ||
	    write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid))
		log_warn("cannot write %s", path);
	free(path);
	/* fd stays open, and the lock with it, until robotd exits. */
	return true;
}

/* Starts the embedded database, or takes the given one, and migrates
 * it when asked; false after saying why.  *started: this call started
 * it. */
static bool
robotd_database(struct robotd *d, bool migrate, bool *started, int *version)
{
	char *err = NULL;

	*version = 0;
	d->embedded = d->set.db == NULL;
	if (d->embedded)
		d->conninfo = pgembed_start(d->set.state_dir, started, &err);
	else
		d->conninfo = xstrdup(d->set.db);
	if (d->conninfo != NULL &&
	    (!migrate || store_migrate(d->conninfo, version, &err)))
		return true;
	log_warnx("%s", err);
	free(err);
	return false;
}

/* Whether stderr is the journal's stream ($JOURNAL_STREAM names its
 * device and inode): then lines carry their priority, not a time. */
static bool
robotd_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js != NULL && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	       fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/* Whether robotd may run as it is: not as root, unless told. */
static bool
robotd_user_ok(bool allow_root)
{
	const char *env = getenv("ROBOTD_ALLOW_ROOT");

	if (geteuid() != 0 || allow_root ||
	    (env != NULL && strcmp(env, "1") == 0))
		return true;
	log_warnx("refusing to run as root: run robotd as its own user (the "
		  "robot package's robotd.service runs it as 'robot'), or "
		  "give --allow-root");
	return false;
}

/* --check-config: the file's settings checked, each bad line said;
 * 0 or 2. */
static int
robotd_check_config(const char *config)
{
	struct settings set;
	struct errlist el;
	bool ok;

	if (config == NULL) {
		log_warnx("--check-config needs --config FILE");
		return 2;
	}
	settings_defaults(&set);
	errlist_init(&el);
	ok = settings_load(config, &set, &el);
	errlist_print(&el, stderr);
	errlist_release(&el);
	settings_release(&set);
	if (ok)
		printf("%s: ok\n", config);
	return ok ? 0 : 2;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"allow-root", no_argument, NULL, 'R'},
		{"check-config", no_argument, NULL, 'C'},
		{"state-dir", required_argument, NULL, 's'},
		{"db", required_argument, NULL, 'D'},
		{"listen", required_argument, NULL, 'l'},
		{"debug", no_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct robotd_flag flags[] = {
		{"state_dir", NULL, "--state-dir"},
		{"db", NULL, "--db"},
		{"listen", NULL, "--listen"},
	};
	const char *config = NULL;
	struct robotd d;
	struct credentials_args ca;
	bool debug = false, started = false, command, allow_root = false;
	bool check = false, restore = false;
	const char *dump = NULL;
	int c, version, rc;

	memset(&d, 0, sizeof d);
	log_init("robotd", LOG_LEVEL_INFO);
	sdnotify_init();
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
		case 'D':
		case 'l':
			flags[c == 's' ? 0 : c == 'D' ? 1 : 2].value = optarg;
			break;
		case 'd':
			debug = true;
			break;
		case 'R':
			allow_root = true;
			break;
		case 'C':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("robotd %s\n", ROBOT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && !credentials_is_command(argv[optind]) &&
	    strcmp(argv[optind], "backup") != 0 &&
	    strcmp(argv[optind], "restore") != 0) {
		log_warnx("unknown command '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (check)
		return robotd_check_config(config);
	command = optind < argc;
	if (command && !credentials_is_command(argv[optind])) {
		if (optind + 2 != argc) {
			log_warnx("%s needs one FILE", argv[optind]);
			usage(stderr);
			return 2;
		}
		dump = argv[optind + 1];
		restore = strcmp(argv[optind], "restore") == 0;
	} else if (command &&
		   (rc = credentials_args(argc - optind, argv + optind, &ca,
					  usage)) != -1) {
		return rc;
	}
	if (!robotd_user_ok(allow_root))
		return 1;
	if (!robotd_settings(&d, config, flags, 3))
		return 2;
	log_init("robotd", debug ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	if (robotd_journal())
		log_set_priorities(true);
	else
		log_set_timestamps(!command);
	/* The embedded database is the state directory's: one robotd
	 * serves it (and a restore is loaded while none does).  With --db,
	 * several robotd share a database (and may share a state
	 * directory). */
	if ((!command || restore) && d.set.db == NULL && !robotd_lock(&d)) {
		settings_release(&d.set);
		return 1;
	}
	/* (`token create` and `box enroll` bring the database up on their
	 * own connection) */
	if (!robotd_database(&d, !command, &started, &version)) {
		rc = 1;
	} else if (dump != NULL) {
		rc = restore ? robotd_restore(&d, dump)
			     : robotd_backup(&d, dump);
		if (!started)
			d.embedded = false;
	} else if (command) {
		rc = credentials_run(d.conninfo, &ca);
		/* A database started for this command alone stops again. */
		if (!started)
			d.embedded = false;
	} else {
		log_info("database schema version %d, functions version %d",
			 version, store_functions_version());
		rc = robotd_serve(&d);
	}
	if (d.embedded && d.conninfo != NULL)
		pgembed_stop(d.set.state_dir);
	free(d.conninfo);
	settings_release(&d.set);
	return rc;
}
