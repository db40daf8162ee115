// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: notifications racing control operations and delivery.
 *
 * kevent_notify_ctl_and_drain_race runs everywhere: two kthreads notify
 * one storage, one kthread adds, modifies and removes events with every
 * flag, and the test thread drains the queue, for a bounded time.  UML
 * runs one CPU: PREEMPT and explicit yields interleave them.
 *
 * The kevent_smp_* cases need two CPUs or more (./run_tests.sh --smp, a
 * QEMU x86_64 with 4 vCPUs; they skip on UML).  Their kthreads are bound
 * to different CPUs (round robin over the online ones) and run at the
 * same time for a bounded time; each case prints the operations done per
 * CPU, how many were in progress at once at most and how often one
 * started while another CPU was inside one (a waiting get_events
 * counts), so the log shows that the work was parallel:
 *  - kevent_smp_notify_ctl_drain: notifying, adding, modifying, removing
 *    and draining (get_events from kthreads that borrow the test's mm);
 *  - kevent_smp_wakeup_one_waiters: WAKEUP_ONE kevents on one storage,
 *    one notifier and several waiters on one queue: each notification
 *    makes one kevent ready, each delivery reports one notification or a
 *    few coalesced (ET), nothing is left ready;
 *  - kevent_smp_timer_fire_vs_remove: timer kevents armed on one CPU,
 *    firing there (or on the draining CPU, whose delivery re-arms them)
 *    while another CPU removes them;
 *  - kevent_smp_timer_modify_while_firing: a timer of microseconds
 *    firing while MODIFY queues it again and two CPUs deliver it: no
 *    delivery reports a count of 0;
 *  - kevent_smp_file_wakeup_during_add: a file woken without pause on one
 *    CPU while another adds and removes a POLL kevent on it, so wake-ups
 *    land at every point of ADD (kevent-fuzz found one that ran the
 *    callback of a kevent attached before its origin was set).
 *
 * Run them under the debug configuration (lockdep, KASAN, kmemleak) or
 * KCSAN.  Afterwards every event is gone and the user's count is back.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/sched/user.h>
#include <linux/sched/mm.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/uaccess.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fdtable.h>
#include <linux/poll.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define EV_A		0x1
#define RUN_MS		600
#define KEYS		64

/* The SMP cases. */
#define SMP_RUN_MS	2000
#define SMP_WORKERS	8
#define SMP_BATCH	16
#define SMP_WAKE_KEYS	4

/* The readiness the test storage reports, set as its callback reads it. */
static void kc_set_ready(struct kt_origin *o, int ready)
{
	unsigned long flags;

	spin_lock_irqsave(&o->st.lock, flags);
	o->ready = ready;
	spin_unlock_irqrestore(&o->st.lock, flags);
}

struct kc_state {
	struct kt_ctx	*c;
	unsigned long	ctls, ctl_errors;
};

struct kc_notifier_arg {
	struct kc_state	*s;
	unsigned long	notifies;
};

static int kc_notifier(void *arg)
{
	struct kc_notifier_arg *a = arg;
	struct kt_origin *o = &a->s->c->origin[0];
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		/* ready, not ready and broken, as a real origin might say */
		kc_set_ready(o, (i % 7 == 6) ? -1 : (int)(i & 1));
		kevent_storage_ready(&o->st, NULL, EV_A);
		a->notifies++;
		if (!(++i % 8))
			cond_resched();
	}
	return 0;
}

static const u32 kc_flags[] = {
	0, KEVENT_REQ_ONESHOT, KEVENT_REQ_ET, KEVENT_REQ_WAKEUP_ONE,
	KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE,
};

/* One random ADD, MODIFY or REMOVE on origin 0; false on an error. */
static bool kc_random_ctl(struct kevent_queue *q)
{
	struct ukevent uk = kt_uk(0, EV_A,
				  kc_flags[get_random_u32_below(ARRAY_SIZE(kc_flags))]);
	int err;

	uk.id.raw[1] = get_random_u32_below(KEYS);
	mutex_lock(&q->ctl_mutex);
	switch (get_random_u32_below(3)) {
	case 0:
		err = kevent_queue_add_ukevent(&uk, q);
		if (err == -EEXIST || err == 1)
			err = 0;
		break;
	case 1:
		err = kevent_queue_modify_ukevent(&uk, q);
		break;
	default:
		err = kevent_queue_remove_ukevent(&uk, q);
		break;
	}
	mutex_unlock(&q->ctl_mutex);
	return !err || err == -ENOENT;
}

