/*
 * credentials.c: robotd token create and robotd box enroll
 * (credentials.h).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/unit.h"
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/str.h"
#include "robot/daemon/credentials.h"
#include "robot/daemon/store/tokens.h"
#include "robot/core/banned.h"

int
credentials_is_command(const char *word)
{
	return strcmp(word, "token") == 0 || strcmp(word, "box") == 0;
}

/* Whether what (a flag or a word) is a name; says why not. */
static bool
name_good(const char *what, const char *name)
{
	char *q;

	if (name_ok(NAME_LABEL, name))
		return true;
	q = str_printable(name, strlen(name), 60);
	log_warnx("%s '%s': the name %s (letters, digits, '.', '_', '+' and "
		  "'-', at most %d)",
		  what, q, name_check(NAME_LABEL, name, strlen(name)),
		  NAME_LABEL_MAX);
	free(q);
	return false;
}

int
credentials_args(int argc, char **argv, struct credentials_args *a,
		 void (*usage)(FILE *))
{
	static const struct option opts[] = {
		{"kind", required_argument, NULL, 'k'},
		{"name", required_argument, NULL, 'n'},
		{"group", required_argument, NULL, 'g'},
		{"expires", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool token = strcmp(argv[0], "token") == 0;
	const char *err;
	double secs;
	int c;

	memset(a, 0, sizeof *a);
	a->what = token ? CREDENTIALS_TOKEN : CREDENTIALS_ENROLL;
	a->seconds = CREDENTIALS_EXPIRES;
	if (argc < 2 || strcmp(argv[1], token ? "create" : "enroll") != 0) {
		log_warnx("%s: the command is robotd %s", argv[0],
			  token ? "token create" : "box enroll NAME");
		usage(stderr);
		return 2;
	}
	optind = 0; /* (0: getopt starts afresh, permuting again) */
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
		case 'n':
			if (!token)
				goto bad;
			*(c == 'k' ? &a->kind : &a->name) = optarg;
			break;
		case 'g':
			a->group = optarg;
			break;
		case 'e':
			if (token)
				goto bad;
			if ((err = unit_duration(optarg, &secs)) != NULL ||
			    secs > CREDENTIALS_EXPIRES_MAX) {
				log_warnx("--expires '%s' %s", optarg,
					  err ? err : "is longer than a week");
				return 2;
			}
			a->seconds = secs < 1 ? 1 : (int)secs;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (token) {
		if (optind != argc - 1 || a->kind == NULL || a->name == NULL ||
		    (strcmp(a->kind, "submit") != 0 &&
		     strcmp(a->kind, "box") != 0 &&
		     strcmp(a->kind, "admin") != 0 &&
		     strcmp(a->kind, "triage") != 0)) {
			log_warnx("token create wants --kind "
				  "submit|box|admin|triage and --name NAME");
			return 2;
		}
		if (a->group != NULL && strcmp(a->kind, "box") != 0) {
			log_warnx("--group is a box token's");
			return 2;
		}
		return name_good("--name", a->name) &&
				       (a->group == NULL ||
					name_good("--group", a->group))
			       ? -1
			       : 2;
	}
	if (optind != argc - 2) {
		log_warnx("box enroll wants the box's NAME");
		return 2;
	}
	a->name = argv[1 + optind];
	if (a->group == NULL)
		a->group = a->name;
	return name_good("the box's name", a->name) &&
			       name_good("--group", a->group)
		       ? -1
		       : 2;
bad:
	usage(stderr);
	return 2;
}

int
credentials_run(const char *conninfo, const struct credentials_args *a)
{
	char *err, *secret, *expires = NULL;

	if (a->what == CREDENTIALS_TOKEN)
		secret = store_token_create(conninfo, a->kind, a->name,
					    a->group, &err);
	else
		secret = store_enroll_code(conninfo, a->name, a->group,
					   a->seconds, &expires, &err);
	if (secret == NULL) {
		log_warnx("cannot make %s: %s",
			  a->what == CREDENTIALS_TOKEN ? "a token"
						       : "an enrollment code",
			  err);
		free(err);
		return 1;
	}
	printf("%s\n", secret);
	if (a->what == CREDENTIALS_ENROLL)
		fprintf(stderr,
			"box %s (group %s): on the box, before %s, run\n"
			"  robot-box enroll URL %s\n"
			"(URL: this robotd's, as the box reaches it; the code "
			"is good once)\n",
			a->name, a->group, expires, secret);
	explicit_bzero(secret, strlen(secret));
	free(secret);
	free(expires);
	return 0;
}
