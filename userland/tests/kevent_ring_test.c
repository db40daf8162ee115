// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: the ring.  kevent_ring_init() registers it and zeroes
 * ring_kidx; kevent_wait() copies ready events into it at the kernel index,
 * wrapping at the ring size; afterwards ring_kidx is the slot the kernel
 * fills next.  The application keeps its own read index (the ABI has none)
 * and reads up to ring_kidx, as the 2006 article describes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "common.h"
#include "kselftest_harness.h"

#define R	8

FIXTURE(ring) {
	int fd;
	struct kevent_ring *ring;
};

FIXTURE_SETUP(ring)
{
	self->fd = kevent_open(0);
	ASSERT_LE(0, self->fd);
	self->ring = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ring);
	self->ring->ring_kidx = 0xdead;
	ASSERT_EQ(0, kevent_ring_init(self->fd, self->ring, R));
}

FIXTURE_TEARDOWN(ring)
{
	close(self->fd);
	munmap(self->ring, 4096);
}

/* n one-shot timers that have all fired, ids base .. base + n - 1. */
static void fire(int fd, unsigned int n, __u32 base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		add_timer(fd, MS + base + i, KEVENT_REQ_ONESHOT);
	sleep_ns(4 * MS);
	wait_ready(fd, n);
}

/*
 * The n slots from kidx hold the ids base .. base + n - 1, each once.
 * (In firing order on one CPU; timers 1 ns apart on two vCPUs may fire
 * in either order.)
 */
static void expect_slots(struct __test_metadata *_metadata, struct kevent_ring *ring,
			 unsigned int kidx, unsigned int n, __u32 base)
{
	unsigned int i, seen = 0;

	for (i = 0; i < n; i++) {
		__u64 d = ring->event[(kidx + i) % R].id.raw[1] - (MS + base);

		EXPECT_GT(n, d) TH_LOG("slot %u", (kidx + i) % R);
		if (d < n)
			seen |= 1U << d;
	}
	EXPECT_EQ((1U << n) - 1, seen);
}

TEST_F(ring, init_sets_kidx_zero)
{
	EXPECT_EQ(0U, self->ring->ring_kidx);
}

TEST_F(ring, wait_fills_slots_and_kidx_is_next_slot)
{
	fire(self->fd, 3, 0);
	ASSERT_EQ(3, kevent_wait(self->fd, 3, 0));
	EXPECT_EQ(3U, self->ring->ring_kidx);
	expect_slots(_metadata, self->ring, 0, 3, 0);
	EXPECT_EQ(KEVENT_RET_DONE, self->ring->event[2].ret_flags);
}

/* Rounds of 3 events into a ring of 8: kidx = 3, 6, 1, 4, 7, 2. */
TEST_F(ring, wait_wraps_at_ring_size)
{
	unsigned int round, kidx = 0;

	for (round = 0; round < 6; round++) {
		fire(self->fd, 3, round * 3);
		ASSERT_EQ(3, kevent_wait(self->fd, 3, 100 * MS));
		expect_slots(_metadata, self->ring, kidx, 3, round * 3);
		kidx = (kidx + 3) % R;
		ASSERT_EQ(kidx, self->ring->ring_kidx) TH_LOG("round %u", round);
	}
}

TEST_F(ring, num_is_an_upper_bound)
{
	fire(self->fd, 5, 0);
	ASSERT_EQ(2, kevent_wait(self->fd, 2, 0));
	EXPECT_EQ(2U, self->ring->ring_kidx);
	ASSERT_EQ(3, kevent_wait(self->fd, R - 1, 0));
	EXPECT_EQ(5U, self->ring->ring_kidx);
}

/* A wait writes the slots it returns and nothing past them. */
TEST_F(ring, wait_writes_only_the_slots_it_returns)
{
	unsigned char *p = (unsigned char *)&self->ring->event[1];
	size_t i, len = (R - 1) * sizeof(self->ring->event[0]);

	memset(self->ring->event, 0xaa, R * sizeof(self->ring->event[0]));
	fire(self->fd, 1, 0);
	ASSERT_EQ(1, kevent_wait(self->fd, R - 1, 0));
	EXPECT_EQ(1U, self->ring->ring_kidx);
	expect_slots(_metadata, self->ring, 0, 1, 0);
	for (i = 0; i < len; i++)
		ASSERT_EQ(0xaa, p[i]) TH_LOG("byte %zu past the slot", i);
}

TEST_F(ring, num_size_minus_one_allowed_size_refused)
{
	EXPECT_EQ(0, kevent_wait(self->fd, R - 1, 0));
	EXPECT_EQ(-1, kevent_wait(self->fd, R, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ring, wait_times_out_with_zero)
{
	__u64 t0, dt, best, bound = 5 * MS + slack(4 * MS);
	int i;

	for_each_timing_try(i, best, bound) {
		t0 = now_ns();
		EXPECT_EQ(0, kevent_wait(self->fd, 1, 5 * MS));
		dt = now_ns() - t0;
		EXPECT_LE(5 * MS, dt);
		best = fastest(best, dt, bound);
	}
	EXPECT_GT(bound, best) TH_LOG("waited %llu ns", best);
}

TEST_F(ring, wait_sleeps_until_an_event)
{
	ASSERT_EQ(0, add_timer(self->fd, 5 * MS, KEVENT_REQ_ONESHOT));
	EXPECT_EQ(1, kevent_wait(self->fd, 4, KEVENT_WAIT_FOREVER));
	EXPECT_EQ(1U, self->ring->ring_kidx);
}

/* The application of the article: its own index, reading up to kidx. */
TEST_F(ring, application_consumes_up_to_kidx)
{
	unsigned int head = 0, seen = 0, want = 20;
	__u32 last = 0;

	ASSERT_EQ(0, add_timer(self->fd, MS, 0));
	while (seen < want) {
		ASSERT_LT(0, kevent_wait(self->fd, R - 1, 1000 * MS));
		while (head != self->ring->ring_kidx) {
			struct ukevent *ev = &self->ring->event[head];

			EXPECT_EQ(KEVENT_TIMER, ev->type);
			EXPECT_LE(1U, ev->ret_data[0]);
			last = ev->id.raw[1];
			head = (head + 1) % R;
			seen++;
		}
	}
	EXPECT_EQ(MS, last);
}

/* A ring that faults: -EFAULT, the event stays ready for later. */
TEST_F(ring, faulting_ring_efault_event_kept)
{
	struct ukevent ev;

	fire(self->fd, 1, 0);
	ASSERT_EQ(0, mprotect(self->ring, 4096, PROT_READ));
	EXPECT_EQ(-1, kevent_wait(self->fd, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 0, &ev, 0));
	EXPECT_EQ(MS, ev.id.raw[1]);
}

/* After fork the ring address is the child's copy. */
TEST_F(ring, fork_child_writes_its_own_copy)
{
	int status;
	pid_t pid;

	fire(self->fd, 1, 0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(kevent_wait(self->fd, 1, 0) == 1 &&
		      self->ring->ring_kidx == 1 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0U, self->ring->ring_kidx);
}

TEST_HARNESS_MAIN
