// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the syscall bodies (kevent_sys_*) on file descriptors of the test
 * thread: fd checks, argument checks, kevent_ctl batches through user
 * memory, the ring, O_NONBLOCK, poll() of the queue, release.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fdtable.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/delay.h>
#include <linux/mman.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define EV_A	0x1

struct ks {
	int fd;				/* a queue */
	int other;			/* an fd that is not a queue */
	struct kevent_queue *q;		/* the queue behind fd */
	struct ukevent __user *mem;	/* 16 pages of user memory */
};

static struct ks *ks_current;

static const struct file_operations ks_other_fops = {
	.owner = THIS_MODULE,
};

static struct kevent_queue *ks_user(struct kunit *test, int fd)
{
	struct file *f = fget(fd);
	struct kevent_queue *q;

	KUNIT_ASSERT_NOT_NULL(test, f);
	q = f->private_data;
	fput(f);
	return q;
}

static int ks_init(struct kunit *test)
{
	struct ks *s;
	int err = kt_init(test);

	if (err)
		return err;
	if (!IS_ENABLED(CONFIG_KEVENT_TIMER))
		kunit_skip(test, "kevent_ctl() tests use timers: CONFIG_KEVENT_TIMER");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->mem = (struct ukevent __user *)kt_user_mem(test, 16 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, s->mem);
	s->fd = kevent_queue_getfd(0);
	KUNIT_ASSERT_GE(test, s->fd, 0);
	s->other = anon_inode_getfd("[kevent-test]", &ks_other_fops, NULL, O_RDWR);
	KUNIT_ASSERT_GE(test, s->other, 0);
	s->q = ks_user(test, s->fd);
	/* kt_add() and friends work on the queue behind the fd. */
	kt_use_queue(test->priv, s->q);
	ks_current = s;
	return 0;
}

static struct ks *ks(struct kunit *test)
{
	return ks_current;
}

static void ks_exit(struct kunit *test)
{
	struct ks *s = ks(test);

	if (!s) {	/* ks_init() skipped or failed before it was set */
		kt_exit(test);
		return;
	}
	/*
	 * The fd owns the queue: closing it releases everything.  A kthread's
	 * last fput is deferred; flush it, so the queue's events are gone
	 * before kt_exit() frees the origins they are attached to.
	 */
	close_fd(s->fd);
	close_fd(s->other);
	flush_delayed_fput();
	ks_current = NULL;
	kt_exit(test);
}

/* A timer that will not fire during the test: user space's own type. */
static struct ukevent ks_timer(unsigned int j)
{
	struct ukevent uk = {
		.type = KEVENT_TIMER,
		.event = KEVENT_TIMER_FIRED,
		.id.raw = { 1000, j },
		.user = { j, 0 },
	};
	return uk;
}

static void ks_put(struct kunit *test, struct ukevent __user *dst,
		   const struct ukevent *src, unsigned int n)
{
	KUNIT_ASSERT_EQ(test, 0UL, copy_to_user(dst, src, n * sizeof(*src)));
}

static void ks_get(struct kunit *test, struct ukevent *dst,
		   const struct ukevent __user *src, unsigned int n)
{
	KUNIT_ASSERT_EQ(test, 0UL, copy_from_user(dst, src, n * sizeof(*dst)));
}

static void kevent_sys_bad_fd_ebadf(struct kunit *test)
{
	struct ks *s = ks(test);

	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(-1, KEVENT_CTL_ADD, 0, s->mem), (long)-EBADF);
	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(-1, 0, 1, 0, s->mem, 0), (long)-EBADF);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(-1, 1, 0), (long)-EBADF);
	KUNIT_EXPECT_EQ(test, kevent_sys_ring_init(-1, (void __user *)s->mem, 4),
			(long)-EBADF);
}

static void kevent_sys_not_a_queue_einval(struct kunit *test)
{
	struct ks *s = ks(test);

	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->other, KEVENT_CTL_ADD, 0, s->mem),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(s->other, 0, 1, 0, s->mem, 0),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->other, 1, 0), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_sys_ring_init(s->other, (void __user *)s->mem, 4),
			(long)-EINVAL);
}

