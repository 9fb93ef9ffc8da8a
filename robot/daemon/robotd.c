/*
 * robotd.c: the daemon: configuration, the database (embedded or given),
 * migrations, the HTTP API on one libevent loop, the janitor that expires
 * leases, and signals.
 *
 * robotd is in one of two states: ROBOTD_RUNNING, or ROBOTD_STOPPING
 * after SIGTERM or SIGINT, when it stops listening, answers the boxes
 * waiting for work (they ask again elsewhere or later), lets the requests
 * in flight finish (at most ROBOTD_STOP_SECONDS), and exits.  Leases are
 * the boxes' and live in the database: they run on, and expire only if
 * no robotd hears their heartbeats in time.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/db.h"
#include "robot/daemon/migrate.h"
#include "robot/daemon/pgembed.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/tokens.h"
#include "web/api.h"
#include "web/httpd.h"
#include "robot/core/banned.h"

#define ROBOTD_STOP_SECONDS 10
/* The memory libmicrohttpd gives each connection: enough for a request's
 * headers and an answer's, small enough for thousands of idle boxes. */
#define ROBOTD_CONNECTION_MEMORY 8192

enum robotd_state {
	ROBOTD_RUNNING,
	ROBOTD_STOPPING,
};

struct robotd {
	struct event_base *base;
	struct config cfg;
	enum robotd_state state;
	bool embedded;
	char *conninfo;
	struct db *db;
	struct tokens *tokens;
	struct api *api;
	struct httpd *httpd;
	struct event *sigterm, *sigint, *sighup, *janitor, *stopper;
	bool janitor_busy;
	struct timespec stop_started;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: robotd [--config FILE] [--state-dir DIR | --db DSN]\n"
		"              [--listen ADDR:PORT] [--debug]\n"
		"       robotd [--config FILE] [--state-dir DIR | --db DSN] "
		"token create\n"
		"              --kind submit|box|admin --name NAME\n"
		"\n"
		"The robot's server: the HTTP API, the job queue and the lab's "
		"leases.\n"
		"Without --db it runs a private PostgreSQL in "
		"STATE-DIR/pg.\n"
		"  --config FILE      settings (see robot/config.h)\n"
		"  --state-dir DIR    where the embedded database lives\n"
		"                     (/var/lib/robot)\n"
		"  --db DSN           an existing PostgreSQL (libpq "
		"conninfo)\n"
		"  --listen ADDR:PORT the API's address (127.0.0.1:8420)\n"
		"  --debug            log every step\n"
		"token create prints a new token once; only its hash is "
		"stored.\n");
}

static void
robotd_on_notify(const char *payload, void *arg)
{
	struct robotd *d = arg;

	if (d->api != NULL)
		api_on_notify(payload, d->api);
}

static void
janitor_on_row(const struct db_result *r, void *arg)
{
	struct robotd *d = arg;

	d->janitor_busy = false;
	if (r != NULL && db_rows(r) > 0 && atoi(db_value(r, 0, 0)) > 0)
		log_info("%s lease%s expired: back to the queue",
			 db_value(r, 0, 0),
			 strcmp(db_value(r, 0, 0), "1") == 0 ? "" : "s");
}

/* Once a second: leases past their deadline go back to the queue. */
static void
robotd_on_janitor(evutil_socket_t fd, short what, void *arg)
{
	struct robotd *d = arg;

	(void)fd;
	(void)what;
	if (d->janitor_busy || !db_up(d->db))
		return;
	d->janitor_busy = true;
	db_query(d->db, "SELECT robot_expire()", 0, NULL, janitor_on_row, d);
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
	if (httpd_in_flight(d->httpd) == 0 ||
	    since(&d->stop_started) > ROBOTD_STOP_SECONDS) {
		if (httpd_in_flight(d->httpd) > 0)
			log_warnx("stopping with %zu requests unanswered",
				  httpd_in_flight(d->httpd));
		event_base_loopbreak(d->base);
	}
}

static void
robotd_on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct robotd *d = arg;
	struct timeval tv = {0, 50000};

	(void)what;
	if (d->state == ROBOTD_STOPPING) {
		log_info("signal %d again: stopping now", (int)sig);
		event_base_loopbreak(d->base);
		return;
	}
	log_info("signal %d: stopping (%zu requests in flight)", (int)sig,
		 httpd_in_flight(d->httpd));
	d->state = ROBOTD_STOPPING;
	clock_gettime(CLOCK_MONOTONIC, &d->stop_started);
	httpd_quiesce(d->httpd);
	api_quiesce(d->api);
	d->stopper = event_new(d->base, -1, EV_PERSIST, robotd_on_stopper, d);
	event_add(d->stopper, &tv);
}

