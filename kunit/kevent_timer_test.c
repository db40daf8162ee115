// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the timer storage (KEVENT_TIMER), through the queue API.
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/ktime.h>
#include <linux/delay.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

struct ktt {
	struct kevent_queue	*q;
	struct ukevent __user	*buf;
};

static int ktt_init(struct kunit *test)
{
	struct ktt *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->q = kevent_queue_create();
	KUNIT_ASSERT_NOT_NULL(test, t->q);
	t->buf = (struct ukevent __user *)kt_user_mem(test, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, t->buf);
	test->priv = t;
	return 0;
}

static void ktt_exit(struct kunit *test)
{
	struct ktt *t = test->priv;

	kevent_queue_destroy(t->q);
}

static int ktt_add(struct ktt *t, u32 sec, u32 nsec, u32 flags,
		   struct ukevent *uk)
{
	int err;

	memset(uk, 0, sizeof(*uk));
	uk->type = KEVENT_TIMER;
	uk->event = KEVENT_TIMER_FIRED;
	uk->id.raw[0] = sec;
	uk->id.raw[1] = nsec;
	uk->req_flags = flags;
	mutex_lock(&t->q->ctl_mutex);
	err = kevent_queue_add_ukevent(uk, t->q);
	mutex_unlock(&t->q->ctl_mutex);
	return err;
}

static int ktt_remove(struct ktt *t, struct ukevent *uk)
{
	int err;

	mutex_lock(&t->q->ctl_mutex);
	err = kevent_queue_remove_ukevent(uk, t->q);
	mutex_unlock(&t->q->ctl_mutex);
	return err;
}

static long ktt_get(struct kunit *test, struct ktt *t, u64 timeout,
		    struct ukevent *out)
{
	long n = kevent_queue_get_events(t->q, 1, 1, timeout, t->buf, false);

	if (n == 1)
		KUNIT_ASSERT_EQ(test, 0UL,
				copy_from_user(out, t->buf, sizeof(*out)));
	return n;
}

static void kevent_timer_zero_period_einval(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	KUNIT_EXPECT_EQ(test, ktt_add(t, 0, 0, 0, &uk), -EINVAL);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -EINVAL);
	KUNIT_EXPECT_EQ(test, ktt_add(t, 0, NSEC_PER_SEC, 0, &uk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 0U);
}

static void kevent_timer_fires_within_tolerance(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;
	s64 us, best = S64_MAX;
	ktime_t start;
	int i;

	/*
	 * The upper bound is judged on the fastest of KT_TIMING_TRIES tries:
	 * a stall of the host only makes a try slower, and a timer that is
	 * always late fails every try.
	 */
	for (i = 0; i < KT_TIMING_TRIES && best >= kt_slack(20000); i++) {
		start = ktime_get();
		KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 10 * NSEC_PER_MSEC, 0, &uk), 0);
		KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
		us = ktime_us_delta(ktime_get(), start);
		KUNIT_EXPECT_EQ(test, uk.type, (u32)KEVENT_TIMER);
		KUNIT_EXPECT_EQ(test, uk.event, (u32)KEVENT_TIMER_FIRED);
		KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
		/* One expiration, or one per period a late consumer let pass. */
		KUNIT_EXPECT_GE(test, uk.ret_data[0], 1U);
		KUNIT_EXPECT_LE(test, (s64)uk.ret_data[0], us / 10000);
		/* 10 ms period: fired after at least 10 ms ... */
		KUNIT_EXPECT_GE(test, us, 10000LL);
		best = min(best, us);
		KUNIT_ASSERT_EQ(test, ktt_remove(t, &uk), 0);
	}
	/* ... and within 10 ms more. */
	KUNIT_EXPECT_LT(test, best, kt_slack(20000));
}

/*
 * Delivery counts the whole periods from the timer's start (inside the
 * add, between t0 and t1) to the collecting call (between t2 and t3), so
 * a stall inside the add or the call widens the bounds and fails nothing.
 */