/*
 * kevent_get_events() refuses max_nr 0, min_nr above max_nr and unknown
 * flags with -EINVAL before it looks at the queue; a valid call on an
 * empty queue with a zero timeout returns 0 at once.
 */
struct ks_args_case {
	const char *rule;
	unsigned int min_nr, max_nr, flags;
	long ret;
};

static const struct ks_args_case ks_args_cases[] = {
	{ "unknown_flag_einval", 0, 1, 1, -EINVAL },
	{ "max_nr_zero_einval", 0, 0, 0, -EINVAL },
	{ "min_nr_above_max_nr_einval", 2, 1, 0, -EINVAL },
	{ "empty_queue_returns_zero", 1, 1, 0, 0 },
};

static void ks_args_case_desc(const struct ks_args_case *a, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", a->rule);
}

KUNIT_ARRAY_PARAM(ks_args_cases, ks_args_cases, ks_args_case_desc);

static void kevent_sys_get_events_checks_its_arguments(struct kunit *test)
{
	const struct ks_args_case *a = test->param_value;
	struct ks *s = ks(test);

	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(s->fd, a->min_nr, a->max_nr, 0,
						    s->mem, a->flags), a->ret);
}

/* Entry counts around kevent_ctl()'s copy threshold and its chunk size. */
static const unsigned int ks_ctl_sizes[] = {
	1, KEVENT_MIN_BUFFS_ALLOC, KEVENT_MIN_BUFFS_ALLOC + 1,
	KEVENT_CTL_CHUNK + 1, 300,
};

static void ks_ctl_size_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "num=%u", *n);
}

KUNIT_ARRAY_PARAM(ks_ctl_sizes, ks_ctl_sizes, ks_ctl_size_desc);

static void kevent_sys_ctl_batches_below_and_above_threshold(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	struct ks *s = ks(test);
	struct ukevent *uk;
	unsigned int j;

	uk = kunit_kcalloc(test, n, sizeof(*uk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, uk);
	for (j = 0; j < n; j++)
		uk[j] = ks_timer(j);
	ks_put(test, s->mem, uk, n);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, n, s->mem), 0L);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, n);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_MODIFY, n, s->mem), 0L);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_REMOVE, n, s->mem), 0L);
	ks_get(test, uk, s->mem, n);
	for (j = 0; j < n; j++)
		KUNIT_EXPECT_EQ(test, uk[j].ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 0U);
}

/* Failed entries come back compacted, in order, across chunks. */
static void kevent_sys_ctl_add_compacts_answers(struct kunit *test)
{
	struct ks *s = ks(test);
	struct ukevent *uk = kunit_kcalloc(test, 100, sizeof(*uk), GFP_KERNEL);
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, uk);
	for (j = 0; j < 100; j++) {
		uk[j] = ks_timer(j);
		if (j % 10 == 3)
			uk[j].type = KEVENT_MAX;	/* -EINVAL */
		if (j % 10 == 5)
			uk[j].id.raw[0] = 0, uk[j].id.raw[1] = 0;	/* -EINVAL */
		if (j % 10 == 7)
			uk[j].type = KEVENT_AIO;	/* -ENOSYS */
	}
	ks_put(test, s->mem, uk, 100);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 100, s->mem), 30L);
	ks_get(test, uk, s->mem, 30);
	for (j = 0; j < 30; j++) {
		u32 k = j % 3;

		KUNIT_EXPECT_EQ(test, uk[j].user[0], (j / 3) * 10 + 3 + 2 * k);
		KUNIT_EXPECT_EQ(test, uk[j].ret_flags,
				(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
		KUNIT_EXPECT_EQ(test, (int)uk[j].ret_data[1], k == 2 ? -ENOSYS : -EINVAL);
	}
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 70U);
}

static void kevent_sys_ctl_rejects_bad_cmd_and_buffer_accepts_num_zero(struct kunit *test)
{
	struct ks *s = ks(test);

	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, 3, 1, s->mem), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 0, NULL), 0L);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 1, NULL), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 100, NULL), (long)-EFAULT);
}

