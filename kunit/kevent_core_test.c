// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the kevent state machine, driven through the kernel API with the
 * test storage.  Each case is one rule of
 * Documentation/userspace-api/kevent.rst.
 */
#include <kunit/test.h>
#include <linux/uaccess.h>
#include <linux/sched/user.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define EV_A	0x1
#define EV_B	0x2

static struct kt_ctx *ctx(struct kunit *test)
{
	return test->priv;
}

/* kevent_storage_ready: matching and callback results. */

static void kevent_add_not_ready_is_queued_on_storage(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);

	KUNIT_EXPECT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].enqueued, 1);
	KUNIT_EXPECT_FALSE(test, list_empty(&c->origin[0].st.list));
}

static void kevent_storage_ready_queues_ready_event(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[2];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	c->origin[0].ret_data0 = 77;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);

	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 2), 1L);
	KUNIT_EXPECT_EQ(test, out[0].type, (u32)KEVENT_TYPE_KERNEL);
	KUNIT_EXPECT_EQ(test, out[0].id.raw[0], 0U);
	KUNIT_EXPECT_EQ(test, out[0].event, (u32)EV_A);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out[0].ret_data[0], 77U);
	KUNIT_EXPECT_EQ(test, out[0].user[0], 0xabcdU);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

/*
 * kevent_storage_ready() readies a kevent when the notified mask shares a
 * bit with the kevent's event mask, and does not even run the storage's
 * callback otherwise; KEVENT_MASK_ALL matches every kevent.
 */
struct kt_mask_case {
	const char *rule;
	u32 event;	/* the kevent's mask */
	u32 notified;	/* the mask kevent_storage_ready() is given */
	unsigned int ready;
};

static const struct kt_mask_case kt_mask_cases[] = {
	{ "no_common_bit_not_ready", EV_A, EV_B, 0 },
	{ "one_common_bit_ready", EV_A | EV_B, EV_B, 1 },
	{ "mask_all_readies_any_mask", 0x80000000, KEVENT_MASK_ALL, 1 },
};

static void kt_mask_case_desc(const struct kt_mask_case *m, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", m->rule);
}

KUNIT_ARRAY_PARAM(kt_mask_cases, kt_mask_cases, kt_mask_case_desc);

static void kevent_storage_ready_needs_a_common_mask_bit(struct kunit *test)
{
	const struct kt_mask_case *m = test->param_value;
	struct kt_ctx *c = ctx(test);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, m->event, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, m->notified);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), m->ready);
	KUNIT_EXPECT_EQ(test, c->origin[0].callbacks, (int)m->ready);
}

static void kevent_storage_ready_callback_not_ready(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, c->origin[0].callbacks, 1);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

static void kevent_storage_ready_callback_broken(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = -1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	/* A broken event leaves its storage. */
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
}

static int kt_seen;
static int kt_count_callback(struct kevent *k)
{
	kt_seen++;
	return 0;
}

static void kevent_storage_ready_runs_ready_callback_on_all(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	KUNIT_ASSERT_EQ(test, kt_add(c, 1, EV_A, 0), 0);
	/* Even with no event bit matching, each storage's events are visited. */
	kt_seen = 0;
	kevent_storage_ready(&c->origin[0].st, kt_count_callback, EV_B);
	KUNIT_EXPECT_EQ(test, kt_seen, 1);
	kevent_storage_ready(&c->origin[1].st, kt_count_callback, EV_B);
	KUNIT_EXPECT_EQ(test, kt_seen, 2);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

/* Coalescing and the three delivery modes. */

static void kevent_ready_event_is_never_queued_twice(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
}

static void kevent_level_sticky_done_requeues_without_ready(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);

	/* DONE stays: the next matching notification queues it again. */
	c->origin[0].ready = 0;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);
}

static void kevent_et_cleared_on_delivery(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ET), 0);
	c->origin[0].ready = 1;
	c->origin[0].ret_data0 = 5;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out[0].ret_data[0], 5U);

	/* Not reported again until a notification says ready. */
	c->origin[0].ready = 0;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
}

static void kevent_oneshot_delivered_once_and_freed(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	/* Ready: it left the storage already. */
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);

	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 1), 0L);
}