static int kc_controller(void *arg)
{
	struct kc_state *s = arg;

	while (!kthread_should_stop()) {
		if (!kc_random_ctl(s->c->q))
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
	struct kc_notifier_arg na[2] = { { .s = &s }, { .s = &s } };
	struct task_struct *t[3];
	unsigned long buf = kt_user_mem(test, 16 * sizeof(struct ukevent));
	long before = atomic_long_read(&c->q->owner->kevents);
	unsigned long delivered = 0;
	ktime_t t0 = ktime_get();
	int i;

	KUNIT_ASSERT_NE(test, buf, 0UL);
	t[0] = kthread_run(kc_notifier, &na[0], "kevent-notify0");
	t[1] = kthread_run(kc_notifier, &na[1], "kevent-notify1");
	t[2] = kthread_run(kc_controller, &s, "kevent-ctl");
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));

	while (ktime_ms_delta(ktime_get(), t0) < RUN_MS) {
		long n = kevent_queue_get_events(c->q, 0, 16, 0,
						(struct ukevent __user *)buf, false);

		KUNIT_ASSERT_GE(test, n, 0L);
		delivered += n;
		usleep_range(100, 200);
	}
	for (i = 0; i < 3; i++)
		kthread_stop(t[i]);

	kunit_info(test, "%lu notifications, %lu control ops, %lu delivered\n",
		   na[0].notifies + na[1].notifies, s.ctls, delivered);
	KUNIT_EXPECT_EQ(test, s.ctl_errors, 0UL);
	KUNIT_EXPECT_GT(test, na[0].notifies + na[1].notifies, 100UL);
	KUNIT_EXPECT_GT(test, s.ctls, 10UL);
	KUNIT_EXPECT_GT(test, delivered, 0UL);

	/* Everything is freed: the queue's events and the user's count. */
	kevent_queue_destroy(c->q);
	c->q = NULL;
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&current_user()->kevents), before);
}

/*
 * The SMP harness: up to SMP_WORKERS kthreads, each bound to a CPU (round
 * robin over the online ones), started together and stopped in order.
 * A worker counts its own operations and errors; the test thread judges
 * them when all have stopped (KUnit expectations belong to the test's
 * thread).  Workers that deliver borrow the test's mm, so they copy to
 * the test's user memory as the test thread does.
 */
struct kc_smp;

struct kc_worker {
	struct kc_smp		*sm;
	const char		*role;
	int			(*fn)(struct kc_worker *w);
	struct task_struct	*task;
	unsigned int		cpu;
	struct ukevent __user	*buf;		/* SMP_BATCH ukevents of its own */
	unsigned long		ops, errors, wrong_cpu, overlapped;
	unsigned long		data;		/* what the role counts besides */
	int			max_active;
};

struct kc_smp {
	struct kunit		*test;
	struct kt_ctx		*c;
	struct mm_struct	*mm;
	struct completion	go;
	atomic_t		active;		/* workers inside an operation */
	int			nw;
	struct kc_worker	w[SMP_WORKERS];

	/* kevent_smp_wakeup_one_waiters */
	atomic_long_t		issued, delivered, not_done;
	atomic_long_t		per_key[SMP_WAKE_KEYS];
	/* kevent_smp_timer_fire_vs_remove */
	atomic_t		armed, removed;
	u32			period_ns;
};

/* Skip unless two CPUs or more are online; the harness, zeroed. */
static struct kc_smp *kc_smp_new(struct kunit *test)
{
	struct kc_smp *sm;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs or more, %u online (UML: ./run_tests.sh --smp)",
			   num_online_cpus());
	sm = kunit_kzalloc(test, sizeof(*sm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sm);
	sm->test = test;
	sm->c = test->priv;
	init_completion(&sm->go);
	return sm;
}

/* An operation begins: note whether another CPU is inside one. */
static void kc_op_begin(struct kc_worker *w)
{
	int a = atomic_inc_return(&w->sm->active);

	if (a > 1)
		w->overlapped++;
	if (a > w->max_active)
		w->max_active = a;
	if (raw_smp_processor_id() != w->cpu)
		w->wrong_cpu++;
}

static void kc_op_end(struct kc_worker *w)
{
	atomic_dec(&w->sm->active);
	w->ops++;
}

