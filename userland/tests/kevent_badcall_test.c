// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: a table of bad calls to the four syscalls.  Each row makes
 * one bad call and checks its exact errno (or, for per-entry errors of
 * kevent_ctl, the exact entry answer), then checks the queue still works.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include "common.h"
#include "kselftest_harness.h"

#define PAGE		4096UL
#define KADDR		((void *)0xffff800000000000UL)

FIXTURE(bad) {
	int q;			/* a kevent queue */
	int pipefd[2];		/* not kevent queues */
	int null;
	char *rw;		/* one writable page, then a PROT_NONE page */
	char *ro;		/* one read-only page */
};

typedef struct _test_data_bad bad_t;

static struct ukevent *rw_events(bad_t *s, unsigned int n)
{
	return (struct ukevent *)(s->rw + PAGE - n * sizeof(struct ukevent));
}

/* A ready event on the queue: a 1 ms one-shot timer that has fired. */
static void make_ready(bad_t *s)
{
	struct ukevent uk = kevent_timer(MS, KEVENT_REQ_ONESHOT);

	kevent_ctl(s->q, KEVENT_CTL_ADD, 1, &uk);
	usleep(5000);
}

static struct kevent_ring *ring(bad_t *s, unsigned int num)
{
	struct kevent_ring *r = (struct kevent_ring *)s->rw;

	if (kevent_ring_init(s->q, r, num))
		return NULL;
	return r;
}

/* kevent_ctl */
static int ctl_fd_minus_one(bad_t *s) { return kevent_ctl(-1, KEVENT_CTL_ADD, 0, NULL); }
static int ctl_fd_not_open(bad_t *s) { return kevent_ctl(4000, KEVENT_CTL_ADD, 0, NULL); }
static int ctl_fd_pipe(bad_t *s) { return kevent_ctl(s->pipefd[0], KEVENT_CTL_ADD, 0, NULL); }
static int ctl_fd_dev_null(bad_t *s) { return kevent_ctl(s->null, KEVENT_CTL_REMOVE, 0, NULL); }
static int ctl_cmd_3(bad_t *s) { return kevent_ctl(s->q, 3, 1, rw_events(s, 1)); }
static int ctl_cmd_huge(bad_t *s) { return kevent_ctl(s->q, ~0U, 1, rw_events(s, 1)); }
static int ctl_add_null(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_ADD, 1, NULL); }
static int ctl_add_bad_pointer(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_ADD, 1, (void *)1); }
static int ctl_add_kernel_pointer(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_ADD, 1, KADDR); }
static int ctl_remove_null(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_REMOVE, 1, NULL); }
static int ctl_modify_null(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_MODIFY, 1, NULL); }
static int ctl_add_num_huge(bad_t *s)
{
	/* One page of zeroed entries (type 0: not built), then a fault. */
	return kevent_ctl(s->q, KEVENT_CTL_ADD, 1U << 30, (void *)s->rw);
}
static int ctl_add_past_guard(bad_t *s)
{
	return kevent_ctl(s->q, KEVENT_CTL_ADD, 2, rw_events(s, 1));
}
static int ctl_add_answer_read_only(bad_t *s)
{
	/* The entry fails (type 99) and its answer cannot be written. */
	return kevent_ctl(s->q, KEVENT_CTL_ADD, 1, (void *)s->ro);
}
static int ctl_remove_answer_read_only(bad_t *s)
{
	return kevent_ctl(s->q, KEVENT_CTL_REMOVE, 1, (void *)s->ro);
}
static int ctl_num_zero_null(bad_t *s) { return kevent_ctl(s->q, KEVENT_CTL_ADD, 0, NULL); }

/* kevent_get_events */
static int get_fd_minus_one(bad_t *s) { return kevent_get_events(-1, 0, 1, 0, rw_events(s, 1), 0); }
static int get_fd_pipe(bad_t *s) { return kevent_get_events(s->pipefd[1], 0, 1, 0, rw_events(s, 1), 0); }
static int get_flags_1(bad_t *s) { return kevent_get_events(s->q, 0, 1, 0, rw_events(s, 1), 1); }
static int get_flags_all(bad_t *s) { return kevent_get_events(s->q, 0, 1, 0, rw_events(s, 1), ~0U); }
static int get_max_zero(bad_t *s) { return kevent_get_events(s->q, 0, 0, 0, rw_events(s, 1), 0); }
static int get_min_above_max(bad_t *s) { return kevent_get_events(s->q, 2, 1, 0, rw_events(s, 1), 0); }
static int get_buf_null_ready(bad_t *s)
{
	make_ready(s);
	return kevent_get_events(s->q, 1, 1, 0, NULL, 0);
}
static int get_buf_read_only_ready(bad_t *s)
{
	make_ready(s);
	return kevent_get_events(s->q, 1, 1, 0, (void *)s->ro, 0);
}
static int get_buf_kernel_ready(bad_t *s)
{
	make_ready(s);
	return kevent_get_events(s->q, 1, 1, 0, KADDR, 0);
}