static void kevent_wakeup_one_queues_one_per_pass(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *u2, *u3;
	struct ukevent uk;

	/* Three queues watch origin 0, all with WAKEUP_ONE. */
	u2 = kevent_queue_create();
	u3 = kevent_queue_create();
	KUNIT_ASSERT_NOT_NULL(test, u2);
	KUNIT_ASSERT_NOT_NULL(test, u3);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_WAKEUP_ONE), 0);
	uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE);
	mutex_lock(&u2->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, u2), 0);
	mutex_unlock(&u2->ctl_mutex);
	uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE);
	mutex_lock(&u3->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, u3), 0);
	mutex_unlock(&u3->ctl_mutex);

	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q) +
			kevent_queue_ready_num(u2) + kevent_queue_ready_num(u3), 1U);
	/* The first in storage order got it. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);

	kevent_queue_destroy(u2);
	kevent_queue_destroy(u3);
}

static void kevent_wakeup_one_mixed_with_plain_events(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *u2;
	struct ukevent uk;

	u2 = kevent_queue_create();
	KUNIT_ASSERT_NOT_NULL(test, u2);
	/* Plain first, then WAKEUP_ONE: the plain one counts as woken. */
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE);
	mutex_lock(&u2->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, u2), 0);
	mutex_unlock(&u2->ctl_mutex);

	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(u2), 0U);
	kevent_queue_destroy(u2);
}

/* Control operations. */

static void kevent_add_ready_at_once_is_reported_not_kept(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_A, 0);

	c->origin[0].enqueue_ret = 1;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 1);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	/* The storage's reference on the origin is dropped. */
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
}

/*
 * An ADD refused: the entry is answered BROKEN|DONE with the errno in
 * ret_data[1], the call returns it, and nothing is kept.
 */
struct kevent_add_refusal {
	const char	*name;
	u32		type;
	int		enqueue_ret;	/* what the storage's ->enqueue says */
	bool		duplicate;	/* the key is already there */
	int		err;
};

static const struct kevent_add_refusal kevent_add_refusals[] = {
	{ "enqueue_error_is_per_entry", KEVENT_TYPE_KERNEL, -EBADF, false, -EBADF },
	{ "duplicate_key_eexist", KEVENT_TYPE_KERNEL, 0, true, -EEXIST },
	{ "unknown_type_einval", KEVENT_NR_TYPES, 0, false, -EINVAL },
	{ "type_not_built_enosys", KEVENT_NAIO, 0, false, -ENOSYS },
};

static void kevent_add_refusal_desc(const struct kevent_add_refusal *r,
				    char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(kevent_add_refusal, kevent_add_refusals, kevent_add_refusal_desc);

static void kevent_add_refused(struct kunit *test)
{
	const struct kevent_add_refusal *r = test->param_value;
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_B, 0);

	if (r->duplicate)
		KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].enqueue_ret = r->enqueue_ret;
	uk.type = r->type;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), r->err);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], r->err);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, r->duplicate ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 0);
}

static void kevent_remove_missing_key_enoent(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(2, EV_A, 0);

	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_remove_ukevent(&uk, c->q), -ENOENT);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), -ENOENT);
	mutex_unlock(&c->q->ctl_mutex);
}

static void kevent_remove_detaches_and_unreadies(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_A, 0);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_remove_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
}

static void kevent_modify_rechecks_readiness(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_B, 0);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	/* The new event bits are the ones matched. */
	c->origin[0].ready = 0;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, c->origin[0].callbacks, 1);
}

/*
 * MODIFY of an event whose origin is gone (kevent_storage_fini()): the
 * entry fails with -EBADF and the kevent is removed, ->dequeue included.
 */
static void kevent_modify_after_fini_removes_with_ebadf(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_B, KEVENT_REQ_ET);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	kevent_storage_fini(&c->origin[0].st, 0);
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), -EBADF);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, c->origin[0].callbacks, 0);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	/* With lockdep: the event lock was taken irq-safe here too. */
	if (IS_ENABLED(CONFIG_PROVE_LOCKING))
		KUNIT_EXPECT_TRUE(test, debug_locks);
}

/* Delivery. */

static void kevent_get_events_returns_up_to_max_in_order(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[3];
	int i;

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, 0), 0);
		c->origin[i].ready = 1;
	}
	for (i = 2; i >= 0; i--)
		kevent_storage_ready(&c->origin[i].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 2), 2L);
	KUNIT_EXPECT_EQ(test, out[0].id.raw[0], 2U);
	KUNIT_EXPECT_EQ(test, out[1].id.raw[0], 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
}

