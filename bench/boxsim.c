/*
 * boxsim.c: many simulated boxes against one robotd, over real HTTP on
 * loopback (one epoll loop, one keep-alive connection per box).
 *
 *   boxsim cycles PORT TOKENS SECONDS [--register-each]
 *       every box: register once, then lease (wait=0) and upload an
 *       empty result, as fast as robotd answers; with --register-each a
 *       cycle also registers.  Prints cycles per second and latencies.
 *   boxsim idle PORT TOKENS
 *       every box registers and long-polls (there is no work); prints
 *       "waiting N" once all wait, then holds the connections until
 *       SIGTERM.
 *
 * TOKENS is a file of "NAME TOKEN" lines, one per box.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum sim_step {
	SIM_REGISTER,
	SIM_LEASE,
	SIM_UPLOAD,
};

struct sim_box {
	char name[64];
	char token[128];
	int fd;
	enum sim_step step;
	char out[4096];
	size_t outlen, sent;
	char in[65536];
	size_t inlen;
	double started; /* of the request */
	char lease[32];
	char key[512];
	char commit[128];
	bool waiting; /* idle mode: its long-poll is out */
};

static int port;
static bool idle_mode, register_each;
static double *lat;
static size_t nlat, caplat;
static unsigned long cycles, empties, errors;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
fatal_exit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static void
sim_request(struct sim_box *b, const char *path, const char *body)
{
	size_t len = body ? strlen(body) : 0;
	int n = snprintf(b->out, sizeof b->out,
			 "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Authorization: Bearer %s\r\n"
			 "Content-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 path, b->token, len, body ? body : "");

	if (n < 0 || (size_t)n >= sizeof b->out)
		fatal_exit("request too large");
	b->outlen = (size_t)n;
	b->sent = 0;
	b->inlen = 0;
	b->started = now();
}

static void
sim_next(struct sim_box *b)
{
	char path[256], body[1024];

	switch (b->step) {
	case SIM_REGISTER:
		snprintf(path, sizeof path, "/api/boxes/%s/register", b->name);
		sim_request(b, path,
			    "{\"tbox_group\": \"bench\", \"ram_disk_limit\": "
			    "1073741824, \"fs\": [\"ext4\", \"xfs\"]}");
		break;
	case SIM_LEASE:
		snprintf(path, sizeof path, "/api/boxes/%s/lease%s", b->name,
			 idle_mode ? "" : "?wait=0");
		sim_request(b, path, NULL);
		break;
	case SIM_UPLOAD:
		snprintf(path, sizeof path, "/api/leases/%s/result", b->lease);
		snprintf(body, sizeof body,
			 "{\"version\": 1, \"key\": \"%s\", \"tbox_group\": "
			 "\"bench\", \"box\": \"%s\", \"commit\": \"%s\", "
			 "\"status\": \"ok\", \"stats\": {}}",
			 b->key, b->name, b->commit);
		sim_request(b, path, body);
		break;
	}
}

/* A string member's value from a JSON text (the answers are ours). */
static bool
json_member(const char *json, const char *name, char *out, size_t outlen)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof pat, "\"%s\"", name);
	if ((p = strstr(json, pat)) == NULL)
		return false;
	p += strlen(pat);
	while (*p == ' ' || *p == ':')
		p++;
	if (*p == '"')
		p++;
	while (*p != '\0' && *p != '"' && *p != ',' && *p != '}' &&
	       n + 1 < outlen)
		out[n++] = *p++;
	out[n] = '\0';
	return n > 0;
}

/* A whole answer is in; returns its status, body in b->in after hdr. */
static int
sim_answer(struct sim_box *b, const char **body)
{
	char *end;
	const char *cl;
	size_t hdr, len = 0;
	int status;

	b->in[b->inlen] = '\0';
	if ((end = strstr(b->in, "\r\n\r\n")) == NULL)
		return 0;
	hdr = (size_t)(end - b->in) + 4;
	cl = strcasestr(b->in, "Content-Length:");
	if (cl != NULL && cl < end)
		len = strtoul(cl + 15, NULL, 10);
	if (b->inlen < hdr + len)
		return 0;
	if (sscanf(b->in, "HTTP/1.%*d %d", &status) != 1)
		fatal_exit("bad answer: %.80s", b->in);
	*body = b->in + hdr;
	return status;
}

static void
sim_on_answer(struct sim_box *b, int status, const char *body, int *waiting)
{
	double dt = now() - b->started;

	if (nlat == caplat) {
		caplat = caplat ? caplat * 2 : 65536;
		lat = realloc(lat, caplat * sizeof *lat);
	}
	lat[nlat++] = dt;
	switch (b->step) {
	case SIM_REGISTER:
		if (status != 200)
			fatal_exit("register %s: %d %s", b->name, status, body);
		b->step = SIM_LEASE;
		break;
	case SIM_LEASE:
		if (status == 200 &&
		    json_member(body, "lease", b->lease, sizeof b->lease) &&
		    json_member(body, "key", b->key, sizeof b->key) &&
		    json_member(body, "commit", b->commit, sizeof b->commit)) {
			b->step = SIM_UPLOAD;
		} else if (status == 204) {
			empties++;
			b->step = register_each ? SIM_REGISTER : SIM_LEASE;
		} else {
			errors++;
			fprintf(stderr, "lease %s: %d %.200s\n", b->name,
				status, body);
		}
		break;
	case SIM_UPLOAD:
		if (status == 200)
			cycles++;
		else {
			errors++;
			fprintf(stderr, "upload %s: %d %.200s\n", b->name,
				status, body);
		}
		b->step = register_each ? SIM_REGISTER : SIM_LEASE;
		break;
	}
	(void)waiting;
	sim_next(b);
}

