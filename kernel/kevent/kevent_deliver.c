// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: delivery, kevent_get_events(): take, copy and undo.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * Delivery works in batches (struct kevent_batch) of at most
 * KEVENT_DELIVER_BATCH kevents, within one collection pass (struct
 * kevent_pass): each ready kevent at most once per call.  Under ctl_mutex
 * it takes the kevents off the ready list and snapshots their ukevents
 * (clearing the results of ET kevents and the result data of all), the
 * whole batch under one acquisition of the ready lock; a kevent whose
 * storage has work in ->deliver (a timer's missed periods, a file's
 * re-check; a kevent found not ready is dropped there) is snapshotted
 * after it, under a second one.
 * Then it copies the snapshots in one copy_to_user(), still under
 * ctl_mutex but with page faults disabled, so that no fault sleeps under
 * it; ctl_mutex keeps the kevents alive.  Only a copy that needs a fault
 * takes a reference on each kevent, drops ctl_mutex and copies again.  A
 * snapshot that could not be copied then goes back (kevent_queue.c): its
 * results are restored and its kevent returns to the head of the ready
 * list, so no event is lost to a fault.  A delivered ONESHOT or broken
 * kevent is then removed: neither can be reported again.  kevent_ring.c
 * fills the ring with the same batches.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c.  Here: storage
 * ->deliver runs under ctl_mutex (never under a spinlock).  A collector's
 * waits, for ctl_mutex and for events, end on any signal (the settling of
 * a batch that faulted, kevent_batch_finish(), on a fatal one), and a
 * pass ends after KEVENT_PASS_NS, so a call ends by its deadline plus a
 * bound that the caller cannot stretch.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched/signal.h>
#include <linux/hrtimer.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "kevent_internal.h"

/*
 * Wait for @lock as a collector may: until a signal.  Another caller of
 * the same queue may hold ctl_mutex inside a file's ->poll that sleeps (a
 * FUSE file); a signal ends that wait, the caller's timeout does not
 * (epoll's ep->mtx waits the same way, and not even for signals).
 */
int kevent_collect_lock(struct mutex *lock)
{
	return mutex_lock_interruptible(lock) ? -EINTR : 0;
}

/*
 * Snapshot @k into slot @i of @b for the copy, under its queue's ready
 * lock: clear the results of an ET kevent and the result data of all.
 * Returns false when there is nothing to report: a notification queued it
 * again after a delivery that took its results (between the take and the
 * snapshot of that delivery).
 */
static bool kevent_snapshot(struct kevent_batch *b, unsigned int i,
			    struct kevent *k)
{
	bool empty;

	lockdep_assert_held(&k->queue->ready_lock);
	empty = !(k->event.ret_flags & (KEVENT_RET_DONE | KEVENT_RET_BROKEN));
	if (!empty) {
		b->uk[i] = k->event;
		b->gen[i] = k->gen;
		if (k->event.req_flags & KEVENT_REQ_ET)
			k->event.ret_flags = 0;
		k->event.ret_data[0] = 0;
		k->event.ret_data[1] = 0;
		/*
		 * Queued again since the take (during ->deliver, say): this
		 * snapshot carries what that notification brought, so the
		 * kevent is not delivered a second time, empty.  A kevent
		 * whose ->deliver has work to do (a timer's count, a
		 * re-check) keeps its place: its news is not in @k->event.
		 */
		if (READ_ONCE(k->on_ready) && !kevent_deliver_needed(k))
			kevent_ready_forget(k);
	}
	return !empty;
}

/*
 * Take up to @max ready kevents (at most KEVENT_DELIVER_BATCH) of the
 * collection pass *@pass (0: a new one, see kevent_ready_take()) into @b:
 * each brought up to date by its storage and snapshotted for the copy.
 * Called with ctl_mutex held, which keeps them alive as long as it is
 * held; the final ones (ONESHOT, broken), which the caller removes, get a
 * reference each.  Returns how many, 0 when none is ready.  A batch
 * gives up after taking 2 * KEVENT_DELIVER_BATCH kevents, at least half
 * of them dropped as not ready at delivery (a re-check that ->poll
 * answered "no"), with @b->more set: the pass may still hold ready ones
 * behind them, for the next batch.
 *
 * A pass takes kevents off the ready list and snapshots them under one
 * acquisition of the ready lock.  Only a kevent whose storage has work in
 * ->deliver (a timer, a file's re-check), which may sleep, waits for the
 * end of it; it is snapshotted after its ->deliver, under a second one.
 * A notification may add results between a kevent's ->deliver and its
 * snapshot, as at any time before it: the snapshot takes what is there.
 * The kevents keep the ready list's order.
 */
