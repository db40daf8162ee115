// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the thirteen bugs of the take23 seed (the numbered list "The
 * seed's bugs" in Documentation/userspace-api/kevent.rst), one test each,
 * named after the bug.  Each fails with the seed's behaviour put back
 * (the project's kernel/guards/, ./run_tests.sh --prove-guards).  The
 * race of bug 9 is forced deterministically: the test storage's callback
 * waits inside the notification while a kthread removes the event.  Bug 10
 * (lock order) is observable only with lockdep and is skipped without
 * CONFIG_PROVE_LOCKING.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/debug_locks.h>
#include <linux/uaccess.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define EV_A	0x1

static struct kt_ctx *ctx(struct kunit *test)
{
	return test->priv;
}

static void kt_ready(struct kt_ctx *c, int o)
{
	c->origin[o].ready = 1;
	kevent_storage_ready(&c->origin[o].st, NULL, EV_A);
}

static struct kevent_ring __user *kt_ring(struct kunit *test)
{
	unsigned long mem = kt_user_mem(test, PAGE_SIZE);

	KUNIT_ASSERT_NE(test, mem, 0UL);
	return (struct kevent_ring __user *)mem;
}

static u32 ring_kidx(struct kunit *test, struct kevent_ring __user *ring)
{
	u32 kidx;

	KUNIT_ASSERT_EQ(test, 0, get_user(kidx, &ring->ring_kidx));
	return kidx;
}

/* 1: release must not walk the tree from a node it erased. */
static void seed_bug_01_release_walks_erased_node(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *q = kevent_queue_create();
	struct ukevent uk;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, q);
	mutex_lock(&q->ctl_mutex);
	for (i = 0; i < 1000; i++) {
		uk = kt_uk(0, EV_A, 0);
		uk.id.raw[1] = (i * 7919) % 1000;	/* scattered keys */
		KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, q), 0);
	}
	mutex_unlock(&q->ctl_mutex);
	kevent_queue_destroy(q);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1000);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
}

/* 2: after kevent_wait, ring_kidx is the next slot, not the last written. */
static void seed_bug_02_ring_kidx_is_next_slot(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_ring __user *ring = kt_ring(test);

	KUNIT_ASSERT_EQ(test, kevent_queue_ring_init(c->q, ring, 4), 0L);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	KUNIT_ASSERT_EQ(test, kt_add(c, 1, EV_A, 0), 0);
	kt_ready(c, 0);
	KUNIT_ASSERT_EQ(test, kevent_queue_wait(c->q, 1, 0, false), 1L);
	KUNIT_EXPECT_EQ(test, ring_kidx(test, ring), 1U);
	kt_ready(c, 1);
	kt_ready(c, 0);
	KUNIT_ASSERT_EQ(test, kevent_queue_wait(c->q, 3, 0, false), 2L);
	KUNIT_EXPECT_EQ(test, ring_kidx(test, ring), 3U);
	kt_ready(c, 1);
	KUNIT_ASSERT_EQ(test, kevent_queue_wait(c->q, 3, 0, false), 1L);
	KUNIT_EXPECT_EQ(test, ring_kidx(test, ring), 0U);	/* wrapped */
}

/* 3: ring_init checks num and the memory, zeroes ring_kidx, -EBUSY twice. */
static void seed_bug_03_ring_init_checks_and_resets(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_ring __user *ring = kt_ring(test);

	KUNIT_ASSERT_EQ(test, 0, put_user(77U, &ring->ring_kidx));
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, ring, 0), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, ring, ~0U), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, (void __user *)16, 4),
			(long)-EFAULT);
	/* 4096 bytes hold 102 events: 200 run past the mapping. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, ring, 200), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, ring, 4), 0L);
	KUNIT_EXPECT_EQ(test, ring_kidx(test, ring), 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ring_init(c->q, ring, 4), (long)-EBUSY);
}

/* 4: kevent_get_events does not write into the ring. */
static void seed_bug_04_get_events_leaves_ring_alone(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_ring __user *ring = kt_ring(test);
	struct ukevent out[1];
	u32 type;

	KUNIT_ASSERT_EQ(test, kevent_queue_ring_init(c->q, ring, 4), 0L);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	kt_ready(c, 0);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, ring_kidx(test, ring), 0U);
	KUNIT_ASSERT_EQ(test, 0, get_user(type, &ring->event[0].type));
	KUNIT_EXPECT_EQ(test, type, 0U);
}