/* SIGHUP: reread the file; what needs a restart keeps its value. */
static void
robotd_on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct robotd *d = arg;
	struct config c;
	struct errlist el;

	(void)sig;
	(void)what;
	if (d->cfg.path == NULL) {
		log_info("SIGHUP: no configuration file to reload");
		return;
	}
	config_defaults(&c);
	errlist_init(&el);
	if (!config_load(d->cfg.path, &c, &el)) {
		log_warnx("SIGHUP: '%s' has errors; keeping the running "
			  "configuration",
			  d->cfg.path);
		errlist_print(&el, stderr);
		errlist_release(&el);
		config_release(&c);
		return;
	}
	errlist_release(&el);
	if (c.listen_port != d->cfg.listen_port ||
	    strcmp(c.listen_addr, d->cfg.listen_addr) != 0 ||
	    (c.db == NULL) != (d->cfg.db == NULL) ||
	    (c.db && strcmp(c.db, d->cfg.db) != 0) ||
	    c.db_pool != d->cfg.db_pool ||
	    c.max_connections != d->cfg.max_connections)
		log_warnx("SIGHUP: listen, db, db_pool and max_connections "
			  "change only at a restart");
	d->cfg.lease_seconds = d->api->cfg.lease_seconds = c.lease_seconds;
	d->cfg.max_attempts = d->api->cfg.max_attempts = c.max_attempts;
	d->cfg.broken_after = d->api->cfg.broken_after = c.broken_after;
	d->cfg.max_jobs = c.max_jobs;
	d->api->cfg.max_jobs = (size_t)c.max_jobs;
	d->cfg.long_poll = d->api->cfg.long_poll = c.long_poll;
	free(d->api->cfg.default_group);
	d->api->cfg.default_group = c.tbox_group ? xstrdup(c.tbox_group) : NULL;
	log_info("SIGHUP: reloaded '%s'", d->cfg.path);
	config_release(&c);
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

static int
robotd_serve(struct robotd *d)
{
	struct httpd_options ho;
	struct api_config ac;
	char *err = NULL;

	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	d->base = event_base_new();
	if (d->base == NULL)
		fatalx("cannot make the event loop");
	d->db = db_new(d->base, d->conninfo, d->cfg.db_pool, "robot_jobs",
		       robotd_on_notify, d);
	d->tokens = tokens_new(d->db);
	ac = (struct api_config){d->cfg.lease_seconds, d->cfg.max_attempts,
				 d->cfg.broken_after,  (size_t)d->cfg.max_jobs,
				 d->cfg.long_poll,     d->cfg.tbox_group};
	d->api = api_new(d->base, d->db, d->tokens, &ac);
	ho = (struct httpd_options){d->cfg.listen_addr, d->cfg.listen_port,
				    (size_t)d->cfg.max_connections,
				    ROBOTD_CONNECTION_MEMORY};
	d->httpd = httpd_new(d->base, &ho, api_on_request, api_body_limit,
			     d->api, &err);
	if (d->httpd == NULL) {
		log_warnx("%s", err);
		free(err);
		return 1;
	}
	d->sigterm = evsignal_new(d->base, SIGTERM, robotd_on_stop, d);
	d->sigint = evsignal_new(d->base, SIGINT, robotd_on_stop, d);
	d->sighup = evsignal_new(d->base, SIGHUP, robotd_on_hup, d);
	d->janitor = event_new(d->base, -1, EV_PERSIST, robotd_on_janitor, d);
	event_add(d->sigterm, NULL);
	event_add(d->sigint, NULL);
	event_add(d->sighup, NULL);
	{
		struct timeval tv = {1, 0};

		event_add(d->janitor, &tv);
	}
	log_info("listening on http://%s:%d (lease %d s, %s database)",
		 d->cfg.listen_addr, httpd_port(d->httpd), d->cfg.lease_seconds,
		 d->embedded ? "embedded" : "external");
	event_base_dispatch(d->base);
	/* Unanswered requests get 503 from the failed queries, then the
	 * loop runs a little so that libmicrohttpd sends those answers. */
	db_free(d->db);
	d->db = NULL;
	api_free(d->api);
	d->api = NULL;
	for (int i = 0; i < 20 && httpd_in_flight(d->httpd) > 0; i++) {
		struct timeval tv = {0, 10000};

		event_base_loopexit(d->base, &tv);
		event_base_dispatch(d->base);
	}
	httpd_free(d->httpd);
	tokens_free(d->tokens);
	event_free(d->sigterm);
	event_free(d->sigint);
	event_free(d->sighup);
	event_free(d->janitor);
	if (d->stopper != NULL)
		event_free(d->stopper);
	event_base_free(d->base);
	log_info("stopped");
	return 0;
}