unsigned int kevent_batch_take(struct kevent_queue *q,
			       struct kevent_batch *b, unsigned int max,
			       u64 *pass)
{
	/*
	 * Kevents taken, kept or dropped as not ready by ->deliver: at most
	 * this many per batch.
	 */
	unsigned int tries = 2 * KEVENT_DELIVER_BATCH;
	unsigned int i, got, base;
	unsigned long late;
	struct kevent *k;

	BUILD_BUG_ON(KEVENT_DELIVER_BATCH > BITS_PER_LONG);
	lockdep_assert_held(&q->ctl_mutex);
	max = min_t(unsigned int, max, KEVENT_DELIVER_BATCH);
	b->n = 0;
	while (b->n < max && tries) {
		/* The kevents of this pass land in b->k[base...]. */
		base = b->n;
		late = 0;
		spin_lock_irq(&q->ready_lock);
		got = kevent_ready_take(q, b->k + base,
					min(max - base, tries), pass);
		for (i = 0; i < got; i++) {
			k = b->k[base + i];
			if (kevent_deliver_needed(k))
				late |= BIT(i);
			else if (!kevent_snapshot(b, base + i, k))
				b->k[base + i] = NULL;
		}
		spin_unlock_irq(&q->ready_lock);
		if (!got)
			break;
		tries -= got;
		if (late) {
			for_each_set_bit(i, &late, got)
				if (kevent_deliver(b->k[base + i]) <= 0) {
					b->k[base + i] = NULL;
					__clear_bit(i, &late);
				}
			spin_lock_irq(&q->ready_lock);
			for_each_set_bit(i, &late, got)
				if (!kevent_snapshot(b, base + i, b->k[base + i]))
					b->k[base + i] = NULL;
			spin_unlock_irq(&q->ready_lock);
		}
		/* Kept ones move down to b->n, which never passes base + i. */
		for (i = 0; i < got; i++) {
			k = b->k[base + i];
			if (!k)
				continue;
			if (b->n != base + i) {
				b->k[b->n] = k;
				b->uk[b->n] = b->uk[base + i];
				b->gen[b->n] = b->gen[base + i];
			}
			/*
			 * A final kevent is removed after the copy: the
			 * reference keeps it for that.
			 */
			if (kevent_batch_final(b, b->n))
				refcount_inc(&k->refcnt);
			b->n++;
		}
	}
	b->pass = *pass;
	b->more = !tries;
	return b->n;
}

/*
 * The copy of @b is to be made with ctl_mutex dropped (it faulted with
 * page faults disabled): every kevent of the batch gets the reference
 * that the final ones already have.
 */
void kevent_batch_hold(struct kevent_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		if (!kevent_batch_final(b, i))
			refcount_inc(&b->k[i]->refcnt);
}

/*
 * The whole of @b reached user memory with ctl_mutex held since it was
 * taken: remove the final kevents, which nothing can have changed (MODIFY
 * and removal need ctl_mutex), and drop their references.
 */
void kevent_batch_done(struct kevent_queue *q, struct kevent_batch *b)
{
	unsigned int i;

	lockdep_assert_held(&q->ctl_mutex);
	for (i = 0; i < b->n; i++) {
		struct kevent *k = b->k[i];

		if (!kevent_batch_final(b, i))
			continue;
		if (k->in_tree && k->gen == b->gen[i])
			kevent_remove(k, true);
		kevent_put(k);
	}
}

/*
 * The first @copied snapshots of @b reached user memory, after ctl_mutex
 * was dropped for a copy that could fault: settle the batch under
 * ctl_mutex.  A collector killed while another caller holds ctl_mutex (in
 * a ->poll that sleeps) does not wait: it leaves the batch on the queue,
 * and the holder settles it when it unlocks.  Either way every kevent of
 * the batch ends delivered (and removed when final) or queued again.
 */