/* 5: a faulting copy returns -EFAULT and the event stays ready. */
static void seed_bug_05_fault_keeps_event(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_ring __user *ring = kt_ring(test);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	kt_ready(c, 0);
	KUNIT_EXPECT_EQ(test, kevent_queue_get_events(c->q, 1, 1, 0,
						      (struct ukevent __user *)16, false), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);
	/* The ring path too: a ring in memory that faults. */
	KUNIT_ASSERT_EQ(test, kevent_queue_ring_init(c->q, ring, 4), 0L);
	c->q->pring = (struct kevent_ring __user *)16;
	KUNIT_EXPECT_EQ(test, kevent_queue_wait(c->q, 1, 0, false), (long)-EFAULT);
	c->q->pring = ring;
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_wait(c->q, 1, 0, false), 1L);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
}

/* 6: a timeout under one tick still waits (hrtimers, not USER_HZ). */
static void seed_bug_06_short_timeout_waits(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	unsigned long buf = kt_user_mem(test, PAGE_SIZE);
	s64 us, best = S64_MAX;
	ktime_t t0;
	int i;

	/* At least 2 ms every time, at most 10 ms in the fastest try. */
	for (i = 0; i < KT_TIMING_TRIES && best >= kt_slack(10000); i++) {
		t0 = ktime_get();
		KUNIT_EXPECT_EQ(test, kevent_queue_get_events(c->q, 1, 1, 2 * NSEC_PER_MSEC,
							      (struct ukevent __user *)buf, false), 0L);
		us = ktime_us_delta(ktime_get(), t0);
		KUNIT_EXPECT_GE(test, us, 2000LL);
		best = min(best, us);
	}
	KUNIT_EXPECT_LT(test, best, kt_slack(10000));
}

/* 7: a signal ends the wait with -EINTR. */
static void seed_bug_07_signal_interrupts_wait(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	unsigned long buf = kt_user_mem(test, PAGE_SIZE);
	ktime_t t0;
	long ret;

	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	t0 = ktime_get();
	ret = kevent_queue_get_events(c->q, 1, 1, NSEC_PER_SEC,
				      (struct ukevent __user *)buf, false);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	KUNIT_EXPECT_EQ(test, ret, (long)-EINTR);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), kt_slack(500));
}

/* 8: kevent_ctl allocates a bounded buffer, whatever num. */
static void seed_bug_08_ctl_allocation_bounded(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	unsigned int n = 1000, i;
	struct ukevent __user *arr;
	struct ukevent uk;

	arr = (struct ukevent __user *)kt_user_mem(test, n * sizeof(uk));
	KUNIT_ASSERT_NOT_NULL(test, arr);
	for (i = 0; i < n; i++) {
		uk = kt_uk(0, EV_A, 0);
		uk.id.raw[1] = i;
		KUNIT_ASSERT_EQ(test, 0UL, copy_to_user(&arr[i], &uk, sizeof(uk)));
	}
	WRITE_ONCE(kevent_ctl_alloc_peak, 0);
	KUNIT_EXPECT_EQ(test, kevent_queue_ctl(c->q, KEVENT_CTL_REMOVE, n, arr), 0);
	KUNIT_EXPECT_GT(test, kevent_ctl_alloc_peak, 0UL);
	KUNIT_EXPECT_LE(test, kevent_ctl_alloc_peak,
			KEVENT_CTL_CHUNK * sizeof(struct ukevent));
	/* Every entry was still answered. */
	KUNIT_ASSERT_EQ(test, 0UL, copy_from_user(&uk, &arr[n - 1], sizeof(uk)));
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
}

struct kt_remover {
	struct kevent_queue	*q;
	struct completion	entered, done;
	bool			removed;
};

static int kt_remove_thread(void *arg)
{
	struct kt_remover *r = arg;
	struct ukevent uk = kt_uk(0, EV_A, 0);

	wait_for_completion(&r->entered);
	mutex_lock(&r->q->ctl_mutex);
	kevent_queue_remove_ukevent(&uk, r->q);
	mutex_unlock(&r->q->ctl_mutex);
	WRITE_ONCE(r->removed, true);
	complete(&r->done);
	return 0;
}

/*
 * 9: a removal that runs while a notification is inside the event's
 * callback must not leave the freed event queued.  The callback signals a
 * kthread that removes the event and waits (up to 50 ms) for it; with the
 * storage lock held the removal waits for the notification instead.
 */
static void seed_bug_09_removal_during_notification(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct task_struct *t;
	struct kt_remover r = { .q = c->q };

	/*
	 * With the bug, the callback runs under rcu_read_lock() alone; only
	 * preemptible RCU lets it sleep there so that the remover runs in
	 * the window (kt_callback()).
	 */
	if (!IS_ENABLED(CONFIG_PREEMPT_RCU))
		kunit_skip(test, "forcing the race needs CONFIG_PREEMPT_RCU");
	init_completion(&r.entered);
	init_completion(&r.done);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	t = kthread_run(kt_remove_thread, &r, "kevent-remover");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	c->origin[0].entered = &r.entered;
	c->origin[0].removed = &r.removed;
	kt_ready(c, 0);
	wait_for_completion(&r.done);
	c->origin[0].entered = NULL;
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->q->ready_list));
}

