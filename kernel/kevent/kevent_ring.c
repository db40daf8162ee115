// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the ring, kevent_ring_init() and kevent_wait().
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * A queue may have one ring in user memory (struct kevent_ring: ring_kidx,
 * then ring_size ukevents), registered by kevent_ring_init().
 * kevent_wait() fills it from the kernel index q->kidx with the batches of
 * kevent_deliver.c: each batch in at most two copies, up to the ring's
 * end and after the wrap, and then ring_kidx, so that the index the
 * application reads and the entries it finds always agree.  A batch is
 * written with ctl_mutex held and page faults disabled, and again with
 * ctl_mutex dropped only when that faulted.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c.  Here: the
 * ring's fields (pring, ring_size, kidx) are under ring_lock, which is
 * taken before ctl_mutex.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/sched/signal.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include <linux/overflow.h>
#include "kevent_internal.h"

/**
 * kevent_queue_ring_init() - register the user's ring
 * @q: the queue
 * @ring: the ring, @num events after its header
 * @num: ring size
 *
 * Return: 0; -EINVAL for @num below 2 (kevent_wait() keeps one slot free,
 * so a ring of one slot could never be filled) or a size that overflows,
 * -EFAULT when the ring is not writable user memory, -EBUSY when the queue
 * has a ring, -EINTR on a fatal signal.
 */
long kevent_queue_ring_init(struct kevent_queue *q,
			    struct kevent_ring __user *ring, unsigned int num)
{
	size_t size;
	long err = 0;

	if (num < 2)
		return -EINVAL;
	size = struct_size_t(struct kevent_ring, event, num);
	if (size == SIZE_MAX || size > MAX_RW_COUNT)
		return -EINVAL;
	if (!access_ok(ring, size) ||
	    fault_in_safe_writeable((const char __user *)ring, size))
		return -EFAULT;

	if (mutex_lock_killable(&q->ring_lock))
		return -EINTR;
	if (q->pring) {
		err = -EBUSY;
	} else if (put_user(0, &ring->ring_kidx)) {
		err = -EFAULT;
	} else {
		q->pring = ring;
		q->ring_size = num;
		q->kidx = 0;
	}
	mutex_unlock(&q->ring_lock);
	return err;
}

/*
 * Write the snapshots of @b into the ring from *@kidx: one copy up to the
 * ring's end, one after the wrap; then ring_kidx, when any was written.
 * Returns how many were written (0 when ring_kidx could not be) and
 * moves *@kidx past them.  Called with ring_lock held, and with page
 * faults disabled when ctl_mutex is held too.
 */
static unsigned int kevent_ring_copy(struct kevent_queue *q,
				     struct kevent_batch *b, unsigned int *kidx,
				     bool whole)
{
	struct kevent_ring __user *ring = q->pring;
	unsigned int i, run, k = *kidx;

	for (i = 0; i < b->n; i += run) {
		size_t len;
		unsigned long left;

		run = min_t(unsigned int, b->n - i, q->ring_size - k);
		len = run * sizeof(b->uk[0]);
		left = copy_to_user(&ring->event[k], &b->uk[i], len);
		if (left) {
			run -= DIV_ROUND_UP(left, sizeof(b->uk[0]));
			i += run;
			k += run;
			break;
		}
		k += run;
		if (k >= q->ring_size)
			k = 0;
	}
	/*
	 * @whole (the pass with page faults off): a batch written in part
	 * publishes nothing, as the pass that may fault writes it again
	 * from the same index; the application never sees entries taken
	 * back.
	 */
	if (!i || (whole && i < b->n) || put_user(k, &ring->ring_kidx))
		return 0;
	*kidx = k;
	return i;
}

/*
 * Write up to @num ready kevents into the ring at q->kidx, then ring_kidx:
 * one collection pass, as kevent_queue_get_events() makes.  Called with
 * ring_lock held.  A batch whose ring_kidx cannot be written
 * goes back to the ready list whole: the index the application reads and
 * the entries it finds always agree.  As kevent_deliver_to_buf(), a batch
 * is written with ctl_mutex still held and page faults disabled, and
 * again with ctl_mutex dropped only when that faulted.  Returns the
 * number written, 0 when none was ready, -EFAULT when the first write
 * faulted, -EINTR.
 */
static long kevent_ring_fill(struct kevent_queue *q, unsigned int num)
{
	/* Written before it is read: see struct kevent_batch. */
	struct kevent_batch b __uninitialized;
	unsigned int done = 0;
	struct kevent_pass p;

	lockdep_assert_held(&q->ring_lock);
	kevent_pass_init(&p);
	while (done < num) {
		unsigned int i = 0, n, kidx = q->kidx;

		if (kevent_collect_lock(&q->ctl_mutex))
			return done ? (long)done : -EINTR;
		kevent_orphans_finish(q);
		n = kevent_batch_take(q, &b, num - done, &p.pass);
		if (n) {
			pagefault_disable();
			i = kevent_ring_copy(q, &b, &kidx, true);
			pagefault_enable();
			if (i == n)
				kevent_batch_done(q, &b);
			else
				kevent_batch_hold(&b);
		}
		kevent_queue_unlock(q);
		/*
		 * Nothing taken ends the pass, unless the batch gave up on
		 * kevents not ready at delivery.
		 */
		if (!n && !b.more)
			break;
		if (i < n) {
			kidx = q->kidx;
			i = kevent_ring_copy(q, &b, &kidx, false);
			kevent_batch_finish(q, &b, i);
		}
		if (i)
			q->kidx = kidx;
		done += i;
		atomic_long_add(i, &q->ring_num);
		if (i < n)
			return done ? (long)done : -EFAULT;
		if (done >= num || !kevent_pass_goes_on(&p))
			break;
	}
	return done;
}

/**
 * kevent_queue_wait() - the body of kevent_wait()
 * @q: the queue
 * @num: copy at most this many kevents into the ring; above 0 and below
 *       the ring size
 * @timeout: as for kevent_queue_get_events()
 * @nonblock: never wait
 *
 * Events go to the ring at the kernel index, wrapping at the ring size;
 * afterwards ring_kidx is the slot the kernel fills next.  Entries the
 * application has not read yet are overwritten.
 *
 * Return: the number of kevents written, -EINVAL without a ring or with
 * @num 0 or not below its size, -EINTR on a signal, -EFAULT when the first
 * write faulted (the kevent stays ready).
 */
long kevent_queue_wait(struct kevent_queue *q, unsigned int num, u64 timeout,
		       bool nonblock)
{
	bool wait = timeout && !nonblock;
	ktime_t deadline = 0;
	bool first = true;
	long ret;
	int err;

	if (!num)
		return -EINVAL;
	for (;;) {
		/*
		 * The first round fills without waiting: with kevents ready
		 * that is what a wait would do, and the ring's checks take
		 * the same lock as the fill.
		 */
		err = wait && !first ? kevent_wait_ready(q, 1, timeout, &deadline) : 0;
		if (err == -EINTR)
			return err;

		if (kevent_collect_lock(&q->ring_lock))
			return -EINTR;
		if (!q->pring || num >= q->ring_size)
			ret = -EINVAL;
		else if (kevent_queue_ready_num(q))
			ret = kevent_ring_fill(q, num);
		else
			ret = 0;	/* no ctl_mutex, as kevent_get_events() */
		mutex_unlock(&q->ring_lock);

		if (ret || !wait || err)
			return ret;
		if (signal_pending(current))
			return -EINTR;
		first = false;
		cond_resched();
	}
}