static void kevent_timer_counts_expirations_since_delivery(struct kunit *test)
{
	struct ktt *t = test->priv;
	ktime_t t0, t1, t2, t3;
	struct ukevent uk;

	t0 = ktime_get();
	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 5 * NSEC_PER_MSEC, 0, &uk), 0);
	t1 = ktime_get();
	/* A slow consumer: at least ten periods pass before it looks. */
	usleep_range(52000, 52100);
	t2 = ktime_get();
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, 0, &uk), 1L);
	t3 = ktime_get();
	/* One per whole period that surely passed, no more than could have. */
	KUNIT_EXPECT_GE(test, (s64)uk.ret_data[0], ktime_us_delta(t2, t1) / 5000);
	KUNIT_EXPECT_LE(test, (s64)uk.ret_data[0], ktime_us_delta(t3, t0) / 5000);
	KUNIT_EXPECT_GE(test, uk.ret_data[0], 10U);
	/*
	 * The next delivery counts from the first one (after t2): the timer
	 * was forwarded past it and fires a period later at the most.
	 */
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
	KUNIT_EXPECT_GE(test, uk.ret_data[0], 1U);
	KUNIT_EXPECT_LE(test, (s64)uk.ret_data[0],
			ktime_us_delta(ktime_get(), t2) / 5000 + 1);
}

static void kevent_timer_oneshot_fires_once(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 2 * NSEC_PER_MSEC,
				      KEVENT_REQ_ONESHOT, &uk), 0);
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], 1U);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, ktt_get(test, t, 20 * NSEC_PER_MSEC, &uk), 0L);
}

static void kevent_timer_removed_never_fires(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 3 * NSEC_PER_MSEC, 0, &uk), 0);
	KUNIT_EXPECT_EQ(test, ktt_remove(t, &uk), 0);
	usleep_range(10000, 11000);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 0U);
}

static void kevent_timer_same_period_is_same_key(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 1, 0, 0, &uk), 0);
	KUNIT_EXPECT_EQ(test, ktt_add(t, 1, 0, KEVENT_REQ_ET, &uk), -EEXIST);
	KUNIT_EXPECT_EQ(test, ktt_add(t, 1, 1, 0, &uk), 0);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 2U);
}

/*
 * Removal racing the timer: 50 us periods, removed after a varying busy
 * wait, so the timer interrupt lands at every point of the removal.
 * Nothing may stay ready and nothing may be touched after it is freed
 * (KASAN watches under --debug).
 */
static void kevent_timer_removal_while_firing(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;
	int i;

	for (i = 0; i < 300; i++) {
		KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 50000 + i, 0, &uk), 0);
		udelay(i % 13 * 9);
		KUNIT_ASSERT_EQ(test, ktt_remove(t, &uk), 0);
		KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(t->q), 0U);
	}
	udelay(200);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 0U);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 0U);
}

/* Closing a queue with hundreds of timers armed, many of them firing. */
static void kevent_timer_queue_close_with_hundreds_armed(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;
	int i;

	for (i = 0; i < 400; i++)
		KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 100000 + i * 1000,
					      i % 3 ? 0 : KEVENT_REQ_ONESHOT,
					      &uk), 0);
	/* Some fired (the first after 100 us; an emulated vCPU may be late). */
	for (i = 0; i < 1000 && !kevent_queue_ready_num(t->q); i++)
		mdelay(1);
	KUNIT_EXPECT_GT(test, kevent_queue_ready_num(t->q), 0U);
	kevent_queue_destroy(t->q);
	/* A new queue works, and no old timer reaches it. */
	t->q = kevent_queue_create();
	KUNIT_ASSERT_NOT_NULL(test, t->q);
	mdelay(2);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 0U);
	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, NSEC_PER_MSEC, KEVENT_REQ_ONESHOT,
				      &uk), 0);
	KUNIT_EXPECT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
}

/* The queue's only kevent (the tests below add one). */
static struct kevent *ktt_only(struct kunit *test, struct ktt *t)
{
	struct rb_node *n;

	mutex_lock(&t->q->ctl_mutex);
	n = rb_first(&t->q->kevent_root);
	mutex_unlock(&t->q->ctl_mutex);
	KUNIT_ASSERT_NOT_NULL(test, n);
	return rb_entry(n, struct kevent, kevent_node);
}

/*
 * No re-arm while an expiration waits undelivered: a tiny period costs one
 * interrupt per delivery.  Delivery counts the missed periods and re-arms.
 */
static void kevent_timer_not_rearmed_until_delivered(struct kunit *test)
{
	struct ktt *t = test->priv;
	ktime_t t0 = ktime_get();
	struct ukevent uk;
	struct kevent *k;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 20 * NSEC_PER_MSEC, 0, &uk), 0);
	k = ktt_only(test, t);
	/* Armed, unless a stall since the add let its first period pass. */
	KUNIT_EXPECT_TRUE(test, kevent_timer_armed(k) ||
			  ktime_ms_delta(ktime_get(), t0) >= 20);
	msleep(110);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 1U);
	/* Fired once, then stopped: no interrupt per period meanwhile. */
	KUNIT_EXPECT_FALSE(test, kevent_timer_armed(k));
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, 0, &uk), 1L);
	/* Every period that passed is counted, whatever the delay was. */
	KUNIT_EXPECT_GE(test, uk.ret_data[0], 5U);
	KUNIT_EXPECT_LE(test, (u64)uk.ret_data[0],
			ktime_ms_delta(ktime_get(), t0) / 20 + 1);
	/* Re-armed: it fires again. */
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
}

