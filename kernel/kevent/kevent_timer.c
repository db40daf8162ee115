// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the timer storage (KEVENT_TIMER).
 *
 * Each timer kevent owns a CLOCK_MONOTONIC hrtimer and a storage whose
 * origin is that timer.  id.raw[0] is the period's seconds, id.raw[1] its
 * nanoseconds (a zero period is -EINVAL); the event bits must include
 * KEVENT_TIMER_FIRED (the core refuses others: such a timer could never be
 * delivered).  Periodic unless ONESHOT.  ret_data[0] is the number of
 * expirations since the kevent was last delivered, saturating at U32_MAX.
 *
 * As timerfd does, the hrtimer is not re-armed while an expiration waits
 * undelivered: the timer function counts one expiration, reports it and
 * stops.  Delivery (->deliver, in the collecting task) forwards the timer
 * past now, counts the periods missed meanwhile and re-arms it, so a tiny
 * period costs one interrupt per delivery, never a flood.  The hrtimer is
 * armed while @expired is 0 (a ONESHOT timer that fired stays stopped).
 * MODIFY keeps the pending count: a fired ONESHOT timer modified to
 * periodic is delivered with its count, then re-armed.  MODIFY also arms
 * a stopped timer with nothing pending, which on SMP may be one whose
 * function is about to count: then an expiration can come while a
 * delivery has the kevent taken.  That delivery takes both counts, and
 * the next one finds none and reports nothing.
 *
 * The timer function runs in hard interrupt context and only calls
 * kevent_storage_ready(); removal cancels the hrtimer (waiting for a running
 * timer function) before the storage is freed, so no callback runs after.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include "kevent_internal.h"

/**
 * struct kevent_timer - the origin of one timer kevent
 * @timer: the hrtimer, armed while @expired is 0
 * @st: the storage, with the one kevent
 * @period: the period
 * @next: the expiry the hrtimer is (or is next) armed for; @st.lock
 * @expired: expirations not yet delivered; @st.lock
 */
struct kevent_timer {
	struct hrtimer		timer;
	struct kevent_storage	st;
	ktime_t			period;
	ktime_t			next;
	u64			expired;
};

/* Arm the hrtimer for @t->next; @t->st.lock held (or @t not yet seen). */
static void kevent_timer_arm(struct kevent_timer *t)
{
	hrtimer_start(&t->timer, t->next, HRTIMER_MODE_ABS);
}

/*
 * Move @t->next past now by whole periods, as hrtimer_forward_now() does,
 * but on a copy of the expiry: hrtimer_forward() may not touch a timer
 * whose function is running, and on SMP delivery can come while the
 * timer function of the expiration it counts is still returning.
 * Returns the periods that expired (at least 1 after an expiration).
 */
static u64 kevent_timer_forward(struct kevent_timer *t)
{
	ktime_t now = ktime_get();
	ktime_t delta = ktime_sub(now, t->next);
	u64 orun = 1;

	if (delta < 0)
		return 0;
	if (delta >= t->period) {
		s64 incr = ktime_to_ns(t->period);

		orun = ktime_divns(delta, incr);
		t->next = ktime_add_ns(t->next, incr * orun);
		if (t->next > now)
			return orun;
		orun++;
	}
	t->next = ktime_add_safe(t->next, t->period);
	return orun;
}

#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
/*
 * For the KUnit suites: called between counting an expiration and
 * reporting it, which must be one section of the storage lock; and as
 * delivery begins, with the kevent taken off the ready list.
 */
void (*kevent_timer_counted_hook)(struct kevent_storage *st);
void (*kevent_timer_deliver_hook)(struct kevent *k);
#endif

/* The ready callback of an expiration, under @t->st.lock: count it. */
static int kevent_timer_count(struct kevent *k)
{
	struct kevent_timer *t = k->priv;

	t->expired++;
#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
	{
		void (*hook)(struct kevent_storage *st);

		hook = READ_ONCE(kevent_timer_counted_hook);
		if (hook)
			hook(&t->st);
	}
#endif
	return 0;
}

static enum hrtimer_restart kevent_timer_func(struct hrtimer *timer)
{
	struct kevent_timer *t = container_of(timer, struct kevent_timer, timer);

	/*
	 * Counted and reported in one section of the storage lock: a
	 * delivery in between would take the count and leave a
	 * notification with nothing to report.  The hrtimer runs only
	 * while its kevent is attached (a fired ONESHOT is not re-armed).
	 */
	kevent_storage_ready(&t->st, kevent_timer_count, KEVENT_TIMER_FIRED);
	/* Re-armed by delivery. */
	return HRTIMER_NORESTART;
}

/*
 * Under the storage lock and the queue's ready lock: ready while an
 * expiration waits.  MODIFY's re-check (no notification in progress) also
 * arms a timer that is stopped with nothing pending: a ONESHOT that fired
 * and was delivered while MODIFY made it periodic.
 */