static int kc_smp_thread(void *arg)
{
	struct kc_worker *w = arg;
	bool mm = w->buf != NULL;

	wait_for_completion(&w->sm->go);
	if (mm)
		kthread_use_mm(w->sm->mm);
	while (!kthread_should_stop()) {
		if (w->fn(w))
			cond_resched();
	}
	if (mm)
		kthread_unuse_mm(w->sm->mm);
	return 0;
}

/* A worker of @role running @fn on the next CPU; @user: it delivers. */
static void kc_smp_add(struct kc_smp *sm, const char *role,
		       int (*fn)(struct kc_worker *w), bool user)
{
	struct kunit *test = sm->test;
	struct kc_worker *w;
	unsigned int cpu = cpumask_first(cpu_online_mask);
	int i;

	KUNIT_ASSERT_LT(test, sm->nw, SMP_WORKERS);
	for (i = 0; i < sm->nw; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	w = &sm->w[sm->nw];
	w->sm = sm;
	w->role = role;
	w->fn = fn;
	w->cpu = cpu;
	if (user) {
		unsigned long addr = kt_user_mem(test, SMP_BATCH * sizeof(struct ukevent));

		KUNIT_ASSERT_NE(test, addr, 0UL);
		w->buf = (struct ukevent __user *)addr;
		if (!sm->mm) {
			sm->mm = current->mm;
			mmget(sm->mm);
		}
	}
	w->task = kthread_create(kc_smp_thread, w, "kevent-%s/%u", role, cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->task));
	kthread_bind(w->task, cpu);
	get_task_struct(w->task);
	sm->nw++;
}

/* Stop worker @i, unless stopped already. */
static void kc_smp_stop(struct kc_smp *sm, int i)
{
	if (!sm->w[i].task)
		return;
	kthread_stop(sm->w[i].task);
	put_task_struct(sm->w[i].task);
	sm->w[i].task = NULL;
}

/* Start every worker at once, let them run @ms, stop them in order. */
static void kc_smp_run(struct kc_smp *sm, unsigned int ms,
		       void (*before_stop)(struct kc_smp *sm))
{
	int i;

	for (i = 0; i < sm->nw; i++)
		wake_up_process(sm->w[i].task);
	complete_all(&sm->go);
	msleep(ms);
	if (before_stop)
		before_stop(sm);
	for (i = 0; i < sm->nw; i++)
		kc_smp_stop(sm, i);
	if (sm->mm)
		mmput(sm->mm);
	sm->mm = NULL;
}

/*
 * Print what each CPU did and expect it: every worker worked, on its own
 * CPU, without errors; two CPUs or more worked, and operations overlapped.
 */
static void kc_smp_report(struct kc_smp *sm)
{
	struct kunit *test = sm->test;
	unsigned long overlapped = 0, cpus_used = 0;
	int i, j, max_active = 0;

	for (i = 0; i < sm->nw; i++) {
		struct kc_worker *w = &sm->w[i];
		bool first = true;

		for (j = 0; j < i; j++)
			if (sm->w[j].cpu == w->cpu && sm->w[j].ops)
				first = false;
		if (first && w->ops)
			cpus_used++;
		overlapped += w->overlapped;
		max_active = max(max_active, w->max_active);
		kunit_info(test, "cpu%u %-8s %8lu ops %8lu overlapping another CPU's, %lu counted, %lu errors\n",
			   w->cpu, w->role, w->ops, w->overlapped, w->data, w->errors);
		KUNIT_EXPECT_GT_MSG(test, w->ops, 0UL, "cpu%u %s did nothing", w->cpu, w->role);
		KUNIT_EXPECT_EQ_MSG(test, w->errors, 0UL, "cpu%u %s", w->cpu, w->role);
		KUNIT_EXPECT_EQ_MSG(test, w->wrong_cpu, 0UL, "cpu%u %s ran elsewhere",
				    w->cpu, w->role);
	}
	kunit_info(test, "%lu CPUs worked, up to %d operations at once, %lu overlapping\n",
		   cpus_used, max_active, overlapped);
	KUNIT_EXPECT_GE(test, cpus_used, 2UL);
	KUNIT_EXPECT_GE(test, max_active, 2);
}

/*
 * Deliver up to @max into the worker's buffer; how many, or <0.  A wait
 * that kthread_stop() interrupts (it sets TIF_NOTIFY_SIGNAL, so the wait
 * sees a signal and answers -EINTR) found nothing.
 */