/* kevent_wait */
static int wait_fd_minus_one(bad_t *s) { return kevent_wait(-1, 1, 0); }
static int wait_fd_dev_null(bad_t *s) { return kevent_wait(s->null, 1, 0); }
static int wait_no_ring(bad_t *s) { return kevent_wait(s->q, 1, 0); }
static int wait_num_equals_size(bad_t *s) { return !ring(s, 8) ? -2 : kevent_wait(s->q, 8, 0); }
static int wait_num_above_size(bad_t *s) { return !ring(s, 8) ? -2 : kevent_wait(s->q, 9, 0); }
static int wait_num_huge(bad_t *s) { return !ring(s, 8) ? -2 : kevent_wait(s->q, ~0U, 0); }
static int wait_num_zero(bad_t *s) { return !ring(s, 8) ? -2 : kevent_wait(s->q, 0, 0); }

/* kevent_ring_init */
static int ring_fd_minus_one(bad_t *s) { return kevent_ring_init(-1, (void *)s->rw, 4); }
static int ring_fd_pipe(bad_t *s) { return kevent_ring_init(s->pipefd[0], (void *)s->rw, 4); }
static int ring_num_zero(bad_t *s) { return kevent_ring_init(s->q, (void *)s->rw, 0); }
static int ring_num_one(bad_t *s) { return kevent_ring_init(s->q, (void *)s->rw, 1); }
static int ring_num_overflows(bad_t *s) { return kevent_ring_init(s->q, (void *)s->rw, ~0U); }
static int ring_null(bad_t *s) { return kevent_ring_init(s->q, NULL, 4); }
static int ring_kernel_address(bad_t *s) { return kevent_ring_init(s->q, KADDR, 4); }
static int ring_read_only(bad_t *s) { return kevent_ring_init(s->q, (void *)s->ro, 4); }
static int ring_past_guard(bad_t *s) { return kevent_ring_init(s->q, (void *)s->rw, 200); }
static int ring_twice(bad_t *s) { return !ring(s, 4) ? -2 : kevent_ring_init(s->q, (void *)s->rw, 4); }

FIXTURE_VARIANT(bad) {
	int (*call)(bad_t *s);
	int err;
};

#define ROW(fn, e) \
	FIXTURE_VARIANT_ADD(bad, fn) { .call = fn, .err = e }

ROW(ctl_fd_minus_one, EBADF);
ROW(ctl_fd_not_open, EBADF);
ROW(ctl_fd_pipe, EINVAL);
ROW(ctl_fd_dev_null, EINVAL);
ROW(ctl_cmd_3, EINVAL);
ROW(ctl_cmd_huge, EINVAL);
ROW(ctl_add_null, EFAULT);
ROW(ctl_add_bad_pointer, EFAULT);
ROW(ctl_add_kernel_pointer, EFAULT);
ROW(ctl_remove_null, EFAULT);
ROW(ctl_modify_null, EFAULT);
ROW(ctl_add_num_huge, EFAULT);
ROW(ctl_add_past_guard, EFAULT);
ROW(ctl_add_answer_read_only, EFAULT);
ROW(ctl_remove_answer_read_only, EFAULT);
ROW(ctl_num_zero_null, 0);
ROW(get_fd_minus_one, EBADF);
ROW(get_fd_pipe, EINVAL);
ROW(get_flags_1, EINVAL);
ROW(get_flags_all, EINVAL);
ROW(get_max_zero, EINVAL);
ROW(get_min_above_max, EINVAL);
ROW(get_buf_null_ready, EFAULT);
ROW(get_buf_read_only_ready, EFAULT);
ROW(get_buf_kernel_ready, EFAULT);
ROW(wait_fd_minus_one, EBADF);
ROW(wait_fd_dev_null, EINVAL);
ROW(wait_no_ring, EINVAL);
ROW(wait_num_equals_size, EINVAL);
ROW(wait_num_above_size, EINVAL);
ROW(wait_num_huge, EINVAL);
ROW(wait_num_zero, EINVAL);
ROW(ring_fd_minus_one, EBADF);
ROW(ring_fd_pipe, EINVAL);
ROW(ring_num_zero, EINVAL);
ROW(ring_num_one, EINVAL);
ROW(ring_num_overflows, EINVAL);
ROW(ring_null, EFAULT);
ROW(ring_kernel_address, EFAULT);
ROW(ring_read_only, EFAULT);
ROW(ring_past_guard, EFAULT);
ROW(ring_twice, EBUSY);

FIXTURE_SETUP(bad)
{
	struct ukevent *ro;

	self->q = kevent_open(0);
	ASSERT_LE(0, self->q);
	ASSERT_EQ(0, pipe(self->pipefd));
	self->null = open("/dev/null", O_RDWR);
	ASSERT_LE(0, self->null);
	self->rw = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->rw);
	ASSERT_EQ(0, mprotect(self->rw + PAGE, PAGE, PROT_NONE));
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->type = 99;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	self->ro = (char *)ro;
}