/* 10: MODIFY and notifications take the locks in the one documented order. */
static void seed_bug_10_modify_single_lock_order(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_A, KEVENT_REQ_ET);
	struct ukevent out[1];

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "lock order is checked by lockdep (./run_tests.sh --debug)");
	KUNIT_ASSERT_TRUE(test, debug_locks);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	kt_ready(c, 0);
	c->origin[0].ready = 1;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	kt_ready(c, 0);
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 1), 1L);
	/* lockdep turns debug_locks off when it reports. */
	KUNIT_EXPECT_TRUE(test, debug_locks);
}

/* 11: the key is (type, id): equal ids of different types coexist. */
static void seed_bug_11_key_includes_type(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_A, 0);

	if (!IS_ENABLED(CONFIG_KEVENT_TIMER))
		kunit_skip(test, "needs a second type: CONFIG_KEVENT_TIMER");
	uk.id.raw[1] = NSEC_PER_SEC / 2;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 0);
	uk.type = KEVENT_TIMER;
	uk.event = KEVENT_TIMER_FIRED;
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 2U);
}

/* 12: past the per-user limit, ADD fails the entry with -ENOSPC. */
static void seed_bug_12_per_user_limit(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	unsigned long saved = kevent_max_user_kevents;
	struct ukevent uk = kt_uk(0, EV_A, 0);
	int err;

	kevent_max_user_kevents = atomic_long_read(&c->q->owner->kevents) + 2;
	KUNIT_EXPECT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	KUNIT_EXPECT_EQ(test, kt_add(c, 1, EV_A, 0), 0);
	uk.id.raw[0] = 2;
	mutex_lock(&c->q->ctl_mutex);
	err = kevent_queue_add_ukevent(&uk, c->q);
	mutex_unlock(&c->q->ctl_mutex);
	kevent_max_user_kevents = saved;
	KUNIT_EXPECT_EQ(test, err, -ENOSPC);
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -ENOSPC);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 2U);
}

/*
 * 13: fini breaks and detaches every event, whatever its mask and flags:
 * a mask the notification would not match, WAKEUP_ONE, ONESHOT.
 */
static void seed_bug_13_fini_breaks_every_event(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *u2 = kevent_queue_create();
	struct ukevent uk;

	KUNIT_ASSERT_NOT_NULL(test, u2);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, 0x80, 0), 0);
	KUNIT_ASSERT_EQ(test, kt_add(c, 1, EV_A, KEVENT_REQ_WAKEUP_ONE), 0);
	/* Two more on origin 0, through a second queue: WAKEUP_ONE, ONESHOT. */
	uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE);
	mutex_lock(&u2->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, u2), 0);
	mutex_unlock(&u2->ctl_mutex);
	uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE | KEVENT_REQ_ONESHOT);
	uk.id.raw[1] = 1;
	mutex_lock(&u2->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, u2), 0);
	mutex_unlock(&u2->ctl_mutex);

	kevent_storage_fini(&c->origin[0].st, -EPIPE);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(u2), 2U);
	kevent_queue_destroy(u2);
	/* Removal still lets the storage drop what ->enqueue took. */
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 2);
}

static struct kunit_case kevent_seed_bug_cases[] = {
	KUNIT_CASE(seed_bug_01_release_walks_erased_node),
	KUNIT_CASE(seed_bug_02_ring_kidx_is_next_slot),
	KUNIT_CASE(seed_bug_03_ring_init_checks_and_resets),
	KUNIT_CASE(seed_bug_04_get_events_leaves_ring_alone),
	KUNIT_CASE(seed_bug_05_fault_keeps_event),
	KUNIT_CASE(seed_bug_06_short_timeout_waits),
	KUNIT_CASE(seed_bug_07_signal_interrupts_wait),
	KUNIT_CASE(seed_bug_08_ctl_allocation_bounded),
	KUNIT_CASE(seed_bug_09_removal_during_notification),
	KUNIT_CASE(seed_bug_10_modify_single_lock_order),
	KUNIT_CASE(seed_bug_11_key_includes_type),
	KUNIT_CASE(seed_bug_12_per_user_limit),
	KUNIT_CASE(seed_bug_13_fini_breaks_every_event),
	{}
};

static struct kunit_suite kevent_seed_bugs_suite = {
	.name = "kevent_seed_bugs",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kevent_seed_bug_cases,
};

kunit_test_suite(kevent_seed_bugs_suite);
