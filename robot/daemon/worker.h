/*
 * worker.h: work too heavy for the event loop (reading a result document
 * of megabytes) done on a thread of its own, its completion handed back
 * to the loop.  The work function runs on the worker thread and must
 * touch nothing the loop owns; done runs on the loop afterwards.  Jobs
 * run one at a time, in the order given.
 */
#ifndef ROBOT_WORKER_H
#define ROBOT_WORKER_H

#include <event2/event.h>

struct worker;

typedef void (*worker_fn)(void *arg);

struct worker *worker_new(struct event_base *base);
/* Stops the thread after the job it runs; the jobs not started run on
 * the caller's thread; every job's done is called before it returns.
 * Jobs given after that run at once, on the caller's thread. */
void worker_stop(struct worker *w);
/* worker_stop(), then frees it. */
void worker_free(struct worker *w);
void worker_run(struct worker *w, worker_fn work, worker_fn done, void *arg);

#endif