static long kc_smp_drain(struct kc_worker *w, unsigned int max, u64 timeout_ns,
			 struct ukevent *out)
{
	long n = kevent_queue_get_events(w->sm->c->q, 1, max, timeout_ns,
					w->buf, false);

	if (n == -EINTR && kthread_should_stop())
		return 0;
	if (n > 0 && out && copy_from_user(out, w->buf, n * sizeof(*out)))
		return -EFAULT;
	return n;
}

/* kevent_smp_notify_ctl_drain */

static int kc_w_notify(struct kc_worker *w)
{
	struct kt_origin *o = &w->sm->c->origin[0];

	kc_op_begin(w);
	kc_set_ready(o, (w->ops % 7 == 6) ? -1 : (int)(w->ops & 1));
	kevent_storage_ready(&o->st, NULL, EV_A);
	kc_op_end(w);
	return !(w->ops % 8);
}

static int kc_w_ctl(struct kc_worker *w)
{
	kc_op_begin(w);
	if (!kc_random_ctl(w->sm->c->q))
		w->errors++;
	kc_op_end(w);
	return 1;
}

static int kc_w_drain(struct kc_worker *w)
{
	long n;

	kc_op_begin(w);
	n = kc_smp_drain(w, SMP_BATCH, 2 * NSEC_PER_MSEC, NULL);
	kc_op_end(w);
	if (n < 0)
		w->errors++;
	else
		w->data += n;
	return 1;
}

static void kevent_smp_notify_ctl_drain(struct kunit *test)
{
	struct kc_smp *sm = kc_smp_new(test);
	struct kt_ctx *c = sm->c;
	long before = atomic_long_read(&c->q->owner->kevents);
	unsigned long delivered = 0;
	int i;

	kc_smp_add(sm, "notify", kc_w_notify, false);
	kc_smp_add(sm, "ctl", kc_w_ctl, false);
	kc_smp_add(sm, "drain", kc_w_drain, true);
	kc_smp_add(sm, "notify", kc_w_notify, false);
	kc_smp_add(sm, "ctl", kc_w_ctl, false);
	kc_smp_add(sm, "drain", kc_w_drain, true);
	kc_smp_run(sm, SMP_RUN_MS, NULL);

	kc_smp_report(sm);
	for (i = 0; i < sm->nw; i++)
		if (sm->w[i].fn == kc_w_drain)
			delivered += sm->w[i].data;
	KUNIT_EXPECT_GT(test, delivered, 0UL);

	kevent_queue_destroy(c->q);
	c->q = NULL;
	KUNIT_EXPECT_TRUE(test, list_empty(&c->origin[0].st.list));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&current_user()->kevents), before);
}

/* kevent_smp_wakeup_one_waiters */

/*
 * Notify while fewer than SMP_WAKE_KEYS kevents are on the ready list:
 * then one of the WAKEUP_ONE kevents is not, so each notification makes
 * exactly one newly ready.  It may be one a waiter has taken off the list
 * but not yet snapshotted; that delivery then reports both notifications
 * (edge-triggered coalescing) and the kevent queued again, with nothing
 * left to report, is dropped at the next take.  Other waiters may take
 * and drop it meanwhile, each letting one more notification in: so each
 * delivery stands for one notification or, coalesced, up to one more per
 * waiter.
 */
static int kc_w_wake_notify(struct kc_worker *w)
{
	struct kc_smp *sm = w->sm;
	struct kt_origin *o = &sm->c->origin[1];

	if (kevent_queue_ready_num(sm->c->q) >= SMP_WAKE_KEYS) {
		cpu_relax();
		return 1;
	}
	kc_op_begin(w);
	atomic_long_inc(&sm->issued);
	kevent_storage_ready(&o->st, NULL, EV_A);
	kc_op_end(w);
	return !(w->ops % 8);
}

static int kc_w_wait(struct kc_worker *w)
{
	struct ukevent uk;
	long n;

	kc_op_begin(w);
	n = kc_smp_drain(w, 1, 5 * NSEC_PER_MSEC, &uk);
	kc_op_end(w);
	if (n < 0) {
		w->errors++;
	} else if (n) {
		if (!(uk.ret_flags & KEVENT_RET_DONE))
			atomic_long_inc(&w->sm->not_done);
		if (uk.id.raw[1] < SMP_WAKE_KEYS)
			atomic_long_inc(&w->sm->per_key[uk.id.raw[1]]);
		w->data++;
		atomic_long_inc(&w->sm->delivered);
	}
	return 1;
}

