/*
 * boxes.h: the store's boxes (sql/functions/boxes.sql).
 */
#ifndef ROBOT_STORE_BOXES_H
#define ROBOT_STORE_BOXES_H

#include "robot/daemon/store.h"

/* A box (re)registers; its leases from before go back, each a failure
 * of the box (broken after broken_after in a row).  Its state. */
void store_register(struct store *s, const char *box, const char *group,
		    const char *facts, int broken_after, store_text_cb cb,
		    void *arg);
/* A broken box back to idle: its state. */
void store_reset(struct store *s, const char *box, store_text_cb cb, void *arg);

#endif