static void kevent_sys_ring_wraps_through_fd(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct kevent_ring __user *ring = (struct kevent_ring __user *)s->mem;
	unsigned int round, i;
	u32 kidx;

	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, 0), (long)-EINVAL);	/* no ring */
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 4, 0), (long)-EINVAL);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, 0), 0);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 3; i++) {
			c->origin[i].ready = 1;
			kevent_storage_ready(&c->origin[i].st, NULL, EV_A);
		}
		KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 3, NSEC_PER_SEC), 3L);
		KUNIT_ASSERT_EQ(test, 0, get_user(kidx, &ring->ring_kidx));
		KUNIT_EXPECT_EQ(test, kidx, (round + 1) * 3 % 4);
	}
	/* Nothing ready: the wait ends at its timeout with 0. */
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, NSEC_PER_MSEC), 0L);
}

static void kevent_sys_nonblock_never_waits(struct kunit *test)
{
	int fd = kevent_queue_getfd(O_NONBLOCK);
	struct ks *s = ks(test);
	ktime_t t0 = ktime_get();

	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(fd, 1, 1, NSEC_PER_SEC, s->mem, 0), 0L);
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(fd, (void __user *)s->mem, 4), 0L);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(fd, 1, KEVENT_WAIT_FOREVER), 0L);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), kt_slack(100));
	close_fd(fd);
	flush_delayed_fput();
}

static void kevent_sys_poll_reports_ready_queue(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct file *f = fget(s->fd);

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, vfs_poll(f, NULL), (__poll_t)0);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, vfs_poll(f, NULL), EPOLLIN | EPOLLRDNORM);
	fput(f);
}

static int ks_ready_later(void *arg)
{
	struct kt_origin *o = arg;

	msleep(20);
	o->ready = 1;
	kevent_storage_ready(&o->st, NULL, EV_A);
	return 0;
}

/* A waiter without limit is woken by a notification from another thread. */
static void kevent_sys_wait_forever_woken_by_notification(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct task_struct *t;

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	t = kthread_run(ks_ready_later, &c->origin[0], "kevent-notify");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(s->fd, 1, 1, KEVENT_WAIT_FOREVER,
						    s->mem, 0), 1L);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 0U);
}

/* Hardening: what a hostile caller gets. */

/*
 * kevent_wait() needs 0 < num < ring size and a ring needs two slots: with
 * num 0 the "no spurious 0" loop could never deliver, and spun.
 */
static void kevent_sys_wait_num_zero_and_one_slot_ring_einval(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct kevent_ring __user *ring = (struct kevent_ring __user *)s->mem;
	ktime_t t0;

	KUNIT_EXPECT_EQ(test, kevent_sys_ring_init(s->fd, ring, 1), (long)-EINVAL);
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 2), 0L);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 0, 300 * NSEC_PER_MSEC),
			(long)-EINVAL);
	/* At once: a kernel that waited would take the 300 ms timeout. */
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 200LL);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, 300 * NSEC_PER_MSEC), 1L);
}

/* kevent_ctl() over a huge batch stops at a fatal signal. */
static void kevent_sys_ctl_stops_at_fatal_signal(struct kunit *test)
{
	struct ks *s = ks(test);
	unsigned int n = 16 * PAGE_SIZE / sizeof(struct ukevent);
	struct ukevent uk = ks_timer(0);
	long ret;

	/* 1638 entries of unknown keys: each REMOVE would answer -ENOENT. */
	ks_put(test, s->mem, &uk, 1);
	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 0);
	ret = kevent_sys_ctl(s->fd, KEVENT_CTL_REMOVE, n, s->mem);
	flush_signals(current);
	disallow_signal(SIGKILL);
	KUNIT_EXPECT_EQ(test, ret, (long)-EINTR);
	/* The first chunk was answered, the last entry was not reached. */
	ks_get(test, &uk, &s->mem[0], 1);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	ks_get(test, &uk, &s->mem[n - 1], 1);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, 0U);
}