/* A 1 ns period: each delivery gets a count, the machine is not flooded. */
static void kevent_timer_one_ns_period_does_not_flood(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;
	struct kevent *k;
	ktime_t t0;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 1, 0, &uk), 0);
	k = ktt_only(test, t);
	t0 = ktime_get();
	/*
	 * The timer fires once and stops, so no interrupt per period comes.
	 * Its one interrupt may come late on an emulated vCPU (a busy wait
	 * counts host time, the interrupt waits for the emulator): wait for
	 * the timer to stop, a while (one that re-arms itself never does),
	 * then busy-wait 20 ms and check that it stayed stopped.  A flood
	 * would also stretch the wait far beyond the bound, which leaves
	 * room for a host that runs this UML late.
	 */
	while (kevent_timer_armed(k) &&
	       ktime_ms_delta(ktime_get(), t0) < kt_slack(400))
		udelay(100);
	mdelay(20);
	KUNIT_EXPECT_FALSE(test, kevent_timer_armed(k));
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), kt_slack(500));
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, 0, &uk), 1L);
	KUNIT_EXPECT_GE(test, uk.ret_data[0], 1000000U);
	/* Ready again at once, but one call delivers each kevent once. */
	udelay(10);
	KUNIT_EXPECT_EQ(test, kevent_queue_get_events(t->q, 1, 16, NSEC_PER_SEC,
						      t->buf, false), 1L);
}

/*
 * MODIFY of a ONESHOT timer that fired but was not delivered, to
 * periodic: it is attached again, delivered DONE with its expiration,
 * and fires periodically afterwards.
 */
static void kevent_timer_modify_fired_oneshot_to_periodic(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	KUNIT_ASSERT_EQ(test, ktt_add(t, 0, 2 * NSEC_PER_MSEC,
				      KEVENT_REQ_ONESHOT, &uk), 0);
	usleep_range(5000, 5100);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(t->q), 1U);
	uk.req_flags = 0;
	mutex_lock(&t->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, t->q), 0);
	mutex_unlock(&t->q->ctl_mutex);
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_GE(test, uk.ret_data[0], 1U);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 1U);
	/* Periodic now: two more firings. */
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_ASSERT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 1U);
}

/* A timer that could never be delivered is refused. */
static void kevent_timer_mask_without_fired_einval(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk;

	memset(&uk, 0, sizeof(uk));
	uk.type = KEVENT_TIMER;
	uk.event = 0x2;
	uk.id.raw[1] = 200 * NSEC_PER_USEC;
	uk.req_flags = KEVENT_REQ_ONESHOT;
	mutex_lock(&t->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, t->q), -EINVAL);
	mutex_unlock(&t->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 0U);
}

/*
 * An expiration is counted and reported in one section of the timer's
 * storage lock: a delivery between the two (on another CPU) would take
 * the count, forward the hrtimer under its running function, and leave a
 * report with nothing to report, which sticky DONE delivered as a count
 * of 0.  The hook runs between the count and the report; the lock must
 * still be held there, which lockdep tells: the debug and SMP kernels
 * run this.
 */
static atomic_t ktt_counted, ktt_counted_unlocked;
static struct kevent *ktt_expire_k;

/* The timer's KUnit hooks are taken out when a case ends, however it ends. */
static void ktt_hooks_off(void *unused)
{
	WRITE_ONCE(kevent_timer_counted_hook, NULL);
	WRITE_ONCE(kevent_timer_deliver_hook, NULL);
	WRITE_ONCE(ktt_expire_k, NULL);
}

static void ktt_counted_hook(struct kevent_storage *st)
{
	atomic_inc(&ktt_counted);
#ifdef CONFIG_LOCKDEP
	if (!lockdep_is_held(&st->lock))
		atomic_inc(&ktt_counted_unlocked);
#endif
}