static void kevent_release_frees_events_in_every_state(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *q = kevent_queue_create();
	struct user_struct *owner;
	struct ukevent uk;
	long before;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, q);
	owner = q->owner;	/* the test thread's user: outlives the queue */
	before = atomic_long_read(&owner->kevents);
	c->origin[1].ready = 1;
	mutex_lock(&q->ctl_mutex);
	for (i = 0; i < 3000; i++) {
		uk = kt_uk(i % 3, EV_A, i % 2 ? KEVENT_REQ_ONESHOT : 0);
		uk.id.raw[1] = i;
		KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, q), 0);
	}
	mutex_unlock(&q->ctl_mutex);
	c->origin[2].ready = -1;
	kevent_storage_ready(&c->origin[1].st, NULL, EV_A);
	kevent_storage_ready(&c->origin[2].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&owner->kevents), before + 3000);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(q), 2000U);
	kevent_queue_destroy(q);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&owner->kevents), before);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[i].st.list));
}

/* Hardening: rules a hostile caller could otherwise break. */

/*
 * WAKEUP_ONE counts only kevents a pass makes newly ready: a queue whose
 * kevent is still on its ready list cannot take every notification.
 */
static void kevent_wakeup_one_skips_event_already_ready(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kevent_queue *u2 = kevent_queue_create();
	struct ukevent uk = kt_uk(0, EV_A, KEVENT_REQ_WAKEUP_ONE);

	KUNIT_ASSERT_NOT_NULL(test, u2);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_WAKEUP_ONE), 0);
	mutex_lock(&u2->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, u2), 0);
	mutex_unlock(&u2->ctl_mutex);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(u2), 0U);
	/* The first queue has not collected: the next one goes to u2. */
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(u2), 1U);
	kevent_queue_destroy(u2);
}

/*
 * kevent_storage_fini() and removal meet on the storage lock, and removal
 * still calls ->dequeue, so the storage drops what ->enqueue took.
 */
static void kevent_fini_then_removal_still_dequeues(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, EV_A, 0);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	kevent_storage_fini(&c->origin[0].st, -EPIPE);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_remove_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	/* A dead origin takes no new kevent. */
	KUNIT_EXPECT_EQ(test, kt_add(c, 0, EV_A, 0), -EBADF);
}

/* A broken kevent is delivered once, with its error, then removed. */
static void kevent_broken_event_removed_after_delivery(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	long before = atomic_long_read(&c->q->owner->kevents);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c->q->owner->kevents), before + 1);
	kevent_storage_fini(&c->origin[0].st, -EPIPE);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)out[0].ret_data[1], -EPIPE);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	/* Its key and its charge are free again. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c->q->owner->kevents), before);
}

/*
 * MODIFY of a kevent that left its storage while its origin lives (a
 * ready ONESHOT not yet delivered, a broken one): it is attached again,
 * its results cleared, and later notifications reach it.
 */
/*
 * Kevent 0 leaves its storage on a notification its callback answers
 * with @ready (1: a ONESHOT kevent fired, -1: broken); MODIFY then
 * attaches it again, not ready: off the ready list, nothing stale
 * delivered.
 */
static void kt_leave_storage_then_modify(struct kunit *test, struct kt_ctx *c,
					 int ready)
{
	struct ukevent uk = kt_uk(0, EV_A, 0);

	c->origin[0].ready = ready;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_TRUE(test, list_empty(&c->origin[0].st.list));
	c->origin[0].ready = 0;
	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_FALSE(test, list_empty(&c->origin[0].st.list));
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

static void kevent_modify_reattaches_event_that_left_storage(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	kt_leave_storage_then_modify(test, c, 1);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out[0].req_flags, 0U);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);

	/* The same for a broken one. */
	kt_leave_storage_then_modify(test, c, -1);
}

/* An event mask with no bit the storage reports is refused, ADD and MODIFY. */
static void kevent_mask_matching_nothing_is_einval(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent uk = kt_uk(0, 0, 0);

	mutex_lock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), -EINVAL);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	uk = kt_uk(0, EV_A, 0);
	KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 0);
	uk.event = 0;
	KUNIT_EXPECT_EQ(test, kevent_queue_modify_ukevent(&uk, c->q), -EINVAL);
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);
	/* Unchanged: still EV_A. */
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 1U);
}