void kevent_batch_finish(struct kevent_queue *q, struct kevent_batch *b,
			 unsigned int copied)
{
	struct kevent_batch *orphan;
	bool final = false;
	unsigned int i;

	for (i = 0; i < copied; i++)
		final |= kevent_batch_final(b, i);
	if (!final && copied == b->n) {
		/* All delivered and none to remove: only the references. */
		for (i = 0; i < b->n; i++)
			kevent_put(b->k[i]);
		return;
	}
	b->copied = copied;
	if (!mutex_lock_killable(&q->ctl_mutex)) {
		kevent_batch_settle(q, b);
		kevent_queue_unlock(q);
		return;
	}
	/* Small, and the kevents must not be left behind: may not fail. */
	orphan = kmemdup(b, sizeof(*b), GFP_KERNEL | __GFP_NOFAIL);
	spin_lock(&q->orphan_lock);
	list_add_tail(&orphan->orphan, &q->orphans);
	spin_unlock(&q->orphan_lock);
	/* Pairs with the smp_mb() in kevent_queue_unlock(). */
	smp_mb();
	if (mutex_trylock(&q->ctl_mutex))
		kevent_queue_unlock(q);
}

/*
 * Copy @len bytes to user memory without taking a page fault, under a lock
 * that a fault must not sleep under.  Returns the bytes not copied: a page
 * that is not there (or not writable yet) fails the copy, and the caller
 * copies again with the lock dropped.
 */
static unsigned long kevent_copy_nofault(void __user *to, const void *from,
					 unsigned long len)
{
	unsigned long left;

	pagefault_disable();
	left = copy_to_user(to, from, len);
	pagefault_enable();
	return left;
}

/*
 * Deliver up to @max ready kevents of the collection pass *@pass to @buf
 * (one batch).  Returns how many were
 * copied; 0 when none was ready, with *@more set when the batch gave up
 * on not-ready kevents before the pass's end (the caller goes on);
 * -EFAULT when the first copy faulted (the kevent stays ready), -EINTR on
 * a signal while waiting for ctl_mutex.
 *
 * The batch is copied while ctl_mutex is still held, with page faults
 * disabled (as epoll copies under ep->mtx, but it may take the fault): no
 * reference, no second acquisition for a ONESHOT kevent.  Only when that
 * copy faults are references taken, ctl_mutex dropped, and the batch
 * copied again where a fault may sleep.
 */
static long kevent_deliver_to_buf(struct kevent_queue *q,
				  struct ukevent __user *buf, unsigned int max,
				  u64 *pass, bool *more)
{
	/* Written before it is read: see struct kevent_batch. */
	struct kevent_batch b __uninitialized;
	unsigned long left = 0;
	unsigned int copied;
	unsigned int n;

	*more = false;
	if (kevent_collect_lock(&q->ctl_mutex))
		return -EINTR;
	kevent_orphans_finish(q);
	n = kevent_batch_take(q, &b, max, pass);
	if (n) {
		left = kevent_copy_nofault(buf, b.uk, n * sizeof(b.uk[0]));
		if (!left)
			kevent_batch_done(q, &b);
		else
			kevent_batch_hold(&b);
	}
	kevent_queue_unlock(q);
	*more = b.more;
	if (!n)
		return 0;
	copied = n;
	if (left) {
		left = copy_to_user(buf, b.uk, n * sizeof(b.uk[0]));
		copied = n - DIV_ROUND_UP(left, sizeof(b.uk[0]));
		kevent_batch_finish(q, &b, copied);
	}
	atomic_long_add(copied, &q->wait_num);
	return copied ? (long)copied : -EFAULT;
}

void kevent_pass_init(struct kevent_pass *p)
{
	p->pass = 0;
	p->end = 0;
}

/*
 * After a batch: whether the pass may take another.  Not past its time
 * budget, nor with a signal pending (the caller returns what it copied),
 * so a call ends by its deadline plus a bound that does not grow with the
 * number of kevents, the buffer or ring size, or the timers' periods.
 */
bool kevent_pass_goes_on(struct kevent_pass *p)
{
	u64 now;

	if (signal_pending(current))
		return false;
	now = ktime_get_ns();
	if (!p->end)
		p->end = now + KEVENT_PASS_NS;
	else if (now > p->end)
		return false;
	cond_resched();
	return true;
}