struct ks_holder {
	struct mutex		*lock;
	struct completion	held, release, done;
};

static int ks_hold_thread(void *arg)
{
	struct ks_holder *h = arg;

	mutex_lock(h->lock);
	complete(&h->held);
	wait_for_completion_timeout(&h->release, 2 * HZ);
	mutex_unlock(h->lock);
	complete(&h->done);
	return 0;
}

/* Another task holds @lock (as a ->poll that sleeps would) until released. */
static void ks_hold(struct kunit *test, struct ks_holder *h, struct mutex *lock)
{
	struct task_struct *t;

	h->lock = lock;
	init_completion(&h->held);
	init_completion(&h->release);
	init_completion(&h->done);
	t = kthread_run(ks_hold_thread, h, "kevent-holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&h->held);
}

static void ks_release(struct ks_holder *h)
{
	complete(&h->release);
	wait_for_completion(&h->done);
}

/*
 * kevent_ctl() copies user memory with no lock held: a bad pointer is
 * answered at once even while ctl_mutex is held elsewhere (as by a
 * ->poll that sleeps); so is a collector that finds nothing ready and
 * does not wait (it takes no lock).  A collector waiting for ctl_mutex
 * ends at any signal, and every caller waiting for ctl_mutex or
 * ring_lock at a fatal one.
 */
static void kevent_sys_mutex_waits_are_killable(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct kevent_ring __user *ring = (struct kevent_ring __user *)s->mem;
	struct ukevent uk = ks_timer(1);
	struct ks_holder h, hr;
	long ctl, get, wait;
	ktime_t t0;

	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	ks_put(test, &s->mem[8], &uk, 1);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	/* Both held elsewhere, before any signal (kthread_run is killable). */
	ks_hold(test, &h, &s->q->ctl_mutex);
	ks_hold(test, &hr, &s->q->ring_lock);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 1,
					     (void __user *)16), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kevent_sys_get_events(s->fd, 0, 1, 0, &s->mem[8], 0),
			0L);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 100LL);
	/* Ready now: the collectors below need ctl_mutex. */
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	/* A collector waiting for them ends at any signal, timeout 0 too. */
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	get = kevent_sys_get_events(s->fd, 0, 1, 0, &s->mem[8], 0);
	wait = kevent_sys_wait(s->fd, 1, NSEC_PER_SEC);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	KUNIT_EXPECT_EQ(test, get, (long)-EINTR);
	KUNIT_EXPECT_EQ(test, wait, (long)-EINTR);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 100LL);
	/* Every caller ends at a fatal one, kevent_ctl() included. */
	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 0);
	t0 = ktime_get();
	ctl = kevent_sys_ctl(s->fd, KEVENT_CTL_ADD, 1, &s->mem[8]);
	get = kevent_sys_get_events(s->fd, 0, 1, NSEC_PER_SEC, &s->mem[8], 0);
	wait = kevent_sys_wait(s->fd, 1, 0);
	flush_signals(current);
	disallow_signal(SIGKILL);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 500LL);
	ks_release(&h);
	ks_release(&hr);
	KUNIT_EXPECT_EQ(test, ctl, (long)-EINTR);
	KUNIT_EXPECT_EQ(test, get, (long)-EINTR);
	KUNIT_EXPECT_EQ(test, wait, (long)-EINTR);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 1U);
}

/*
 * A ring whose ring_kidx cannot be written: the entries written before are
 * given back whole (the event stays ready, a ONESHOT is not removed), so
 * the index the application reads and the entries it finds agree.
 */
static void kevent_sys_ring_kidx_fault_keeps_events(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	unsigned long two = kt_user_mem(test, 2 * PAGE_SIZE);
	struct kevent_ring __user *ring;

	KUNIT_ASSERT_NE(test, two, 0UL);
	ring = (struct kevent_ring __user *)(two + PAGE_SIZE - 8);
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	/* The header's page goes; the entries' page stays writable. */
	KUNIT_ASSERT_EQ(test, vm_munmap(two, PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, KEVENT_REQ_ONESHOT), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, 0), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 1U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 1U);
	KUNIT_EXPECT_EQ(test, s->q->kidx, 0U);
}