/*
 * A notification between a delivery's take and its snapshot queues the
 * ET kevent again after the snapshot took its results: that leftover is
 * not delivered empty.
 */
static void kt_notify_again(void *arg)
{
	struct kt_origin *o = arg;

	kevent_storage_ready(&o->st, NULL, EV_A);
}

/*
 * Add origin 0's kevent with @req_flags, notify it with the callback
 * answering @ready, and deliver it while @hook (in ->deliver) notifies it
 * again: that delivery reports the results, and no later one repeats
 * them empty.
 */
static void kt_requeued_in_deliver(struct kunit *test, u32 req_flags,
				   int ready, void (*hook)(void *origin))
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[1];

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, req_flags), 0);
	c->origin[0].ready = ready;
	c->origin[0].ret_data0 = 9;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	c->origin[0].in_deliver = hook;
	KUNIT_ASSERT_EQ(test, kt_get(test, c, out, 1), 1L);
	c->origin[0].in_deliver = NULL;
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out[0].ret_data[0], 9U);
	/* The notification's results went out with that delivery. */
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 1), 0L);
}

static void kevent_et_requeued_during_delivery_not_sent_empty(struct kunit *test)
{
	kt_requeued_in_deliver(test, KEVENT_REQ_ET, KEVENT_READY, kt_notify_again);
}

struct kt_modify_arg {
	struct kt_ctx	*c;
	u32		req_flags;
	int		ret;
};

static void kt_modify_now(void *arg)
{
	struct kt_modify_arg *m = arg;
	struct ukevent uk = kt_uk(0, EV_A, m->req_flags);

	mutex_lock(&m->c->q->ctl_mutex);
	m->ret = kevent_queue_modify_ukevent(&uk, m->c->q);
	mutex_unlock(&m->c->q->ctl_mutex);
}

/*
 * MODIFY while a delivery is copying out (forced inside the copy's page
 * fault): the delivery's stale ONESHOT snapshot does not remove the
 * kevent MODIFY just made periodic.
 */
static void kevent_modify_during_delivery_is_kept(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kt_modify_arg m = { .c = c, .req_flags = 0 };
	unsigned long buf = kt_trap_mem(test, kt_modify_now, &m, false);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kevent_queue_get_events(c->q, 1, 1, 0,
						      (struct ukevent __user *)buf, false), 1L);
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 1U);
	KUNIT_EXPECT_FALSE(test, list_empty(&c->origin[0].st.list));
}

/*
 * The same, but the copy faults: the old results do not come back over
 * what MODIFY cleared.
 */
static void kevent_modify_during_failed_delivery_not_undone(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kt_modify_arg m = { .c = c, .req_flags = KEVENT_REQ_ET };
	unsigned long buf = kt_trap_mem(test, kt_modify_now, &m, true);

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	c->origin[0].ready = 0;
	KUNIT_EXPECT_EQ(test, kevent_queue_get_events(c->q, 1, 1, 0,
						      (struct ukevent __user *)buf, false), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	/* MODIFY found it not ready; the faulted delivery does not requeue it. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

/*
 * One call, one pass: a kevent queued again while the call collects (here
 * by its own delivery) waits for the next call, though max_nr and the
 * queue's size would leave room for it.
 */
static void kevent_one_call_delivers_each_kevent_once(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[4];
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	c->origin[0].in_deliver = kt_notify_again;
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 4), 1L);
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 4), 1L);
	c->origin[0].in_deliver = NULL;
	KUNIT_EXPECT_EQ(test, out[0].id.raw[0], 0U);
}

/* A second result for origin 0, notified inside a faulting copy. */
struct kt_second {
	struct kt_origin	*o;
	u32			ret_data0;
};

static void kt_notify_second(void *arg)
{
	struct kt_second *sc = arg;

	sc->o->ret_data0 = sc->ret_data0;
	kevent_storage_ready(&sc->o->st, NULL, EV_A);
}

/*
 * Deliver origin 0's kevent (result @first) into a copy that faults while
 * a notification brings @second; return what the next delivery reports.
 */
