// SPDX-License-Identifier: GPL-2.0+
/*
 * User space, debug kernels: fault injection (failslab, fail_usercopy)
 * aimed at this task's kevent calls, so that the -ENOMEM and -EFAULT
 * branches run; after each, nothing is lost and the queue works.  Skipped
 * where the kernel has no fault injection (the default configuration).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include "common.h"
#include "kselftest_harness.h"

#define DBG	"/sys/kernel/debug/"

/*
 * /proc/self/make-it-fail stays open while armed: closing it allocates,
 * and that allocation would take the injected failure.
 */
static int make_it_fail = -1;

/* Make the next @times faults of @attr (failslab, fail_usercopy) hit us. */
static int arm(const char *attr, int times)
{
	char path[128], n[16];
	/* Disarmed and limited to this task before the probability is set. */
	static const char *const knobs[][2] = {
		{ "times", "0" }, { "task-filter", "Y" }, { "verbose", "0" },
		{ "interval", "1" }, { "space", "0" }, { "probability", "100" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), DBG "%s/%s", attr, knobs[i][0]);
		if (write_file(path, knobs[i][1]))
			return -1;
	}
	snprintf(path, sizeof(path), DBG "%s/ignore-gfp-wait", attr);
	write_file(path, "N");		/* failslab only */
	snprintf(path, sizeof(path), DBG "%s/times", attr);
	snprintf(n, sizeof(n), "%d", times);
	if (write_file(path, n))
		return -1;
	make_it_fail = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (make_it_fail < 0)
		return -1;
	return write(make_it_fail, "1", 1) == 1 ? 0 : -1;
}

static void disarm(void)
{
	if (write(make_it_fail, "0", 1) != 1)
		perror("make-it-fail");
	close(make_it_fail);
}

/*
 * kevent_ctl(ADD) of @n entries with the next fault of @attr aimed at
 * it: its result, or -2 when the fault could not be armed.
 */
static int add_faulted(const char *attr, int q, int n, struct ukevent *uk)
{
	int r;

	if (arm(attr, 1))
		return -2;
	r = kevent_ctl(q, KEVENT_CTL_ADD, n, uk);
	disarm();
	return r;
}

#define NEED(attr) do {							\
	if (access(DBG attr, F_OK))					\
		SKIP(return, "no " attr " (./run_tests.sh --debug has it)"); \
} while (0)

/* Both timers get added even if the chunk buffer cannot be allocated. */
static void queue_works(struct __test_metadata *_metadata, int q)
{
	struct ukevent ev;

	ASSERT_EQ(0, add_timer(q, MS + 77, KEVENT_REQ_ONESHOT));
	do {
		ASSERT_EQ(1, kevent_get_events(q, 1, 1, 1000 * MS, &ev, 0));
	} while (ev.id.raw[1] != MS + 77);
}

TEST_F(queue, failslab_kevent_allocation_fails_entry_enomem)
{
	struct ukevent uk = kevent_timer(1000 * MS, 0);
	int q = self->fd;

	NEED("failslab");
	ASSERT_EQ(1, add_faulted("failslab", q, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-ENOMEM, (int)uk.ret_data[1]);
	/* Nothing half-added: REMOVE finds nothing. */
	uk.ret_flags = 0;
	ASSERT_EQ(0, kevent_ctl(q, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(-ENOENT, (int)uk.ret_data[1]);
	queue_works(_metadata, q);
}

TEST(failslab_chunk_buffer_falls_back_loses_nothing)
{
	struct ukevent uk[10];
	int q = kevent_open(0), r, i;

	NEED("failslab");
	ASSERT_LE(0, q);
	for (i = 0; i < 10; i++)
		uk[i] = kevent_timer(1000 * MS + i, 0);
	r = add_faulted("failslab", q, 10, uk);
	EXPECT_EQ(0, r);
	ASSERT_EQ(0, kevent_ctl(q, KEVENT_CTL_REMOVE, 10, uk));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(KEVENT_RET_DONE, uk[i].ret_flags);
	close(q);
}

TEST(failslab_open_enomem_then_queue_works)
{
	int q;

	NEED("failslab");
	ASSERT_EQ(0, arm("failslab", 1));
	q = kevent_open(0);
	disarm();
	EXPECT_EQ(-1, q);
	EXPECT_EQ(ENOMEM, errno);
	q = kevent_open(0);
	ASSERT_LE(0, q);
	queue_works(_metadata, q);
	close(q);
}

TEST(fail_usercopy_get_events_efault_event_kept)
{
	int q = kevent_open(0), r;
	struct ukevent ev;

	NEED("fail_usercopy");
	ASSERT_LE(0, q);
	ASSERT_EQ(0, add_timer(q, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(q, 1);
	/*
	 * Two: the copy is made under the queue's lock with page faults
	 * disabled, and made again without the lock when that fails.
	 */
	ASSERT_EQ(0, arm("fail_usercopy", 2));
	r = kevent_get_events(q, 1, 1, 0, &ev, 0);
	disarm();
	EXPECT_EQ(-1, r);
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 0, &ev, 0));
	EXPECT_EQ(MS, ev.id.raw[1]);
	close(q);
}

TEST(fail_usercopy_ring_efault_event_kept)
{
	static char mem[8 + 4 * sizeof(struct ukevent)] __attribute__((aligned(8)));
	struct kevent_ring *ring = (struct kevent_ring *)mem;
	int q = kevent_open(0), r;

	NEED("fail_usercopy");
	ASSERT_LE(0, q);
	ASSERT_EQ(0, kevent_ring_init(q, ring, 4));
	ASSERT_EQ(0, add_timer(q, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(q, 1);
	ASSERT_EQ(0, arm("fail_usercopy", 2));	/* as for kevent_get_events */
	r = kevent_wait(q, 1, 0);
	disarm();
	EXPECT_EQ(-1, r);
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(1, kevent_wait(q, 1, 0));
	EXPECT_EQ(1U, ring->ring_kidx);
	EXPECT_EQ(MS, ring->event[0].id.raw[1]);
	close(q);
}

TEST_F(queue, fail_usercopy_ctl_efault_adds_nothing)
{
	struct ukevent uk = kevent_timer(1000 * MS, 0);

	NEED("fail_usercopy");
	EXPECT_EQ(-1, add_faulted("fail_usercopy", self->fd, 1, &uk));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
}

TEST_HARNESS_MAIN
