/*
 * enroll.c: robot-box enroll URL CODE (enroll.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/box/box.h"
#include "jobs/box/enroll.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define ENROLL_TIMEOUT 30.0 /* seconds for robotd's answer */

static void
enroll_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot-box enroll URL CODE [--config FILE] "
		"[--token-file FILE]\n"
		"                        [--ca-file FILE] [--insecure-http]\n"
		"\n"
		"Joins robotd's lab: trades the one-time CODE that robotd box "
		"enroll NAME\nprinted on robotd's host for this box's own "
		"token.  The token is kept mode\n0600 in WORKDIR/token (or "
		"FILE), and robotd's URL with the box's name and\ngroup in "
		"WORKDIR/enrolled.json: robot-box serve [--config FILE] "
		"then needs\nnothing more.\n"
		"  --config FILE      the box configuration (its workdir)\n"
		"  --token-file FILE  where the token goes (else "
		"WORKDIR/token)\n"
		"  --ca-file FILE     the CA of robotd's certificate (else "
		"the system's)\n"
		"  --insecure-http    allow plain http to another machine "
		"(the token in clear)\n");
}

/* Writes text to path, mode mode, whole or not at all. */
static bool
write_file(const char *path, const char *text, mode_t mode)
{
	char *tmp = xasprintf("%s.tmp", path);
	size_t n = strlen(text);
	int fd;
	bool ok;

	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) ==
	    -1) {
		log_warn("cannot write '%s'", tmp);
		free(tmp);
		return false;
	}
	ok = fchmod(fd, mode) == 0 && write(fd, text, n) == (ssize_t)n &&
	     fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && rename(tmp, path) == -1)
		ok = false;
	if (!ok) {
		log_warn("cannot write '%s'", path);
		(void)unlink(tmp);
	}
	free(tmp);
	return ok;
}

/* Trades code with server; robotd's answer {name, tbox_group, token},
 * or NULL after saying why. */
static json_t *
enroll_trade(const char *server, const char *code)
{
	json_t *body = json_pack("{s:s}", "code", code), *j = NULL;
	char *text = rjson_dumps(body, JSON_COMPACT);
	char *url = xasprintf("%s/api/enroll", server), *why;
	struct client_resp r;

	if (!client_request("POST", url, NULL, text, strlen(text),
			    ENROLL_TIMEOUT, &r)) {
		log_warnx("cannot reach robotd at %s: %s", server, r.error);
	} else if (r.status != 200) {
		why = client_resp_error(&r);
		log_warnx("robotd refused the enrollment: %s", why);
		free(why);
	} else if ((j = client_resp_json(&r)) == NULL ||
		   rjson_get_str(j, "token") == NULL ||
		   rjson_get_str(j, "name") == NULL ||
		   rjson_get_str(j, "tbox_group") == NULL) {
		log_warnx("robotd's answer is not an enrollment: %.*s",
			  (int)(r.len > 200 ? 200 : r.len), r.body);
		json_decref(j);
		j = NULL;
	}
	client_resp_release(&r);
	explicit_bzero(text, strlen(text));
	free(text);
	free(url);
	json_decref(body);
	return j;
}

/* Keeps what the enrollment gave: the token, then enrolled.json. */
static bool
enroll_keep(const struct boxconf *bc, const char *server, const char *file,
	    json_t *j)
{
	char *token = xasprintf("%s\n", rjson_get_str(j, "token"));
	char *path = xasprintf("%s/enrolled.json", bc->workdir), *text;
	json_t *kept;
	bool ok;

	ok = write_file(file, token, 0600);
	explicit_bzero(token, strlen(token));
	free(token);
	if (ok) {
		kept = json_pack("{s:s, s:s, s:s, s:s}", "server", server,
				 "name", rjson_get_str(j, "name"), "tbox_group",
				 rjson_get_str(j, "tbox_group"), "token_file",
				 file);
		text = rjson_dumps(kept, JSON_INDENT(2));
		ok = write_file(path, text, 0644);
		free(text);
		json_decref(kept);
	}
	free(path);
	return ok;
}

int
enroll_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"token-file", required_argument, NULL, 'T'},
		{"ca-file", required_argument, NULL, 'A'},
		{"insecure-http", no_argument, NULL, 'I'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *ca_file = NULL, *file = NULL;
	char *server, *why, *own = NULL;
	bool insecure = false;
	struct boxconf bc;
	json_t *j;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'T':
			file = optarg;
			break;
		case 'A':
			ca_file = optarg;
			break;
		case 'I':
			insecure = true;
			break;
		case 'h':
			enroll_usage(stdout);
			return 0;
		default:
			enroll_usage(stderr);
			return 2;
		}
	}
	if (optind + 2 != argc) {
		log_warnx("enroll needs robotd's URL and the CODE robotd box "
			  "enroll printed");
		enroll_usage(stderr);
		return 2;
	}
	server = xstrdup(argv[optind]);
	while (server[0] != '\0' && server[strlen(server) - 1] == '/')
		server[strlen(server) - 1] = '\0';
	client_set_tls(ca_file, insecure);
	/* (the token is sent back in the answer: never in clear) */
	if ((why = client_refused(server)) != NULL) {
		log_warnx("%s", why);
		free(why);
		free(server);
		return 2;
	}
	if (!box_load_config(config, &bc)) {
		free(server);
		return 2;
	}
	if (mkdir(bc.workdir, 0755) == -1 && errno != EEXIST)
		log_warn("cannot make '%s'", bc.workdir);
	else if ((j = enroll_trade(server, argv[optind + 1])) != NULL) {
		if (file == NULL)
			file = own = xasprintf("%s/token", bc.workdir);
		if (enroll_keep(&bc, server, file, j)) {
			printf("enrolled as box %s (group %s) with %s; its "
			       "token is in %s\n",
			       rjson_get_str(j, "name"),
			       rjson_get_str(j, "tbox_group"), server, file);
			rc = 0;
		}
		json_object_del(j, "token");
		json_decref(j);
	}
	free(own);
	free(server);
	boxconf_release(&bc);
	return rc;
}

/* A string of enrolled.json, copied; NULL when absent. */
static char *
kept_str(json_t *j, const char *key)
{
	const char *s = rjson_get_str(j, key);

	return s != NULL ? xstrdup(s) : NULL;
}

bool
enroll_read(const struct boxconf *bc, struct enrolled *e, bool *bad)
{
	char *path = xasprintf("%s/enrolled.json", bc->workdir);
	json_error_t err;
	json_t *j;

	memset(e, 0, sizeof *e);
	*bad = false;
	if (access(path, F_OK) == -1 && errno == ENOENT) {
		free(path);
		return false;
	}
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	e->server = kept_str(j, "server");
	e->name = kept_str(j, "name");
	e->tbox_group = kept_str(j, "tbox_group");
	e->token_file = kept_str(j, "token_file");
	if (e->server == NULL || e->name == NULL || e->tbox_group == NULL ||
	    e->token_file == NULL) {
		log_warnx("'%s' is not what robot-box enroll writes%s%s: "
			  "enroll the box again",
			  path, j == NULL ? ": " : "",
			  j == NULL ? err.text : "");
		enroll_release(e);
		*bad = true;
	}
	json_decref(j);
	free(path);
	return !*bad;
}

void
enroll_release(struct enrolled *e)
{
	free(e->server);
	free(e->name);
	free(e->tbox_group);
	free(e->token_file);
	memset(e, 0, sizeof *e);
}
