/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * A storage type for the kevent KUnit suites: fake origins whose readiness
 * the test sets.  It lives in the KEVENT_TYPE_KERNEL slot, which user space
 * cannot reach.  id.raw[0] of a ukevent selects the origin.
 */
#ifndef _KEVENT_TEST_STORAGE_H
#define _KEVENT_TEST_STORAGE_H

#include <kunit/test.h>
#include <linux/completion.h>
#include "../kevent_internal.h"

#define KT_ORIGINS	4

struct kt_origin {
	struct kevent_storage	st;
	int			ready;		/* what ->callback returns */
	int			enqueue_ret;	/* what ->enqueue returns */
	u32			ret_data0;	/* written by a ready callback */
	int			enqueued;	/* ->enqueue calls */
	int			dequeued;	/* ->dequeue calls */
	int			callbacks;	/* ->callback calls */
	/* When set, ->callback completes it and spins until *removed or 50 ms. */
	struct completion	*entered;
	bool			*removed;
	/* When set, ->deliver calls it with the origin (inside a delivery). */
	void			(*in_deliver)(void *origin);
	/* ->deliver answers "not ready" (a re-check that found nothing). */
	bool			not_ready_at_delivery;
};

struct kt_ctx {
	struct kevent_queue	*q;
	bool			u_borrowed;	/* kt_use_queue(): not ours */
	struct kt_origin	origin[KT_ORIGINS];
};

/*
 * A timing check with a tight upper bound may be tried this many times and
 * judged on its fastest try, as TIMING_TRIES in the user-space suites.
 */
#define KT_TIMING_TRIES	5

/*
 * Upper bounds of timing checks: 5x on the debug kernels (KASAN, lockdep),
 * as INIT_TOLERANCE_SCALE does for the user-space suites.
 */
static inline s64 kt_slack(s64 bound)
{
	if (IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_PROVE_LOCKING))
		return 5 * bound;
	return bound;
}

int kt_init(struct kunit *test);
/*
 * Register the test type again, its ->deliver called only for re-checks
 * (as the file storages) and/or its ret_data[0] a count (as the timer):
 * for the kevents added after this, until the test ends.
 */
int kt_register(bool deliver_on_recheck, bool counts);
void kt_exit(struct kunit *test);
/* Work on @q (owned by its fd) instead of the context's own queue. */
void kt_use_queue(struct kt_ctx *c, struct kevent_queue *q);

/* A ukevent of the test type on origin @o. */
struct ukevent kt_uk(u32 o, u32 event, u32 req_flags);
/* Add through the kernel API; returns kevent_queue_add_ukevent()'s value. */
int kt_add(struct kt_ctx *c, u32 o, u32 event, u32 req_flags);
/* Deliver up to @max ready events into @out through kevent_get_events(). */
long kt_get(struct kunit *test, struct kt_ctx *c, struct ukevent *out,
	    unsigned int max);
/* User memory for the test, @len bytes, or 0. */
unsigned long kt_user_mem(struct kunit *test, size_t len);
/*
 * One page of user memory whose first touch runs @fn(@arg) inside the
 * page fault (in the faulting task, with no kevent lock held when the
 * fault comes from a kevent copy), then maps the page, or, with @fail,
 * makes the access fault (-EFAULT for a copy).  A forced interleaving at
 * the moment a delivery copies out.
 */
unsigned long kt_trap_mem(struct kunit *test, void (*fn)(void *arg), void *arg,
			  bool fail);
/*
 * The same page at @at, replacing what was mapped there (a page of a
 * kt_user_mem() area: user memory that is there, then a trap).
 */
unsigned long kt_trap_mem_at(struct kunit *test, unsigned long at,
			     void (*fn)(void *arg), void *arg, bool fail);

#endif