/*
 * A ring whose entries fault part of the way through one run (the third
 * slot straddles the end of the mapped page): the entries written whole
 * are delivered and ring_kidx names the slot after them; the one cut in
 * two and those after it stay ready, and come once the ring is writable.
 */
static void kevent_sys_ring_fault_mid_run_keeps_the_rest(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	unsigned long two = kt_user_mem(test, 2 * PAGE_SIZE);
	size_t slot = sizeof(struct ukevent);
	struct kevent_ring __user *ring;
	u32 kidx;
	int i;

	KUNIT_ASSERT_NE(test, two, 0UL);
	/* Slots 0 and 1 end before the page does, slot 2 crosses it. */
	ring = (struct kevent_ring __user *)(two + PAGE_SIZE - 2 * slot -
					     slot / 2 -
					     offsetof(struct kevent_ring, event));
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 8), 0L);
	KUNIT_ASSERT_EQ(test, vm_munmap(two + PAGE_SIZE, PAGE_SIZE), 0);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, KEVENT_REQ_ONESHOT), 0);
		c->origin[i].ready = 1;
		kevent_storage_ready(&c->origin[i].st, NULL, EV_A);
	}
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 4, 0), 2L);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 2U);
	KUNIT_EXPECT_EQ(test, s->q->kidx, 2U);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 2U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 2U);
	/* Nothing more while the slot stays unwritable, and nothing lost. */
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 2, 0), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 2U);
	KUNIT_ASSERT_EQ(test, vm_mmap(NULL, two + PAGE_SIZE, PAGE_SIZE,
				      PROT_READ | PROT_WRITE,
				      MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0),
			two + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 2, 0), 2L);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 4U);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 0U);
}

/*
 * The pass with page faults off writes the first two entries of a batch
 * of four into the ring; the third slot is on a page that is not there
 * yet.  That pass publishes nothing: the pass that may fault writes the
 * whole batch again from the same slot, so the index the application
 * reads meanwhile (at the third slot's fault) is the one from before the
 * batch, never entries that pass could take back.
 */
struct ks_kidx_seen {
	struct kevent_ring __user	*ring;
	u32				kidx;
	int				err;
};

static void ks_read_kidx(void *arg)
{
	struct ks_kidx_seen *seen = arg;

	/* The header's page is there: no fault inside the fault. */
	pagefault_disable();
	seen->err = get_user(seen->kidx, &seen->ring->ring_kidx);
	pagefault_enable();
}

static void kevent_sys_ring_partial_nofault_pass_publishes_nothing(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	unsigned long two = kt_user_mem(test, 2 * PAGE_SIZE);
	size_t slot = sizeof(struct ukevent);
	struct ks_kidx_seen seen = { .kidx = ~0U, .err = 1 };
	struct ukevent out[4];
	u32 kidx, i;

	KUNIT_ASSERT_NE(test, two, 0UL);
	/* Slots 0 and 1 end the first page, slot 2 starts the second. */
	seen.ring = (struct kevent_ring __user *)(two + PAGE_SIZE - 2 * slot -
						  offsetof(struct kevent_ring, event));
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, seen.ring, 8), 0L);
	/* After the ring's checks, which fault its pages in. */
	kt_trap_mem_at(test, two + PAGE_SIZE, ks_read_kidx, &seen, false);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, KEVENT_REQ_ONESHOT), 0);
		c->origin[i].ready = 1;
		c->origin[i].ret_data0 = 10 + i;
		kevent_storage_ready(&c->origin[i].st, NULL, EV_A);
	}
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 4, 0), 4L);
	KUNIT_EXPECT_EQ(test, seen.err, 0);
	KUNIT_EXPECT_EQ(test, seen.kidx, 0U);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &seen.ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 4U);
	KUNIT_EXPECT_EQ(test, s->q->kidx, 4U);
	ks_get(test, out, seen.ring->event, 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, out[i].id.raw[0], i);
		KUNIT_EXPECT_EQ(test, out[i].id.raw[1], 0U);
		KUNIT_EXPECT_EQ(test, out[i].type, (u32)KEVENT_TYPE_KERNEL);
		KUNIT_EXPECT_EQ(test, out[i].event, (u32)EV_A);
		KUNIT_EXPECT_EQ(test, out[i].req_flags, (u32)KEVENT_REQ_ONESHOT);
		KUNIT_EXPECT_EQ(test, out[i].ret_flags, (u32)KEVENT_RET_DONE);
		KUNIT_EXPECT_EQ(test, out[i].ret_data[0], 10 + i);
		KUNIT_EXPECT_EQ(test, out[i].ret_data[1], 0U);
		KUNIT_EXPECT_EQ(test, out[i].user[0], 0xabcdU);
		KUNIT_EXPECT_EQ(test, out[i].user[1], i);
	}
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 0U);
}

