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
 * ring's fields (pring, ring_size, kidx, ring_slow) are under ctl_mutex,
 * which is all a ring writer takes, as kevent_get_events() does.  A
 * writer whose batch faulted copies it again with ctl_mutex dropped: it
 * sets ring_slow first, and until it clears it, it alone writes the ring
 * and kidx, and the other ring writers wait for it (until a signal, as a
 * collector waits for ctl_mutex).  pring and ring_size are set once, by kevent_ring_init(),
 * which ring_lock serialises (taken before ctl_mutex).
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/sched/signal.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include <linux/overflow.h>
#include <linux/wait_bit.h>
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

	/*
	 * ring_lock, not ctl_mutex, while ring_kidx is written: that write
	 * may fault and sleep.  pring is set only under both.
	 */
	if (mutex_lock_killable(&q->ring_lock))
		return -EINTR;
	if (READ_ONCE(q->pring)) {
		err = -EBUSY;
	} else if (put_user(0, &ring->ring_kidx)) {
		err = -EFAULT;
	} else if (mutex_lock_killable(&q->ctl_mutex)) {
		err = -EINTR;
	} else {
		q->ring_size = num;
		q->kidx = 0;
		/* Pairs with the acquire in kevent_queue_wait(). */
		smp_store_release(&q->pring, ring);
		kevent_queue_unlock(q);
	}
	mutex_unlock(&q->ring_lock);
	return err;
}

/*
 * Write the snapshots of @b into the ring from *@kidx: one copy up to the
 * ring's end, one after the wrap; then ring_kidx, when any was written.
 * Returns how many were written (0 when ring_kidx could not be) and
 * moves *@kidx past them.  Called with ctl_mutex held and page faults
 * disabled, or by the writer that set ring_slow.
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

/* Whether a writer copies into the ring with ctl_mutex dropped. */
static bool kevent_ring_is_slow(struct kevent_queue *q)
{
	/* Pairs with the release in kevent_ring_slow_end(). */
	return smp_load_acquire(&q->ring_slow);
}

/* Wait for that writer, as a collector waits for ctl_mutex: until a signal. */
static int kevent_ring_wait_slow(struct kevent_queue *q)
{
	if (wait_var_event_interruptible(&q->ring_slow, !kevent_ring_is_slow(q)))
		return -EINTR;
	return 0;
}

/* The writer that set ring_slow is done: its index, then the others. */
static void kevent_ring_slow_end(struct kevent_queue *q, unsigned int kidx)
{
	q->kidx = kidx;
	/* Pairs with the acquire in kevent_ring_is_slow(). */
	smp_store_release(&q->ring_slow, false);
	/* The store before wake_up_var()'s look at its wait queue. */
	smp_mb();
	wake_up_var(&q->ring_slow);
}

/*
 * Write up to @num ready kevents into the ring at q->kidx, then ring_kidx:
 * one collection pass, as kevent_queue_get_events() makes.  A batch whose
 * ring_kidx cannot be written goes back to the ready list whole: the
 * index the application reads and the entries it finds always agree.  As
 * kevent_deliver_to_buf(), a batch is written with ctl_mutex still held
 * and page faults disabled, and again with ctl_mutex dropped (and
 * ring_slow set) only when that faulted.  Returns the number written, 0
 * when none was ready, -EFAULT when the first write faulted, -EINTR.
 */
static long kevent_ring_fill(struct kevent_queue *q, unsigned int num)
{
	/* Written before it is read: see struct kevent_batch. */
	struct kevent_batch b __uninitialized;
	unsigned int done = 0;
	struct kevent_pass p;

	kevent_pass_init(&p);
	while (done < num) {
		unsigned int i = 0, n, kidx;

		if (kevent_collect_lock(&q->ctl_mutex))
			return done ? (long)done : -EINTR;
		if (kevent_ring_is_slow(q)) {
			kevent_queue_unlock(q);
			/* What this call wrote is not held up by another. */
			if (done)
				break;
			if (kevent_ring_wait_slow(q))
				return -EINTR;
			continue;
		}
		kevent_orphans_finish(q);
		kidx = q->kidx;
		n = kevent_batch_take(q, &b, num - done, &p.pass);
		if (n) {
			pagefault_disable();
			i = kevent_ring_copy(q, &b, &kidx, true);
			pagefault_enable();
			if (i == n) {
				kevent_batch_done(q, &b);
				q->kidx = kidx;
			} else {
				kevent_batch_hold(&b);
				WRITE_ONCE(q->ring_slow, true);
			}
		}
		kevent_queue_unlock(q);
		/*
		 * Nothing taken ends the pass, unless the batch gave up on
		 * kevents not ready at delivery.
		 */
		if (!n && !b.more)
			break;
		if (i < n) {
			/* This writer alone moves it now. */
			kidx = q->kidx;
			i = kevent_ring_copy(q, &b, &kidx, false);
			kevent_batch_finish(q, &b, i);
			kevent_ring_slow_end(q, kidx);
		}
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

	/*
	 * pring and ring_size are set once; a ring set up after this look
	 * is as if set up after the call.  Pairs with the release in
	 * kevent_queue_ring_init().
	 */
	if (!num || !smp_load_acquire(&q->pring) || num >= q->ring_size)
		return -EINVAL;
	for (;;) {
		/*
		 * The first round fills without waiting: with kevents ready
		 * that is what a wait would do, without reading the clock.
		 */
		err = wait && !first ? kevent_wait_ready(q, 1, timeout, &deadline) : 0;
		if (err == -EINTR)
			return err;

		/* Nothing ready: no lock taken, as in kevent_get_events(). */
		ret = kevent_queue_ready_num(q) ? kevent_ring_fill(q, num) : 0;

		if (ret || !wait || err)
			return ret;
		if (signal_pending(current))
			return -EINTR;
		first = false;
		cond_resched();
	}
}