/* Stop notifying, then give the waiters up to a second to empty the list. */
static void kc_wake_settle(struct kc_smp *sm)
{
	unsigned long deadline;

	kc_smp_stop(sm, 0);
	deadline = jiffies + HZ;
	while (kevent_queue_ready_num(sm->c->q) && time_before(jiffies, deadline))
		usleep_range(5000, 10000);
}

static void kevent_smp_wakeup_one_waiters(struct kunit *test)
{
	struct kc_smp *sm = kc_smp_new(test);
	struct kt_ctx *c = sm->c;
	unsigned int i, waiters = clamp(num_online_cpus(), 3U, SMP_WORKERS - 1U);
	long issued, delivered, not_done;
	unsigned long busy = 0;

	for (i = 0; i < SMP_WAKE_KEYS; i++) {
		struct ukevent uk = kt_uk(1, EV_A, KEVENT_REQ_WAKEUP_ONE | KEVENT_REQ_ET);
		int err;

		uk.id.raw[1] = i;
		mutex_lock(&c->q->ctl_mutex);
		err = kevent_queue_add_ukevent(&uk, c->q);
		mutex_unlock(&c->q->ctl_mutex);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	kc_set_ready(&c->origin[1], 1);

	kc_smp_add(sm, "notify", kc_w_wake_notify, false);
	for (i = 0; i < waiters; i++)
		kc_smp_add(sm, "wait", kc_w_wait, true);
	kc_smp_run(sm, SMP_RUN_MS, kc_wake_settle);

	issued = atomic_long_read(&sm->issued);
	delivered = atomic_long_read(&sm->delivered);
	not_done = atomic_long_read(&sm->not_done);
	for (i = 1; i < sm->nw; i++)
		busy += !!sm->w[i].data;
	kc_smp_report(sm);
	kunit_info(test, "%ld notifications, %ld deliveries (%ld coalesced), %ld without DONE, %lu of %u waiters got some\n",
		   issued, delivered, issued - delivered, not_done, busy, waiters);
	BUILD_BUG_ON(SMP_WAKE_KEYS != 4);	/* the four counts printed */
	kunit_info(test, "deliveries per kevent: %ld %ld %ld %ld, %u ready at the end, %d callbacks\n",
		   atomic_long_read(&sm->per_key[0]), atomic_long_read(&sm->per_key[1]),
		   atomic_long_read(&sm->per_key[2]), atomic_long_read(&sm->per_key[3]),
		   kevent_queue_ready_num(c->q), c->origin[1].callbacks);
	KUNIT_EXPECT_GT(test, issued, 10L);
	/*
	 * Each notification reached exactly one kevent (a WAKEUP_ONE that
	 * woke several would make more deliveries than notifications), and
	 * each delivery covered one notification, or a few coalesced.
	 */
	KUNIT_EXPECT_LE(test, delivered, issued);
	KUNIT_EXPECT_GE(test, (waiters + 1) * delivered, issued);
	KUNIT_EXPECT_EQ(test, not_done, 0L);
	KUNIT_EXPECT_GE(test, busy, 2UL);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q), 0U);
}

/* kevent_smp_timer_fire_vs_remove */

static struct ukevent kc_timer_uk(u32 nsec, u32 flags)
{
	struct ukevent uk = {
		.id.raw = { 0, nsec },
		.type = KEVENT_TIMER,
		.event = KEVENT_TIMER_FIRED,
		.req_flags = flags,
	};
	return uk;
}

/* Arm a timer kevent of a random short period, wait for its removal. */
static int kc_w_arm(struct kc_worker *w)
{
	struct kc_smp *sm = w->sm;
	int round = atomic_read(&sm->armed) + 1;
	struct ukevent uk;
	int err;

	if (atomic_read_acquire(&sm->removed) != round - 1) {
		cpu_relax();
		return 1;
	}
	kc_op_begin(w);
	sm->period_ns = 10 * NSEC_PER_USEC + get_random_u32_below(200 * NSEC_PER_USEC);
	uk = kc_timer_uk(sm->period_ns, get_random_u32_below(2) ? KEVENT_REQ_ONESHOT : 0);
	mutex_lock(&sm->c->q->ctl_mutex);
	err = kevent_queue_add_ukevent(&uk, sm->c->q);
	mutex_unlock(&sm->c->q->ctl_mutex);
	if (err)
		w->errors++;
	atomic_set_release(&sm->armed, round);
	kc_op_end(w);
	return 0;
}