static struct ukevent kt_put_back(struct kunit *test, u32 first, u32 second)
{
	struct kt_ctx *c = ctx(test);
	struct kt_second sc = { .o = &c->origin[0], .ret_data0 = second };
	struct ukevent out[1] = {};
	unsigned long buf;

	buf = kt_trap_mem(test, kt_notify_second, &sc, true);
	KUNIT_EXPECT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ET), 0);
	c->origin[0].ready = 1;
	c->origin[0].ret_data0 = first;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_get_events(c->q, 1, 1, 0,
						      (struct ukevent __user *)buf, false), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 1), 1L);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	return out[0];
}

/*
 * A put-back merges with what a notification brought while the copy was
 * under way: masks are OR-ed, never replaced.
 */
static void kevent_put_back_merges_masks(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kt_put_back(test, 0x1, 0x2).ret_data[0], 0x3U);
}

/* A count (a timer's expirations) is added, saturating at U32_MAX. */
static void kevent_put_back_adds_counts_saturating(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kt_register(false, true), 0);
	KUNIT_EXPECT_EQ(test, kt_put_back(test, 5, 3).ret_data[0], 8U);
}

static void kevent_put_back_count_saturates(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kt_register(false, true), 0);
	KUNIT_EXPECT_EQ(test, kt_put_back(test, 0xfffffff0, 0x20).ret_data[0],
			U32_MAX);
}

/*
 * A level (non-ET) kevent queued again by a notification while its own
 * re-check ran in ->deliver: that delivery carries the notification's
 * results, and the next collection does not deliver it again, empty.
 */
static void kt_ready_now(void *arg)
{
	struct kt_origin *o = arg;

	o->ready = KEVENT_READY;
	kevent_storage_ready(&o->st, NULL, EV_A);
}

static void kevent_level_requeued_during_delivery_not_sent_empty(struct kunit *test)
{
	/* ->deliver runs only for a re-check, as the file storages'. */
	KUNIT_ASSERT_EQ(test, kt_register(true, false), 0);
	kt_requeued_in_deliver(test, 0, KEVENT_RECHECK, kt_ready_now);
}

/*
 * One call, one delivery, with two collectors: while collector A copies
 * the kevent it took (its copy needs a page fault), a notification
 * queues it again and collector B takes it, but B's copy faults and
 * gives it back to the head of the ready list.  A's pass, which already
 * delivered it, does not take it again; a later call does.
 */
struct kt_second_collector {
	struct kt_ctx		*c;
	struct mm_struct	*mm;
	unsigned long		bad;	/* B's buffer: a page whose copy fails */
	struct completion	done;
	long			ret;
};

static int kt_collector_b(void *arg)
{
	struct kt_second_collector *sc = arg;

	kthread_use_mm(sc->mm);
	sc->ret = kevent_queue_get_events(sc->c->q, 1, 1, 0,
					  (struct ukevent __user *)sc->bad, false);
	kthread_unuse_mm(sc->mm);
	complete(&sc->done);
	return 0;
}

static void kt_requeue_and_collect(void *arg)
{
	struct kt_second_collector *sc = arg;
	struct task_struct *t;

	kevent_storage_ready(&sc->c->origin[0].st, NULL, EV_A);
	t = kthread_run(kt_collector_b, sc, "kevent-collector-b");
	/* Bounded: a collector B that failed must not hang the suite. */
	if (!IS_ERR(t))
		wait_for_completion_timeout(&sc->done, 5 * HZ);
}

static void kt_nothing(void *arg)
{
}

static void kevent_returned_kevent_not_taken_twice_in_one_call(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kt_second_collector sc = { .c = c, .ret = 1 };
	struct ukevent out[4];
	unsigned long buf;
	int i;

	init_completion(&sc.done);
	sc.bad = kt_trap_mem(test, kt_nothing, NULL, true);
	buf = kt_trap_mem(test, kt_requeue_and_collect, &sc, false);
	/* The mm kunit_vm_mmap() attached to this thread, for B to borrow. */
	sc.mm = current->mm;
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_queue_get_events(c->q, 1, 4, 0,
						      (struct ukevent __user *)buf, false), 1L);
	KUNIT_EXPECT_EQ(test, sc.ret, (long)-EFAULT);
	/* Given back, it is still ready, for the next call. */
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 4), 1L);
}