/*
 * kevent_wait() that finds nothing ready takes no ctl_mutex, as
 * kevent_get_events() does: with ctl_mutex held elsewhere (as by a ->poll
 * that sleeps) and a signal pending, timeout 0 answers 0 at once, not
 * -EINTR.  With a kevent ready the same call needs ctl_mutex, the signal
 * ends its wait, and nothing is written.
 */
static void kevent_sys_empty_ring_wait_takes_no_ctl_mutex(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	struct kevent_ring __user *ring = (struct kevent_ring __user *)s->mem;
	struct ks_holder h;
	long empty, ready;
	u32 kidx;

	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	ks_hold(test, &h, &s->q->ctl_mutex);
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	empty = kevent_sys_wait(s->fd, 1, 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	ready = kevent_sys_wait(s->fd, 1, 0);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	ks_release(&h);
	KUNIT_EXPECT_EQ(test, empty, 0L);
	KUNIT_EXPECT_EQ(test, ready, (long)-EINTR);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 1U);
	/* ctl_mutex free again: the kevent is written, once. */
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, 0), 1L);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 1U);
}

/*
 * A second ring writer comes while the first copies its batch with
 * ctl_mutex dropped (the entries' page faults; the fault makes the second
 * kevent ready and starts the second writer): the second waits, for
 * ring_lock, until the first has written its entry and ring_kidx, then
 * writes its own after it.  Neither entry is lost and ring_kidx counts
 * both.
 */
struct ks_slow_ring {
	struct ks		*s;
	struct kt_ctx		*c;
	struct mm_struct	*mm;
	struct completion	done;
	long			got;
	bool			ring_held, ctl_free, waited;
};

static int ks_ring_writer(void *arg)
{
	struct ks_slow_ring *w = arg;

	kthread_use_mm(w->mm);
	w->got = kevent_sys_wait(w->s->fd, 1, 0);
	kthread_unuse_mm(w->mm);
	complete(&w->done);
	return 0;
}

/* In the first writer's fault, with its batch taken and ctl_mutex free. */
static void ks_ring_second_writer(void *arg)
{
	struct ks_slow_ring *w = arg;
	struct task_struct *t;
	unsigned int tries;

	w->ring_held = mutex_is_locked(&w->s->q->ring_lock);
	w->ctl_free = !mutex_is_locked(&w->s->q->ctl_mutex);
	w->c->origin[1].ready = 1;
	kevent_storage_ready(&w->c->origin[1].st, NULL, EV_A);
	t = kthread_run(ks_ring_writer, w, "kevent-ring-writer");
	if (IS_ERR(t)) {
		w->got = PTR_ERR(t);
		complete(&w->done);
		return;
	}
	get_task_struct(t);
	/* Until it sleeps (for ring_lock, which nothing else holds up), or is done. */
	for (tries = 0; tries < 1000 && !completion_done(&w->done); tries++) {
		if (READ_ONCE(t->__state) == TASK_INTERRUPTIBLE) {
			w->waited = true;
			break;
		}
		usleep_range(1000, 2000);
	}
	put_task_struct(t);
}