static int
robotd_token(struct robotd *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{"kind", required_argument, NULL, 'k'},
		{"name", required_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	const char *kind = NULL, *name = NULL;
	char *token, *err;
	int c;

	if (argc < 2 || strcmp(argv[1], "create") != 0) {
		usage(stderr);
		return 2;
	}
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		if (c == 'k')
			kind = optarg;
		else if (c == 'n')
			name = optarg;
		else
			return 2;
	}
	if (kind == NULL || name == NULL ||
	    (strcmp(kind, "submit") != 0 && strcmp(kind, "box") != 0 &&
	     strcmp(kind, "admin") != 0) ||
	    name[0] == '\0' || strlen(name) > 100) {
		log_warnx("token create wants --kind submit|box|admin and "
			  "--name NAME");
		return 2;
	}
	token = pgsync_token_create(d->conninfo, kind, name, &err);
	if (token == NULL) {
		log_warnx("cannot make a token: %s", err);
		free(err);
		return 1;
	}
	printf("%s\n", token);
	free(token);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"state-dir", required_argument, NULL, 's'},
		{"db", required_argument, NULL, 'D'},
		{"listen", required_argument, NULL, 'l'},
		{"debug", no_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *state_dir = NULL, *dsn = NULL,
		   *listen = NULL;
	struct robotd d;
	struct errlist el;
	bool debug = false, started = false;
	char *err = NULL;
	int c, version, rc;

	memset(&d, 0, sizeof d);
	log_init("robotd", LOG_LEVEL_INFO);
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			state_dir = optarg;
			break;
		case 'D':
			dsn = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'd':
			debug = true;
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
	if (optind < argc && strcmp(argv[optind], "token") != 0) {
		log_warnx("unknown command '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	config_defaults(&d.cfg);
	errlist_init(&el);
	if (config != NULL && !config_load(config, &d.cfg, &el)) {
		errlist_print(&el, stderr);
		errlist_release(&el);
		config_release(&d.cfg);
		return 2;
	}
	errlist_release(&el);
	if (state_dir != NULL) {
		char cwd[4096];

		free(d.cfg.state_dir);
		/* The socket's directory must be absolute: libpq takes a
		 * relative host for a host name. */
		if (state_dir[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
			d.cfg.state_dir = xasprintf("%s/%s", cwd, state_dir);
		else
			d.cfg.state_dir = xstrdup(state_dir);
	}
	if (dsn != NULL) {
		free(d.cfg.db);
		d.cfg.db = xstrdup(dsn);
	}
	if (listen != NULL && !config_set_listen(&d.cfg, listen)) {
		log_warnx("--listen wants ADDR:PORT, not '%s'", listen);
		config_release(&d.cfg);
		return 2;
	}
	log_init("robotd", debug ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	log_set_timestamps(optind == argc);
	d.embedded = d.cfg.db == NULL;
	if (d.embedded) {
		d.conninfo = pgembed_start(d.cfg.state_dir, &started, &err);
		if (d.conninfo == NULL) {
			log_warnx("%s", err);
			free(err);
			config_release(&d.cfg);
			return 1;
		}
	} else {
		d.conninfo = xstrdup(d.cfg.db);
	}
	if (!pgsync_migrate(d.conninfo, &version, &err)) {
		log_warnx("%s", err);
		free(err);
		rc = 1;
	} else if (optind < argc) {
		rc = robotd_token(&d, argc - optind, argv + optind);
		/* A database started for this command alone stops again. */
		if (!started)
			d.embedded = false;
	} else {
		log_info("database schema version %d", version);
		rc = robotd_serve(&d);
	}
	if (d.embedded)
		pgembed_stop(d.cfg.state_dir);
	free(d.conninfo);
	config_release(&d.cfg);
	return rc;
}