/* Remove the armed timer after a random delay around its period. */
static int kc_w_remove(struct kc_worker *w)
{
	struct kc_smp *sm = w->sm;
	int round = atomic_read_acquire(&sm->armed);
	struct ukevent uk;
	int err;

	if (round == atomic_read(&sm->removed)) {
		cpu_relax();
		return 1;
	}
	kc_op_begin(w);
	ndelay(get_random_u32_below(2 * sm->period_ns));
	uk = kc_timer_uk(sm->period_ns, 0);
	mutex_lock(&sm->c->q->ctl_mutex);
	err = kevent_queue_remove_ukevent(&uk, sm->c->q);
	mutex_unlock(&sm->c->q->ctl_mutex);
	/* A ONESHOT timer that fired may have been delivered and removed. */
	if (err == -ENOENT)
		w->data++;
	else if (err)
		w->errors++;
	atomic_set_release(&sm->removed, round);
	kc_op_end(w);
	return 0;
}

/* Deliver, re-arming periodic timers; data: the expirations seen. */
static int kc_w_timer_drain(struct kc_worker *w)
{
	struct ukevent uk[SMP_BATCH];
	long n, i;

	kc_op_begin(w);
	n = kc_smp_drain(w, SMP_BATCH, NSEC_PER_MSEC, uk);
	kc_op_end(w);
	if (n < 0)
		w->errors++;
	for (i = 0; i < n; i++) {
		if (uk[i].type != KEVENT_TIMER || !uk[i].ret_data[0])
			w->errors++;
		w->data += uk[i].ret_data[0];
	}
	return 1;
}

static void kevent_smp_timer_fire_vs_remove(struct kunit *test)
{
	struct kc_smp *sm = kc_smp_new(test);
	struct kt_ctx *c = sm->c;
	long before = atomic_long_read(&c->q->owner->kevents);

	kc_smp_add(sm, "arm", kc_w_arm, false);
	kc_smp_add(sm, "remove", kc_w_remove, false);
	kc_smp_add(sm, "drain", kc_w_timer_drain, true);
	kc_smp_run(sm, SMP_RUN_MS, NULL);

	kc_smp_report(sm);
	kunit_info(test, "%d timers armed and removed (%lu gone by delivery), %lu expirations delivered\n",
		   atomic_read(&sm->removed), sm->w[1].data, sm->w[2].data);
	KUNIT_EXPECT_GT(test, atomic_read(&sm->removed), 10);
	KUNIT_EXPECT_GT(test, sm->w[2].data, 0UL);

	kevent_queue_destroy(c->q);
	c->q = NULL;
	KUNIT_EXPECT_EQ(test, atomic_long_read(&current_user()->kevents), before);
}

/*
 * kevent_smp_timer_modify_while_firing: one periodic timer of a few
 * microseconds firing on one CPU, MODIFY queueing it again from another,
 * two CPUs delivering.  Its expiration is counted and reported in one
 * section of the storage lock, so no delivery reports a count of 0 (one
 * taken between the count and the report left a notification with
 * nothing behind it, which sticky DONE then delivered).
 */
#define KC_MODIFY_NS	3000

static int kc_w_modify(struct kc_worker *w)
{
	struct ukevent uk = kc_timer_uk(KC_MODIFY_NS, 0);
	struct kevent_queue *q = w->sm->c->q;

	kc_op_begin(w);
	mutex_lock(&q->ctl_mutex);
	if (kevent_queue_modify_ukevent(&uk, q))
		w->errors++;
	mutex_unlock(&q->ctl_mutex);
	kc_op_end(w);
	return !(w->ops % 16);
}

static void kevent_smp_timer_modify_while_firing(struct kunit *test)
{
	struct kc_smp *sm = kc_smp_new(test);
	struct ukevent uk = kc_timer_uk(KC_MODIFY_NS, 0);
	struct kt_ctx *c = sm->c;

	mutex_lock(&c->q->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kevent_queue_add_ukevent(&uk, c->q), 0);
	mutex_unlock(&c->q->ctl_mutex);
	kc_smp_add(sm, "modify", kc_w_modify, false);
	kc_smp_add(sm, "drain", kc_w_timer_drain, true);
	kc_smp_add(sm, "drain", kc_w_timer_drain, true);
	kc_smp_run(sm, SMP_RUN_MS, NULL);

	kc_smp_report(sm);
	kunit_info(test, "%lu modifications, %lu expirations delivered\n",
		   sm->w[0].ops, sm->w[1].data + sm->w[2].data);
	KUNIT_EXPECT_GT(test, sm->w[1].data + sm->w[2].data, 0UL);
}