static void kevent_sys_ring_writer_waits_for_a_slow_one(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	unsigned long two = kt_user_mem(test, 2 * PAGE_SIZE);
	struct kevent_ring __user *ring;
	struct ks_slow_ring *w;
	struct ukevent out[2];
	u32 kidx, i;

	KUNIT_ASSERT_NE(test, two, 0UL);
	/* Not the test's: a writer that never ends may still use it. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->s = s;
	w->c = c;
	w->mm = current->mm;
	init_completion(&w->done);
	/* The header ends the first page, the entries start the second. */
	ring = (struct kevent_ring __user *)(two + PAGE_SIZE -
					     offsetof(struct kevent_ring, event));
	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	/* After the ring's checks, which fault its pages in. */
	kt_trap_mem_at(test, two + PAGE_SIZE, ks_ring_second_writer, w, false);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, kt_add(c, i, EV_A, KEVENT_REQ_ONESHOT), 0);
	c->origin[0].ready = 1;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_EXPECT_EQ(test, kevent_sys_wait(s->fd, 1, 0), 1L);
	KUNIT_ASSERT_NE_MSG(test, 0UL,
			    wait_for_completion_timeout(&w->done,
							msecs_to_jiffies(5000)),
			    "the second writer never ended");
	KUNIT_EXPECT_TRUE(test, w->ring_held);
	KUNIT_EXPECT_TRUE(test, w->ctl_free);
	KUNIT_EXPECT_TRUE_MSG(test, w->waited,
			      "the second writer did not wait for the first's copy");
	KUNIT_EXPECT_EQ(test, w->got, 1L);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 2U);
	KUNIT_EXPECT_EQ(test, s->q->kidx, 2U);
	ks_get(test, out, ring->event, 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, out[i].id.raw[0], i);
		KUNIT_EXPECT_EQ(test, out[i].ret_flags, (u32)KEVENT_RET_DONE);
		KUNIT_EXPECT_EQ(test, out[i].user[1], i);
	}
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 0U);
	kfree(w);
}

/*
 * A kevent that every delivery finds not ready and that is ready again at
 * once (a POLL kevent that MODIFY re-checks again and again): a call with
 * a finite timeout still ends at its deadline (kevent_wait_ready() says
 * -ETIME), with 0 and nothing copied.  Each delivery queues the kevent
 * again until a watchdog, far past the deadline, stops it: a call that
 * overran its timeout ends then, and the test fails instead of hanging.
 */
#define KS_RECHECK_TIMEOUT_MS	50
#define KS_WATCHDOG_MS		1000

static struct {
	ktime_t	t0;
	bool	gave_up;
} ks_requeue;

static void ks_requeue_again(void *arg)
{
	struct kt_origin *o = arg;

	if (ktime_ms_delta(ktime_get(), ks_requeue.t0) >
	    kt_slack(KS_WATCHDOG_MS)) {
		ks_requeue.gave_up = true;
		return;
	}
	kevent_storage_ready(&o->st, NULL, EV_A);
}