/*
 * Kevents not ready at delivery do not end a pass.  @stale kevents of
 * origin 0, each queued for a re-check that finds nothing (->deliver
 * answers "not ready"), then origin 1's, ready, behind them.  ->deliver
 * runs only for re-checks, as the file storages'.
 */
static void kt_stale_ahead(struct kunit *test, struct kt_ctx *c,
			   unsigned int stale)
{
	struct ukevent uk = kt_uk(0, EV_A, 0);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kt_register(true, false), 0);
	mutex_lock(&c->q->ctl_mutex);
	for (i = 0; i < stale; i++) {
		uk.id.raw[1] = i;
		KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 0);
	}
	mutex_unlock(&c->q->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kt_add(c, 1, EV_A, 0), 0);
	c->origin[0].ready = KEVENT_RECHECK;
	c->origin[0].not_ready_at_delivery = true;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	c->origin[1].ready = KEVENT_READY;
	c->origin[1].ret_data0 = 7;
	kevent_storage_ready(&c->origin[1].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(c->q), stale + 1);
}

/* The ready kevent behind, and only it, in @out[0] of @n. */
static void kt_expect_the_ready_one(struct kunit *test, struct ukevent *out,
				    long n)
{
	KUNIT_EXPECT_EQ(test, n, 1L);
	KUNIT_EXPECT_EQ(test, out[0].id.raw[0], 1U);
	KUNIT_EXPECT_EQ(test, out[0].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, out[0].ret_data[0], 7U);
}

/* Two batches' worth ahead: a call that does not wait still returns it. */
static void kevent_not_ready_at_delivery_do_not_end_the_pass(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[8];

	kt_stale_ahead(test, c, 80);
	kt_expect_the_ready_one(test, out, kt_get(test, c, out, 8));
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 8), 0L);
}

static void kt_slow_recheck(void *origin)
{
	mdelay(1);
}

/*
 * The pass still ends at its time budget (KEVENT_PASS_NS, 10 ms): with
 * re-checks of 1 ms each, after two batches of 32, and returns nothing
 * yet; what it did not reach stays ready, for the next call.
 */
static void kevent_not_ready_at_delivery_pass_ends_at_budget(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct ukevent out[8];

	kt_stale_ahead(test, c, 80);
	c->origin[0].in_deliver = kt_slow_recheck;
	KUNIT_EXPECT_EQ(test, kt_get(test, c, out, 8), 0L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 80U - 64U + 1U);
	kt_expect_the_ready_one(test, out, kt_get(test, c, out, 8));
	c->origin[0].in_deliver = NULL;
}

/* ... and at a signal: a call that would wait returns -EINTR. */
static void kevent_not_ready_at_delivery_pass_ends_at_signal(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	unsigned long buf = kt_user_mem(test, 8 * sizeof(struct ukevent));
	struct ukevent out[8];
	long ret;

	KUNIT_ASSERT_NE(test, buf, 0UL);
	kt_stale_ahead(test, c, 40);
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	ret = kevent_queue_get_events(c->q, 1, 8, NSEC_PER_SEC,
				      (struct ukevent __user *)buf, false);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	KUNIT_EXPECT_EQ(test, ret, (long)-EINTR);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 40U - 32U + 1U);
	kt_expect_the_ready_one(test, out, kt_get(test, c, out, 8));
}

/*
 * A collector killed while another caller holds ctl_mutex (as a ->poll
 * that sleeps would) after it copied a ONESHOT kevent out: the kevent is
 * removed all the same, by the holder as it unlocks; none stays in the
 * tree detached.
 */
struct kt_holder {
	struct kevent_queue	*q;
	struct completion	held, release, done;
	bool			started;
};

static int kt_hold_thread(void *arg)
{
	struct kt_holder *h = arg;

	mutex_lock(&h->q->ctl_mutex);
	complete(&h->held);
	wait_for_completion_timeout(&h->release, 2 * HZ);
	kevent_queue_unlock(h->q);
	complete(&h->done);
	return 0;
}

static void kt_hold_and_kill(void *arg)
{
	struct kt_holder *h = arg;
	struct task_struct *t;

	t = kthread_run(kt_hold_thread, h, "kevent-holder");
	if (IS_ERR(t))
		return;
	wait_for_completion(&h->held);
	h->started = true;
	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 0);
}