/* kevent_smp_file_wakeup_during_add */

/* A file whose only readiness is what its wake-ups say. */
static wait_queue_head_t kc_file_wq;

static __poll_t kc_file_poll(struct file *file, poll_table *pt)
{
	poll_wait(file, &kc_file_wq, pt);
	return 0;
}

static const struct file_operations kc_file_fops = {
	.owner	= THIS_MODULE,
	.poll	= kc_file_poll,
};

static int kc_w_file_wake(struct kc_worker *w)
{
	kc_op_begin(w);
	wake_up_poll(&kc_file_wq, EPOLLIN);
	kc_op_end(w);
	return !(w->ops % 64);
}

static int kc_w_file_add(struct kc_worker *w)
{
	struct kevent_queue *q = w->sm->c->q;
	struct ukevent uk = {
		.type = KEVENT_POLL,
		.event = POLLIN,
		.id.raw = { w->data, 0 },	/* the file's fd */
	};
	int err;

	kc_op_begin(w);
	mutex_lock(&q->ctl_mutex);
	err = kevent_queue_add_ukevent(&uk, q);
	if (!err)
		err = kevent_queue_remove_ukevent(&uk, q);
	mutex_unlock(&q->ctl_mutex);
	kc_op_end(w);
	if (err)
		w->errors++;
	return 1;
}

/*
 * The race needs many ADDs, and an ADD is slow under KASAN on a busy host
 * (a few hundred in 2 s): keep going until 2000 were made, for at most
 * 10 s more.
 */
static void kc_file_enough_adds(struct kc_smp *sm)
{
	unsigned long deadline = jiffies + 10 * HZ;

	/* Racy reads of the workers' counts: a stale one costs one more pass. */
	while (data_race(sm->w[1].ops + sm->w[3].ops) < 2000 &&
	       time_before(jiffies, deadline))
		msleep(100);
}

static void kevent_smp_file_wakeup_during_add(struct kunit *test)
{
	struct kc_smp *sm = kc_smp_new(test);
	struct kt_ctx *c = sm->c;
	struct file *file;
	int fd;

	if (!IS_ENABLED(CONFIG_KEVENT_POLL))
		kunit_skip(test, "needs CONFIG_KEVENT_POLL");
	init_waitqueue_head(&kc_file_wq);
	file = anon_inode_getfile("[kevent-wake]", &kc_file_fops, NULL, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	fd = get_unused_fd_flags(O_CLOEXEC);
	KUNIT_ASSERT_GE(test, fd, 0);
	fd_install(fd, file);
	kc_smp_add(sm, "wake", kc_w_file_wake, false);
	kc_smp_add(sm, "add", kc_w_file_add, false);
	kc_smp_add(sm, "wake", kc_w_file_wake, false);
	kc_smp_add(sm, "add", kc_w_file_add, false);
	sm->w[1].data = sm->w[3].data = fd;
	kc_smp_run(sm, SMP_RUN_MS, kc_file_enough_adds);

	kc_smp_report(sm);
	KUNIT_EXPECT_EQ(test, c->q->kevent_num, 0U);
	close_fd(fd);
	flush_delayed_fput();
}

static struct kunit_case kevent_concurrency_cases[] = {
	KUNIT_CASE_SLOW(kevent_notify_ctl_and_drain_race),
	KUNIT_CASE_SLOW(kevent_smp_notify_ctl_drain),
	KUNIT_CASE_SLOW(kevent_smp_wakeup_one_waiters),
	KUNIT_CASE_SLOW(kevent_smp_timer_fire_vs_remove),
	KUNIT_CASE_SLOW(kevent_smp_file_wakeup_during_add),
	KUNIT_CASE_SLOW(kevent_smp_timer_modify_while_firing),
	{}
};

static struct kunit_suite kevent_concurrency_suite = {
	.name = "kevent_concurrency",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kevent_concurrency_cases,
};

kunit_test_suite(kevent_concurrency_suite);
