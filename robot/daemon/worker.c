/*
 * worker.c: one thread, a queue of jobs under a mutex, and a pipe that
 * wakes the loop when a job is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/worker.h"
#include "robot/core/banned.h"

struct worker_job {
	worker_fn work;
	worker_fn done;
	void *arg;
	STAILQ_ENTRY(worker_job) entry;
};

STAILQ_HEAD(job_queue, worker_job);

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job_queue todo; /* for the thread */
	struct job_queue done; /* for the loop */
	bool stopping;         /* the thread is to end */
	bool stopped;          /* it ended: jobs run on the caller's thread */
	int pipe[2];           /* the thread writes a byte per finished job */
	struct event *ev;      /* the loop reads it */
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_job *j;

	/* Behind the loop and the database when the cores are busy: a
	 * document of megabytes may wait, the requests of every box not. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) == -1)
		log_warn("worker: setpriority");
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stopping && STAILQ_EMPTY(&w->todo))
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stopping)
			break;
		j = STAILQ_FIRST(&w->todo);
		STAILQ_REMOVE_HEAD(&w->todo, entry);
		pthread_mutex_unlock(&w->lock);
		j->work(j->arg);
		pthread_mutex_lock(&w->lock);
		STAILQ_INSERT_TAIL(&w->done, j, entry);
		if (write(w->pipe[1], "x", 1) != 1 && errno != EAGAIN)
			log_warn("worker: cannot wake the loop");
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void
worker_on_done(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	struct job_queue ready = STAILQ_HEAD_INITIALIZER(ready);
	struct worker_job *j;
	char buf[256];

	(void)what;
	while (read(fd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&w->lock);
	STAILQ_CONCAT(&ready, &w->done);
	pthread_mutex_unlock(&w->lock);
	while ((j = STAILQ_FIRST(&ready)) != NULL) {
		STAILQ_REMOVE_HEAD(&ready, entry);
		j->done(j->arg);
		free(j);
	}
}

struct worker *
worker_new(struct event_base *base)
{
	struct worker *w = xcalloc(1, sizeof *w);

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	STAILQ_INIT(&w->todo);
	STAILQ_INIT(&w->done);
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		fatal("worker: pipe");
	w->ev = event_new(base, w->pipe[0], EV_READ | EV_PERSIST,
			  worker_on_done, w);
	event_add(w->ev, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
		fatalx("worker: cannot start its thread");
	return w;
}

void
worker_stop(struct worker *w)
{
	struct worker_job *j;

	if (w == NULL || w->stopped)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	/* Every job still ends: the ones not started run here, then every
	 * done callback, so that no caller waits for nothing. */
	STAILQ_FOREACH(j, &w->todo, entry)
	j->work(j->arg);
	STAILQ_CONCAT(&w->done, &w->todo);
	w->stopped = true;
	while ((j = STAILQ_FIRST(&w->done)) != NULL) {
		STAILQ_REMOVE_HEAD(&w->done, entry);
		j->done(j->arg);
		free(j);
	}
}

void
worker_free(struct worker *w)
{
	if (w == NULL)
		return;
	worker_stop(w);
	event_free(w->ev);
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void
worker_run(struct worker *w, worker_fn work, worker_fn done, void *arg)
{
	struct worker_job *j;

	if (w->stopped) {
		work(arg);
		done(arg);
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->work = work;
	j->done = done;
	j->arg = arg;
	pthread_mutex_lock(&w->lock);
	STAILQ_INSERT_TAIL(&w->todo, j, entry);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}