static void kevent_killed_collector_leaves_none_detached(struct kunit *test)
{
	struct kt_ctx *c = ctx(test);
	struct kt_holder h = { .q = c->q };
	unsigned long buf;
	long n;

	init_completion(&h.held);
	init_completion(&h.release);
	init_completion(&h.done);
	buf = kt_trap_mem(test, kt_hold_and_kill, &h, false);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	n = kevent_queue_get_events(c->q, 1, 1, 0,
				    (struct ukevent __user *)buf, false);
	flush_signals(current);
	disallow_signal(SIGKILL);
	KUNIT_EXPECT_EQ(test, n, 1L);
	KUNIT_ASSERT_TRUE(test, h.started);
	complete(&h.release);
	wait_for_completion(&h.done);
	/* Delivered, so removed: out of the tree and off its origin. */
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, c->origin[0].dequeued, 1);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

static struct kunit_case kevent_core_cases[] = {
	KUNIT_CASE(kevent_add_not_ready_is_queued_on_storage),
	KUNIT_CASE(kevent_storage_ready_queues_ready_event),
	KUNIT_CASE_PARAM(kevent_storage_ready_needs_a_common_mask_bit,
			 kt_mask_cases_gen_params),
	KUNIT_CASE(kevent_storage_ready_callback_not_ready),
	KUNIT_CASE(kevent_storage_ready_callback_broken),
	KUNIT_CASE(kevent_storage_ready_runs_ready_callback_on_all),
	KUNIT_CASE(kevent_ready_event_is_never_queued_twice),
	KUNIT_CASE(kevent_level_sticky_done_requeues_without_ready),
	KUNIT_CASE(kevent_et_cleared_on_delivery),
	KUNIT_CASE(kevent_oneshot_delivered_once_and_freed),
	KUNIT_CASE(kevent_wakeup_one_queues_one_per_pass),
	KUNIT_CASE(kevent_wakeup_one_mixed_with_plain_events),
	KUNIT_CASE(kevent_add_ready_at_once_is_reported_not_kept),
	KUNIT_CASE_PARAM(kevent_add_refused, kevent_add_refusal_gen_params),
	KUNIT_CASE(kevent_remove_missing_key_enoent),
	KUNIT_CASE(kevent_remove_detaches_and_unreadies),
	KUNIT_CASE(kevent_modify_rechecks_readiness),
	KUNIT_CASE(kevent_modify_after_fini_removes_with_ebadf),
	KUNIT_CASE(kevent_get_events_returns_up_to_max_in_order),
	KUNIT_CASE(kevent_release_frees_events_in_every_state),
	KUNIT_CASE(kevent_wakeup_one_skips_event_already_ready),
	KUNIT_CASE(kevent_fini_then_removal_still_dequeues),
	KUNIT_CASE(kevent_broken_event_removed_after_delivery),
	KUNIT_CASE(kevent_modify_reattaches_event_that_left_storage),
	KUNIT_CASE(kevent_mask_matching_nothing_is_einval),
	KUNIT_CASE(kevent_et_requeued_during_delivery_not_sent_empty),
	KUNIT_CASE(kevent_modify_during_delivery_is_kept),
	KUNIT_CASE(kevent_modify_during_failed_delivery_not_undone),
	KUNIT_CASE(kevent_one_call_delivers_each_kevent_once),
	KUNIT_CASE(kevent_put_back_merges_masks),
	KUNIT_CASE(kevent_put_back_adds_counts_saturating),
	KUNIT_CASE(kevent_put_back_count_saturates),
	KUNIT_CASE(kevent_level_requeued_during_delivery_not_sent_empty),
	KUNIT_CASE(kevent_killed_collector_leaves_none_detached),
	KUNIT_CASE(kevent_returned_kevent_not_taken_twice_in_one_call),
	KUNIT_CASE(kevent_not_ready_at_delivery_do_not_end_the_pass),
	KUNIT_CASE(kevent_not_ready_at_delivery_pass_ends_at_budget),
	KUNIT_CASE(kevent_not_ready_at_delivery_pass_ends_at_signal),
	{}
};

static struct kunit_suite kevent_core_suite = {
	.name = "kevent_core",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kevent_core_cases,
};

kunit_test_suite(kevent_core_suite);
