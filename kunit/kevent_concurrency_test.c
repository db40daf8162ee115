// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: notifications racing control operations and delivery.  Two
 * kthreads notify one storage, one kthread adds, modifies and removes
 * events with every flag, and the test thread drains the queue, for a
 * bounded time.  UML runs one CPU: PREEMPT and explicit yields interleave
 * them.  Run it under ./run_tests.sh --debug (lockdep, KASAN, kmemleak).
 * Afterwards every event is gone and the user's count is back.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/sched/user.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/kevent.h>
#include "kevent_test_storage.h"

#define EV_A		0x1
#define RUN_MS		600
#define KEYS		64

struct kc_state {
	struct kt_ctx	*c;
	unsigned long	notifies, ctls, ctl_errors;
};

static int kc_notifier(void *arg)
{
	struct kc_state *s = arg;
	struct kt_origin *o = &s->c->origin[0];
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		/* ready, not ready and broken, as a real origin might say */
		WRITE_ONCE(o->ready, (i % 7 == 6) ? -1 : (int)(i & 1));
		kevent_storage_ready(&o->st, NULL, EV_A);
		s->notifies++;
		if (!(++i % 8))
			cond_resched();
	}
	return 0;
}

static int kc_controller(void *arg)
{
	static const u32 flags[] = {
		0, KEVENT_REQ_ONESHOT, KEVENT_REQ_ET, KEVENT_REQ_WAKEUP_ONE,
		KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE,
	};
	struct kc_state *s = arg;
	struct kevent_user *u = s->c->u;

	while (!kthread_should_stop()) {
		struct ukevent uk = kt_uk(0, EV_A, flags[get_random_u32_below(5)]);
		int err;

		uk.id.raw[1] = get_random_u32_below(KEYS);
		mutex_lock(&u->ctl_mutex);
		switch (get_random_u32_below(3)) {
		case 0:
			err = kevent_user_add_ukevent(&uk, u);
			if (err == -EEXIST || err == 1)
				err = 0;
			break;
		case 1:
			err = kevent_user_modify_ukevent(&uk, u);
			break;
		default:
			err = kevent_user_remove_ukevent(&uk, u);
			break;
		}
		mutex_unlock(&u->ctl_mutex);
		if (err && err != -ENOENT)
			s->ctl_errors++;
		s->ctls++;
		cond_resched();
	}
	return 0;
}

static void kevent_notify_ctl_and_drain_race(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct kc_state s = { .c = c };
	struct task_struct *t[3];
	unsigned long buf = kt_user_mem(test, 16 * sizeof(struct ukevent));
	long before = atomic_long_read(&c->u->owner->kevents);
	unsigned long delivered = 0;
	ktime_t t0 = ktime_get();
	int i;

	KUNIT_ASSERT_NE(test, buf, 0UL);
	t[0] = kthread_run(kc_notifier, &s, "kevent-notify0");
	t[1] = kthread_run(kc_notifier, &s, "kevent-notify1");
	t[2] = kthread_run(kc_controller, &s, "kevent-ctl");
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));

	while (ktime_ms_delta(ktime_get(), t0) < RUN_MS) {
		long n = kevent_user_get_events(c->u, 0, 16, 0,
						(struct ukevent __user *)buf, false);

		KUNIT_ASSERT_GE(test, n, 0L);
		delivered += n;
		usleep_range(100, 200);
	}
	for (i = 0; i < 3; i++)
		kthread_stop(t[i]);

	kunit_info(test, "%lu notifications, %lu control ops, %lu delivered\n",
		   s.notifies, s.ctls, delivered);
	KUNIT_EXPECT_EQ(test, s.ctl_errors, 0UL);
	KUNIT_EXPECT_GT(test, s.notifies, 100UL);
	KUNIT_EXPECT_GT(test, s.ctls, 100UL);
	KUNIT_EXPECT_GT(test, delivered, 0UL);

	/* Everything is freed: the queue's events and the user's count. */
	kevent_user_destroy(c->u);
	c->u = NULL;
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&current_user()->kevents), before);
}

static struct kunit_case kevent_concurrency_cases[] = {
	KUNIT_CASE_SLOW(kevent_notify_ctl_and_drain_race),
	{}
};

static struct kunit_suite kevent_concurrency_suite = {
	.name = "kevent_concurrency",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kevent_concurrency_cases,
};

kunit_test_suite(kevent_concurrency_suite);
