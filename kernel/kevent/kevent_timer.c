// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the timer storage (KEVENT_TIMER).
 *
 * Each timer kevent owns a CLOCK_MONOTONIC hrtimer and a storage whose
 * origin is that timer.  id.raw[0] is the period's seconds, id.raw[1] its
 * nanoseconds (a zero period is -EINVAL).  The hrtimer is periodic; a
 * ONESHOT kevent leaves the storage at its first expiration (the core does
 * that) and the timer then stops.  ret_data[0] is the number of expirations
 * since the kevent was last delivered.
 *
 * The timer function runs in hard interrupt context and only calls
 * kevent_storage_ready(); removal cancels the hrtimer (waiting for a running
 * timer function) before the storage is freed, so no callback runs after.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kevent.h>

struct kevent_timer {
	struct hrtimer		timer;
	struct kevent_storage	st;
	ktime_t			period;
	u64			expired;	/* since the last callback */
};

static enum hrtimer_restart kevent_timer_func(struct hrtimer *timer)
{
	struct kevent_timer *t = container_of(timer, struct kevent_timer, timer);
	enum hrtimer_restart ret = HRTIMER_RESTART;
	unsigned long flags;

	/* Several periods may have passed if the timer ran late. */
	spin_lock_irqsave(&t->st.lock, flags);
	t->expired += hrtimer_forward_now(timer, t->period);
	spin_unlock_irqrestore(&t->st.lock, flags);

	kevent_storage_ready(&t->st, NULL, KEVENT_TIMER_FIRED);

	spin_lock_irqsave(&t->st.lock, flags);
	if (list_empty(&t->st.list))
		ret = HRTIMER_NORESTART;
	spin_unlock_irqrestore(&t->st.lock, flags);
	return ret;
}

/* Called under the storage lock: move the expirations into the kevent. */
static int kevent_timer_callback(struct kevent *k)
{
	struct kevent_timer *t = k->priv;
	u64 n = t->expired;

	if (!n)
		return 0;
	t->expired = 0;
	n += k->event.ret_data[0];
	k->event.ret_data[0] = min_t(u64, n, U32_MAX);
	return 1;
}

static int kevent_timer_enqueue(struct kevent *k)
{
	struct kevent_timer *t;
	ktime_t period;

	if (k->event.id.raw[1] >= NSEC_PER_SEC)
		return -EINVAL;
	period = ktime_set(k->event.id.raw[0], k->event.id.raw[1]);
	if (!period)
		return -EINVAL;

	t = kzalloc(sizeof(*t), KEVENT_GFP);
	if (!t)
		return -ENOMEM;

	t->period = period;
	kevent_storage_init(&t->timer, &t->st);
	hrtimer_init(&t->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->timer.function = kevent_timer_func;
	k->priv = t;
	kevent_storage_enqueue(&t->st, k);
	hrtimer_start(&t->timer, period, HRTIMER_MODE_REL);
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

static int __init kevent_init_timer(void)
{
	static const struct kevent_callbacks tc = {
		.callback	= kevent_timer_callback,
		.enqueue	= kevent_timer_enqueue,
		.dequeue	= kevent_timer_dequeue,
	};

	return kevent_add_callbacks(&tc, KEVENT_TIMER);
}
fs_initcall(kevent_init_timer);
