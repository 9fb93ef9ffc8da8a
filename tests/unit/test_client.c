/*
 * test_client.c: which URLs the clients refuse to ask (client.h): plain
 * http to an address that is not this machine's, unless allowed; https
 * and loopback always go.  No request is made.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/client.h"
#include "tap.h"

static void
test_refused(void)
{
	static const char *const go[] = {"http://127.0.0.1:8420/api/status",
					 "http://127.9.9.9/x",
					 "http://localhost:8420",
					 "http://[::1]:8420/api/status",
					 "https://10.0.0.1:8420/api/status",
					 "https://robot.example.org/",
					 NULL};
	static const char *const no[] = {"http://10.0.0.1:8420/api/status",
					 "http://robot.example.org/api/status",
					 "http://localhost.example.org/",
					 "http://[fe80::1]:8420/",
					 "http://128.0.0.1/",
					 NULL};
	char *why;

	unsetenv("ROBOT_INSECURE_HTTP");
	unsetenv("ROBOT_CA_FILE");
	setenv("HOME", "/nonexistent", 1);
	client_set_tls(NULL, false);
	for (size_t i = 0; go[i] != NULL; i++) {
		why = client_refused(go[i]);
		CHECK(why == NULL);
		if (why != NULL)
			tap_diag("%s refused: %s", go[i], why);
		free(why);
	}
	for (size_t i = 0; no[i] != NULL; i++) {
		why = client_refused(no[i]);
		CHECK(why != NULL &&
		      strstr(why, "refusing plain http to ") == why);
		free(why);
	}
	why = client_refused("http://10.0.0.1:8420/x");
	CHECK_STR(why, "refusing plain http to 10.0.0.1: a token would cross "
		       "the network in clear; give robotd a certificate and "
		       "use https:// (docs/deploy.md), or allow it with "
		       "--insecure-http (ROBOT_INSECURE_HTTP=1)");
	free(why);
	/* told so: by the flag, or by the environment */
	client_set_tls(NULL, true);
	CHECK(client_refused("http://10.0.0.1/") == NULL);
	setenv("ROBOT_INSECURE_HTTP", "1", 1);
	client_set_tls(NULL, false);
	CHECK(client_refused("http://10.0.0.1/") == NULL);
	unsetenv("ROBOT_INSECURE_HTTP");
	client_set_tls(NULL, false);
	why = client_refused("http://10.0.0.1/");
	CHECK(why != NULL);
	free(why);
}

int
main(void)
{
	static const struct tap_case cases[] = {TAP_CASE(test_refused),
						{NULL, NULL}};

	return tap_run(cases);
}