static void kevent_timer_counts_and_reports_in_one_section(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk, out;
	int i;

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		kunit_skip(test, "needs lockdep (--debug and --smp run it)");
	atomic_set(&ktt_counted, 0);
	atomic_set(&ktt_counted_unlocked, 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, ktt_hooks_off, NULL));
	WRITE_ONCE(kevent_timer_counted_hook, ktt_counted_hook);
	KUNIT_EXPECT_EQ(test, ktt_add(t, 0, NSEC_PER_MSEC, 0, &uk), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, ktt_get(test, t, NSEC_PER_SEC, &out), 1L);
	KUNIT_EXPECT_EQ(test, ktt_remove(t, &uk), 0);
	WRITE_ONCE(kevent_timer_counted_hook, NULL);
	KUNIT_EXPECT_GE(test, atomic_read(&ktt_counted), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ktt_counted_unlocked), 0);
}

/*
 * An expiration while a delivery has the kevent taken (on SMP: MODIFY
 * re-armed the timer while its function was still about to count) queues
 * it again, and that delivery takes both counts.  The kevent left on the
 * ready list has nothing to report: the next call returns no event, not
 * the timer with a count of 0 (its DONE flag is sticky).  The hook runs
 * as the delivery begins and makes the expiration then.
 */
static void ktt_expire_in_delivery(struct kevent *k)
{
	if (k == READ_ONCE(ktt_expire_k)) {
		WRITE_ONCE(ktt_expire_k, NULL);
		kevent_timer_expire(k);
	}
}

static void kevent_timer_expiration_during_delivery_not_sent_empty(struct kunit *test)
{
	struct ktt *t = test->priv;
	struct ukevent uk, out;
	struct kevent *k;

	memset(&out, 0, sizeof(out));
	/* An hour's period: only kevent_timer_expire() makes expirations. */
	KUNIT_ASSERT_EQ(test, ktt_add(t, 3600, 0, 0, &uk), 0);
	k = ktt_only(test, t);
	kevent_timer_expire(k);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(t->q), 1U);

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, ktt_hooks_off, NULL));
	WRITE_ONCE(ktt_expire_k, k);
	WRITE_ONCE(kevent_timer_deliver_hook, ktt_expire_in_delivery);
	KUNIT_EXPECT_EQ(test, ktt_get(test, t, 0, &out), 1L);
	WRITE_ONCE(kevent_timer_deliver_hook, NULL);
	KUNIT_EXPECT_NULL(test, READ_ONCE(ktt_expire_k));
	/* Both expirations, in one event. */
	KUNIT_EXPECT_EQ(test, out.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out.ret_data[0], 2U);

	/* Queued again by the second, whose count is delivered: nothing. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 1U);
	memset(&out, 0, sizeof(out));
	KUNIT_EXPECT_EQ(test, ktt_get(test, t, 0, &out), 0L);
	KUNIT_EXPECT_EQ(test, out.ret_data[0], 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(t->q), 0U);
	/* Still armed for its next period, and in the queue. */
	KUNIT_EXPECT_TRUE(test, kevent_timer_armed(k));
	KUNIT_EXPECT_EQ(test, t->q->kevent_num, 1U);
	KUNIT_EXPECT_EQ(test, ktt_remove(t, &uk), 0);
}

static struct kunit_case kevent_timer_cases[] = {
	KUNIT_CASE(kevent_timer_zero_period_einval),
	KUNIT_CASE(kevent_timer_fires_within_tolerance),
	KUNIT_CASE(kevent_timer_counts_expirations_since_delivery),
	KUNIT_CASE(kevent_timer_oneshot_fires_once),
	KUNIT_CASE(kevent_timer_removed_never_fires),
	KUNIT_CASE(kevent_timer_same_period_is_same_key),
	KUNIT_CASE(kevent_timer_removal_while_firing),
	KUNIT_CASE(kevent_timer_queue_close_with_hundreds_armed),
	KUNIT_CASE(kevent_timer_not_rearmed_until_delivered),
	KUNIT_CASE(kevent_timer_one_ns_period_does_not_flood),
	KUNIT_CASE(kevent_timer_modify_fired_oneshot_to_periodic),
	KUNIT_CASE(kevent_timer_mask_without_fired_einval),
	KUNIT_CASE(kevent_timer_counts_and_reports_in_one_section),
	KUNIT_CASE(kevent_timer_expiration_during_delivery_not_sent_empty),
	{}
};

static struct kunit_suite kevent_timer_suite = {
	.name = "kevent_timer",
	.init = ktt_init,
	.exit = ktt_exit,
	.test_cases = kevent_timer_cases,
};

kunit_test_suite(kevent_timer_suite);