static int
sim_connect(void)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd == -1 || connect(fd, (struct sockaddr *)&sa, sizeof sa) == -1)
		fatal_exit("connect: %s", strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct sim_box *boxes = NULL;
	size_t nboxes = 0;
	struct epoll_event ev, evs[256];
	struct rlimit rl;
	double seconds = 0, t0 = 0, measure_from;
	char line[512];
	FILE *fp;
	int ep, waiting = 0;
	bool reported = false;

	if (argc < 4 ||
	    (strcmp(argv[1], "cycles") != 0 && strcmp(argv[1], "idle") != 0)) {
		fprintf(stderr, "usage: boxsim cycles PORT TOKENS SECONDS "
				"[--register-each]\n"
				"       boxsim idle PORT TOKENS\n");
		return 2;
	}
	idle_mode = strcmp(argv[1], "idle") == 0;
	port = atoi(argv[2]);
	if (!idle_mode) {
		if (argc < 5)
			return 2;
		seconds = atof(argv[4]);
		register_each =
			argc > 5 && strcmp(argv[5], "--register-each") == 0;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((fp = fopen(argv[3], "r")) == NULL)
		fatal_exit("%s: %s", argv[3], strerror(errno));
	while (fgets(line, sizeof line, fp) != NULL) {
		struct sim_box *b;

		boxes = realloc(boxes, (nboxes + 1) * sizeof *boxes);
		b = &boxes[nboxes++];
		memset(b, 0, sizeof *b);
		if (sscanf(line, "%63s %127s", b->name, b->token) != 2)
			fatal_exit("bad line: %s", line);
	}
	fclose(fp);
	ep = epoll_create1(0);
	for (size_t i = 0; i < nboxes; i++) {
		struct sim_box *b = &boxes[i];

		b->fd = sim_connect();
		b->step = SIM_REGISTER;
		sim_next(b);
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = b;
		epoll_ctl(ep, EPOLL_CTL_ADD, b->fd, &ev);
	}
	measure_from = now() + 1; /* after the registrations settle */
	for (;;) {
		int n = epoll_wait(ep, evs, 256, 200);
		double t = now();

		if (!idle_mode && t0 == 0 && t >= measure_from) {
			t0 = t;
			cycles = 0;
			nlat = 0;
		}
		if (!idle_mode && t0 > 0 && t - t0 >= seconds)
			break;
		for (int i = 0; i < n; i++) {
			struct sim_box *b = evs[i].data.ptr;

			if ((evs[i].events & EPOLLOUT) && b->sent < b->outlen) {
				ssize_t w = write(b->fd, b->out + b->sent,
						  b->outlen - b->sent);

				if (w > 0)
					b->sent += (size_t)w;
				if (idle_mode && b->step == SIM_LEASE &&
				    b->sent == b->outlen && !b->waiting) {
					b->waiting = true;
					waiting++;
				}
			}
			if (evs[i].events & (EPOLLIN | EPOLLHUP)) {
				ssize_t r = read(b->fd, b->in + b->inlen,
						 sizeof b->in - 1 - b->inlen);
				const char *body;
				int status;

				if (r == 0)
					fatal_exit("robotd closed %s", b->name);
				if (r < 0)
					continue;
				b->inlen += (size_t)r;
				status = sim_answer(b, &body);
				if (status == 0)
					continue;
				if (idle_mode && b->step == SIM_LEASE) {
					/* Long-poll over: ask again. */
					b->waiting = false;
					waiting--;
				}
				sim_on_answer(b, status, body, &waiting);
			}
		}
		if (idle_mode && !reported && waiting == (int)nboxes) {
			printf("waiting %d\n", waiting);
			fflush(stdout);
			reported = true;
		}
	}
	qsort(lat, nlat, sizeof *lat, cmp_double);
	printf("boxes %zu seconds %.1f cycles %lu cycles_per_sec %.0f "
	       "requests_per_sec %.0f p50_ms %.2f p99_ms %.2f empty %lu "
	       "errors %lu%s\n",
	       nboxes, seconds, cycles, (double)cycles / seconds,
	       (double)nlat / seconds, nlat ? lat[nlat / 2] * 1e3 : NAN,
	       nlat ? lat[nlat * 99 / 100] * 1e3 : NAN, empties, errors,
	       register_each ? " (register each cycle)" : "");
	return errors > 0;
}