FIXTURE_TEARDOWN(bad)
{
	close(self->q);
	close(self->pipefd[0]);
	close(self->pipefd[1]);
	close(self->null);
}

TEST_F(bad, fails_with_exact_errno_and_queue_still_works)
{
	struct ukevent uk = kevent_timer(MS + 1, 0), ev;
	int r;

	errno = 0;
	r = variant->call(self);
	ASSERT_NE(-2, r) TH_LOG("setting up the ring failed: %s", strerror(errno));
	if (variant->err) {
		ASSERT_EQ(-1, r);
		ASSERT_EQ(variant->err, errno) TH_LOG("errno %d (%s)", errno, strerror(errno));
	} else {
		ASSERT_EQ(0, r);
	}

	/* The queue still works: a timer added now is delivered. */
	ASSERT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_ADD, 1, &uk));
	do {
		r = kevent_get_events(self->q, 1, 1, 1000 * MS, &ev, 0);
		ASSERT_EQ(1, r);
	} while (ev.id.raw[1] != MS + 1);
	EXPECT_EQ(KEVENT_TIMER, ev.type);
	EXPECT_EQ(KEVENT_RET_DONE, ev.ret_flags);
}

/* Per-entry errors of kevent_ctl: answered in the array, the call goes on. */
FIXTURE(entry) {
	int q;
};

FIXTURE_VARIANT(entry) {
	__u32 cmd, type, id0, id1;
	int err;
};

#define ENTRY(name, c, t, a, b, e) \
	FIXTURE_VARIANT_ADD(entry, name) { .cmd = c, .type = t, .id0 = a, .id1 = b, .err = e }

ENTRY(add_type_max, KEVENT_CTL_ADD, KEVENT_MAX, 0, MS, EINVAL);
ENTRY(add_type_99, KEVENT_CTL_ADD, 99, 0, MS, EINVAL);
ENTRY(add_type_huge, KEVENT_CTL_ADD, ~0U, 0, MS, EINVAL);
ENTRY(add_inode_not_built, KEVENT_CTL_ADD, KEVENT_INODE, 0, MS, ENOSYS);
ENTRY(add_naio_not_built, KEVENT_CTL_ADD, KEVENT_NAIO, 0, MS, ENOSYS);
ENTRY(add_aio_not_built, KEVENT_CTL_ADD, KEVENT_AIO, 0, MS, ENOSYS);
ENTRY(add_timer_zero_period, KEVENT_CTL_ADD, KEVENT_TIMER, 0, 0, EINVAL);
ENTRY(add_timer_nsec_too_big, KEVENT_CTL_ADD, KEVENT_TIMER, 0, 1000000000, EINVAL);
ENTRY(remove_missing, KEVENT_CTL_REMOVE, KEVENT_TIMER, 7, 0, ENOENT);
ENTRY(modify_missing, KEVENT_CTL_MODIFY, KEVENT_TIMER, 7, 0, ENOENT);
ENTRY(remove_type_huge, KEVENT_CTL_REMOVE, ~0U, 0, 0, ENOENT);

FIXTURE_SETUP(entry)
{
	self->q = kevent_open(0);
	ASSERT_LE(0, self->q);
}

FIXTURE_TEARDOWN(entry)
{
	close(self->q);
}

TEST_F(entry, answered_in_place_with_exact_errno)
{
	/* The bad entry between two good timers. */
	struct ukevent uk[3] = { kevent_timer(3 * MS, 0), {}, kevent_timer(4 * MS, 0) };
	int expect = variant->cmd == KEVENT_CTL_ADD ? 1 : 0;

	uk[1].type = variant->type;
	uk[1].event = KEVENT_TIMER_FIRED;
	uk[1].id.raw[0] = variant->id0;
	uk[1].id.raw[1] = variant->id1;
	uk[1].user[0] = 0x5eed;
	ASSERT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_ADD, 1, &uk[0]));
	ASSERT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_ADD, 1, &uk[2]));
	ASSERT_EQ(expect, kevent_ctl(self->q, variant->cmd, 1, &uk[1]));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[1].ret_flags);
	EXPECT_EQ(-variant->err, (int)uk[1].ret_data[1]);
	EXPECT_EQ(0x5eedU, uk[1].user[0]);
	/* Both good timers are still there: REMOVE finds them. */
	uk[0].ret_flags = uk[2].ret_flags = 0;
	ASSERT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_REMOVE, 1, &uk[0]));
	ASSERT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_REMOVE, 1, &uk[2]));
	EXPECT_EQ(KEVENT_RET_DONE, uk[0].ret_flags);
	EXPECT_EQ(KEVENT_RET_DONE, uk[2].ret_flags);
}

TEST_HARNESS_MAIN