/* Run @call on a queue whose one kevent is never found ready. */
static long ks_call_never_delivered(struct kunit *test,
				    long (*call)(struct ks *s, u64 timeout))
{
	struct kt_ctx *c = test->priv;
	struct ks *s = ks(test);
	s64 ms;
	long ret;

	KUNIT_ASSERT_EQ(test, kt_add(c, 0, EV_A, 0), 0);
	c->origin[0].ready = KEVENT_RECHECK;
	kevent_storage_ready(&c->origin[0].st, NULL, EV_A);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(s->q), 1U);
	ks_requeue.gave_up = false;
	ks_requeue.t0 = ktime_get();
	c->origin[0].in_deliver = ks_requeue_again;
	ret = call(s, KS_RECHECK_TIMEOUT_MS * NSEC_PER_MSEC);
	ms = ktime_ms_delta(ktime_get(), ks_requeue.t0);
	c->origin[0].in_deliver = NULL;
	KUNIT_EXPECT_FALSE(test, ks_requeue.gave_up);
	KUNIT_EXPECT_GE(test, ms, (s64)KS_RECHECK_TIMEOUT_MS);
	KUNIT_EXPECT_LT(test, ms, kt_slack(500));
	/* The last delivery queued it again; it was never removed. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(s->q), 1U);
	KUNIT_EXPECT_EQ(test, s->q->kevent_num, 1U);
	return ret;
}

static long ks_get_events_one(struct ks *s, u64 timeout)
{
	return kevent_sys_get_events(s->fd, 1, 1, timeout, s->mem, 0);
}

static void kevent_sys_get_events_timeout_ends_while_never_delivered(struct kunit *test)
{
	struct ks *s = ks(test);
	struct ukevent mark = { .user = { 0x5a5a, 0xa5a5 } }, in;

	ks_put(test, s->mem, &mark, 1);
	KUNIT_EXPECT_EQ(test, ks_call_never_delivered(test, ks_get_events_one), 0L);
	ks_get(test, &in, s->mem, 1);
	KUNIT_EXPECT_EQ(test, memcmp(&in, &mark, sizeof(in)), 0);
}

static long ks_wait_one(struct ks *s, u64 timeout)
{
	return kevent_sys_wait(s->fd, 1, timeout);
}

static void kevent_sys_wait_timeout_ends_while_never_delivered(struct kunit *test)
{
	struct ks *s = ks(test);
	struct kevent_ring __user *ring = (struct kevent_ring __user *)s->mem;
	u32 kidx;

	KUNIT_ASSERT_EQ(test, kevent_sys_ring_init(s->fd, ring, 4), 0L);
	KUNIT_EXPECT_EQ(test, ks_call_never_delivered(test, ks_wait_one), 0L);
	KUNIT_ASSERT_EQ(test, get_user(kidx, &ring->ring_kidx), 0);
	KUNIT_EXPECT_EQ(test, kidx, 0U);
	KUNIT_EXPECT_EQ(test, s->q->kidx, 0U);
}

static struct kunit_case kevent_syscalls_cases[] = {
	KUNIT_CASE(kevent_sys_bad_fd_ebadf),
	KUNIT_CASE(kevent_sys_not_a_queue_einval),
	KUNIT_CASE_PARAM(kevent_sys_get_events_checks_its_arguments,
			 ks_args_cases_gen_params),
	KUNIT_CASE_PARAM(kevent_sys_ctl_batches_below_and_above_threshold,
			 ks_ctl_sizes_gen_params),
	KUNIT_CASE(kevent_sys_ctl_add_compacts_answers),
	KUNIT_CASE(kevent_sys_ctl_rejects_bad_cmd_and_buffer_accepts_num_zero),
	KUNIT_CASE(kevent_sys_ring_wraps_through_fd),
	KUNIT_CASE(kevent_sys_nonblock_never_waits),
	KUNIT_CASE(kevent_sys_poll_reports_ready_queue),
	KUNIT_CASE(kevent_sys_wait_forever_woken_by_notification),
	KUNIT_CASE(kevent_sys_wait_num_zero_and_one_slot_ring_einval),
	KUNIT_CASE(kevent_sys_ctl_stops_at_fatal_signal),
	KUNIT_CASE(kevent_sys_mutex_waits_are_killable),
	KUNIT_CASE(kevent_sys_ring_kidx_fault_keeps_events),
	KUNIT_CASE(kevent_sys_ring_fault_mid_run_keeps_the_rest),
	KUNIT_CASE(kevent_sys_ring_partial_nofault_pass_publishes_nothing),
	KUNIT_CASE(kevent_sys_ring_writer_waits_for_a_slow_one),
	KUNIT_CASE(kevent_sys_empty_ring_wait_takes_no_ctl_mutex),
	KUNIT_CASE(kevent_sys_get_events_timeout_ends_while_never_delivered),
	KUNIT_CASE(kevent_sys_wait_timeout_ends_while_never_delivered),
	{}
};

static struct kunit_suite kevent_syscalls_suite = {
	.name = "kevent_syscalls",
	.init = ks_init,
	.exit = ks_exit,
	.test_cases = kevent_syscalls_cases,
};

kunit_test_suite(kevent_syscalls_suite);