static int kevent_timer_callback(struct kevent *k)
{
	struct kevent_timer *t = k->priv;

	if (t->expired)
		return KEVENT_READY;
	if (!t->st.event && !hrtimer_is_queued(&t->timer)) {
		t->next = ktime_add_safe(ktime_get(), t->period);
		kevent_timer_arm(t);
	}
	return KEVENT_NOT_READY;
}

/*
 * In the collecting task: hand the expirations to the kevent, with the
 * periods missed since the last one, and re-arm a periodic timer.
 */
static int kevent_timer_deliver(struct kevent *k)
{
	struct kevent_timer *t = k->priv;
	unsigned long flags;
	u64 n;

#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
	{
		void (*hook)(struct kevent *k);

		hook = READ_ONCE(kevent_timer_deliver_hook);
		if (hook)
			hook(k);
	}
#endif
	spin_lock_irqsave(&t->st.lock, flags);
	n = t->expired;
	t->expired = 0;
	/* req_flags is written under the storage lock too: read under it. */
	if (n && !(k->event.req_flags & KEVENT_REQ_ONESHOT) &&
	    !hrtimer_is_queued(&t->timer)) {
		/* The first of the forwarded periods is the one counted. */
		n += max_t(u64, kevent_timer_forward(t), 1) - 1;
		kevent_timer_arm(t);
	}
	/* The count is a result: under the queue's lock. */
	spin_lock(&k->queue->ready_lock);
	n += k->event.ret_data[0];
	k->event.ret_data[0] = min_t(u64, n, U32_MAX);
	spin_unlock(&k->queue->ready_lock);
	spin_unlock_irqrestore(&t->st.lock, flags);
	/*
	 * Nothing to report: an expiration that came while an earlier
	 * delivery had the kevent taken queued it again, and that delivery
	 * took the count (MODIFY re-arms a timer whose function is still
	 * running on another CPU, so it can fire while a count waits).
	 * Sticky DONE would deliver it with a count of 0.
	 */
	return n ? 1 : 0;
}

static int kevent_timer_enqueue(struct kevent *k)
{
	struct kevent_timer *t;
	ktime_t period;
	int err;

	if (k->event.id.raw[1] >= NSEC_PER_SEC)
		return -EINVAL;
	period = ktime_set(k->event.id.raw[0], k->event.id.raw[1]);
	if (!period)
		return -EINVAL;

	t = kzalloc(sizeof(*t), KEVENT_GFP);
	if (!t)
		return -ENOMEM;

	t->period = period;
	t->next = ktime_add_safe(ktime_get(), period);
	kevent_storage_init(&t->timer, &t->st);
	hrtimer_init(&t->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	t->timer.function = kevent_timer_func;
	k->priv = t;
	err = kevent_storage_enqueue(&t->st, k);
	if (err) {
		kfree(t);
		return err;
	}
	kevent_timer_arm(t);
	return 0;
}

static int kevent_timer_dequeue(struct kevent *k)
{
	struct kevent_timer *t = k->priv;

	hrtimer_cancel(&t->timer);
	kevent_storage_dequeue(&t->st, k);
	kfree(t);
	return 0;
}

#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
/**
 * kevent_timer_armed() - whether a timer kevent's hrtimer is armed
 * @k: a kevent of type KEVENT_TIMER, in its queue
 *
 * For the KUnit suites, which check that no expiration re-arms the timer
 * before delivery.
 *
 * Return: true while the hrtimer is queued.
 */
bool kevent_timer_armed(struct kevent *k)
{
	struct kevent_timer *t = k->priv;

	return hrtimer_is_queued(&t->timer);
}

/**
 * kevent_timer_expire() - an expiration of a timer kevent, now
 * @k: a kevent of type KEVENT_TIMER, in its queue
 *
 * For the KUnit suites, which need an expiration at a chosen point: the
 * hrtimer is cancelled and its function runs here, as if it had fired.
 */
void kevent_timer_expire(struct kevent *k)
{
	struct kevent_timer *t = k->priv;
	unsigned long flags;

	hrtimer_cancel(&t->timer);
	local_irq_save(flags);
	kevent_timer_func(&t->timer);
	local_irq_restore(flags);
}
#endif

static int __init kevent_init_timer(void)
{
	static const struct kevent_callbacks tc = {
		.callback	= kevent_timer_callback,
		.enqueue	= kevent_timer_enqueue,
		.dequeue	= kevent_timer_dequeue,
		.deliver	= kevent_timer_deliver,
		.events		= KEVENT_TIMER_FIRED,
		.counts		= true,
	};

	return kevent_add_callbacks(&tc, KEVENT_TIMER);
}
fs_initcall(kevent_init_timer);
