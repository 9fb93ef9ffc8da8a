/*
 * defer.h: the one way robotd frees later (tmux's event_once idiom).  An
 * object ended by its own callback cannot be freed there (its caller
 * still holds it): it is freed after the loop iteration.
 */
#ifndef ROBOT_DEFER_H
#define ROBOT_DEFER_H

struct event_base;
struct problem;

/* Calls fn(arg) after this loop iteration. */
void defer(struct event_base *base, void (*fn)(void *), void *arg);
/* Calls cb(NULL, p, arg) after this loop iteration, then frees p: a
 * refusal made before any store call, answered as the store answers
 * (cb a store_text_cb). */
void defer_problem(struct event_base *base, struct problem *p,
		   void (*cb)(const char *, const struct problem *, void *),
		   void *arg);

/*
 * The same, for an owner that ends many objects and must end the rest
 * itself when it is freed (the drain's works, the lab's lease requests,
 * the web server's requests): its calls wait in a list of its own,
 * which defer_list_free() runs at once, while what they need still is.
 */
struct defer_list;

struct defer_list *defer_list_new(struct event_base *base);
/* Calls fn(arg) after this loop iteration, or at defer_list_free(). */
void defer_add(struct defer_list *l, void (*fn)(void *), void *arg);
/* Runs the calls still waiting, then frees l. */
void defer_list_free(struct defer_list *l);

#endif