static ktime_t kevent_deadline(u64 timeout)
{
	if (timeout > KTIME_MAX)
		return KTIME_MAX;
	return ktime_add_safe(ktime_get(), ns_to_ktime(timeout));
}

/*
 * Wait until at least @min_nr kevents are ready, *@deadline passes or a
 * signal comes.  Returns 0 (ready or not, the caller looks), -ETIME at the
 * deadline, -EINTR on a signal.  With enough kevents ready it returns at
 * once, as ep_poll() does: no clock read, no wait entry, no timer.  The
 * deadline (0: not set yet) is set from @timeout the first time the call
 * has to wait.
 */
int kevent_wait_ready(struct kevent_queue *q, unsigned int min_nr,
		      u64 timeout, ktime_t *deadline)
{
	long ret;

	if (kevent_queue_ready_num(q) >= min_nr) {
		/*
		 * Ready: no wait.  A later round of the same call (the
		 * kevents turned out not ready at delivery, or another task
		 * took them, and they are ready again) still ends at the
		 * deadline, which is set here at the latest.
		 */
		if (timeout == KEVENT_WAIT_FOREVER)
			return 0;
		if (!*deadline) {
			*deadline = kevent_deadline(timeout);
			return 0;
		}
		return ktime_compare(*deadline, ktime_get()) <= 0 ? -ETIME : 0;
	}
	if (timeout == KEVENT_WAIT_FOREVER) {
		ret = wait_event_interruptible(q->wait,
				kevent_queue_ready_num(q) >= min_nr);
	} else {
		ktime_t left;

		if (!*deadline)
			*deadline = kevent_deadline(timeout);
		left = ktime_sub(*deadline, ktime_get());

		if (ktime_compare(left, 0) <= 0)
			return -ETIME;
		ret = wait_event_interruptible_hrtimeout(q->wait,
				kevent_queue_ready_num(q) >= min_nr, left);
	}
	if (ret == -ERESTARTSYS)
		return -EINTR;
	return ret;
}

/**
 * kevent_queue_get_events() - the body of kevent_get_events()
 * @q: the queue
 * @min_nr: wait until this many kevents are ready
 * @max_nr: copy at most this many
 * @timeout: relative, in nanoseconds; 0 does not wait, KEVENT_WAIT_FOREVER
 *           waits without limit
 * @buf: the user buffer
 * @nonblock: never wait (O_NONBLOCK)
 *
 * A waiter woken when others took the events, or whose events turned out
 * not ready at delivery, keeps waiting until its timeout.  Every round
 * either sleeps or takes kevents off the ready list, and a signal ends
 * the call, so no caller spins.  A round is one collection pass
 * (struct kevent_pass): each kevent at most once, so a kevent that is ready
 * again at once (a 1 ns timer) cannot keep a call going.  The ring is
 * not touched.
 *
 * Return: the number of kevents copied (0 at the timeout), -EINTR when a
 * signal came before any was copied, -EFAULT when the first copy faulted.
 */
long kevent_queue_get_events(struct kevent_queue *q, unsigned int min_nr,
			     unsigned int max_nr, u64 timeout,
			     struct ukevent __user *buf, bool nonblock)
{
	bool wait = timeout && !nonblock;
	struct kevent_pass p;
	ktime_t deadline = 0;
	unsigned int num;
	bool more;
	long ret;
	int err;

	for (;;) {
		err = wait ? kevent_wait_ready(q, min_nr, timeout, &deadline) : 0;
		if (err == -EINTR)
			return err;

		/* Nothing ready: no lock taken (ep_events_available()). */
		num = 0;
		kevent_pass_init(&p);
		while (num < max_nr && kevent_queue_ready_num(q)) {
			ret = kevent_deliver_to_buf(q, buf + num, max_nr - num,
						    &p.pass, &more);
			if (ret < 0 && !num)
				return ret;
			/*
			 * Nothing copied ends the pass, unless the batch gave
			 * up on kevents not ready at delivery.
			 */
			if (ret < 0 || (!ret && !more))
				break;
			num += ret;
			if (num >= max_nr || !kevent_pass_goes_on(&p))
				break;
		}
		if (num || !wait || err || !min_nr)
			return num;
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}
