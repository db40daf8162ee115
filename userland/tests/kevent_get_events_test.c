// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: kevent_get_events(): min_nr/max_nr, timeouts (hrtimer
 * precision: a timeout waits at least its length and, in the fastest of
 * TIMING_TRIES tries, at most TOLERANCE more), KEVENT_WAIT_FOREVER,
 * signals, faulting buffers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include "common.h"
#include "kselftest_harness.h"

/*
 * hrtimer precision in UML on these hosts, with margin: measured there, a
 * 1 ms nanosleep() took 1.28 ms and a 5 ms epoll_wait() 5.37 ms (~0.3 ms late).
 */
#define TOLERANCE	(4 * MS)

static __u64 timed_get(int fd, unsigned int min, unsigned int max, __u64 timeout,
		       struct ukevent *buf, int *ret)
{
	__u64 t0 = now_ns();

	*ret = kevent_get_events(fd, min, max, timeout, buf, 0);
	return now_ns() - t0;
}

/*
 * A timeout waits at least its length, and at most TOLERANCE more in the
 * fastest try; 0 does not wait (at most 2 ms, a system call's cost).
 */
QUEUE_FIXTURE(timeout);

FIXTURE_VARIANT(timeout) {
	__u64 ns;
};

FIXTURE_VARIANT_ADD(timeout, zero_does_not_wait) { .ns = 0 };
FIXTURE_VARIANT_ADD(timeout, ms1_waits_1ms) { .ns = MS };
FIXTURE_VARIANT_ADD(timeout, ms5_waits_5ms) { .ns = 5 * MS };

TEST_F(timeout, nothing_ready)
{
	__u64 t = variant->ns, dt, best;
	__u64 bound = t ? t + slack(TOLERANCE) : slack(2 * MS);
	struct ukevent ev;
	int r, i;

	for_each_timing_try(i, best, bound) {
		dt = timed_get(self->fd, 1, 1, t, &ev, &r);
		EXPECT_EQ(0, r);
		EXPECT_LE(t, dt);
		best = fastest(best, dt, bound);
	}
	EXPECT_GT(bound, best) TH_LOG("waited %llu ns", best);
}

/* min_nr 3: the call waits until the third timer fired. */
TEST_F(queue, min_nr_waits_for_that_many)
{
	struct ukevent ev[3];
	__u64 t0 = now_ns();
	int r;

	ASSERT_EQ(0, add_timer(self->fd, 8 * MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, 2 * MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, 4 * MS, KEVENT_REQ_ONESHOT));
	timed_get(self->fd, 3, 3, 1000 * MS, ev, &r);
	ASSERT_EQ(3, r);
	/* Not before the last timer fired (8 ms after it was added). */
	EXPECT_LE(8 * MS, now_ns() - t0);
	/*
	 * All three (on SMP, timers armed from different CPUs may be late in
	 * any order, so the order is not checked).
	 */
	EXPECT_EQ(14 * MS, ev[0].id.raw[1] + ev[1].id.raw[1] + ev[2].id.raw[1]);
	EXPECT_NE(ev[0].id.raw[1], ev[1].id.raw[1]);
	EXPECT_NE(ev[1].id.raw[1], ev[2].id.raw[1]);
	EXPECT_NE(ev[0].id.raw[1], ev[2].id.raw[1]);
}

TEST_F(queue, max_nr_caps_the_copy)
{
	struct ukevent ev[3];

	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, MS + 1, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, MS + 2, KEVENT_REQ_ONESHOT));
	sleep_ns(5 * MS);
	wait_ready(self->fd, 3);
	memset(ev, 0xaa, sizeof(ev));
	EXPECT_EQ(2, kevent_get_events(self->fd, 1, 2, 0, ev, 0));
	EXPECT_EQ(0xaaaaaaaaU, ev[2].type);
	EXPECT_EQ(1, kevent_get_events(self->fd, 1, 3, 0, ev, 0));
}

/*
 * A call writes the events it returns and nothing past them, even where
 * its batch (KEVENT_DELIVER_BATCH, 16 slots, not zeroed) had room.
 */
TEST_F(queue, copies_only_the_events_it_returns)
{
	struct ukevent ev[16];
	unsigned char *p = (unsigned char *)&ev[1];
	size_t i;

	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(self->fd, 1);
	memset(ev, 0xaa, sizeof(ev));
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 16, 0, ev, 0));
	EXPECT_EQ(MS, ev[0].id.raw[1]);
	for (i = 0; i < sizeof(ev) - sizeof(ev[0]); i++)
		ASSERT_EQ(0xaa, p[i]) TH_LOG("byte %zu past the event", i);
}

/* At the timeout, what is ready comes back even if fewer than min_nr. */
TEST_F(queue, timeout_returns_partial_result)
{
	struct ukevent ev[5];
	int r;
	__u64 dt;

	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, 2 * MS, KEVENT_REQ_ONESHOT));
	dt = timed_get(self->fd, 5, 5, 20 * MS, ev, &r);
	EXPECT_EQ(2, r);
	EXPECT_LE(20 * MS, dt);
}

TEST_F(queue, min_nr_zero_returns_what_is_ready)
{
	struct ukevent ev[2];

	EXPECT_EQ(0, kevent_get_events(self->fd, 0, 2, KEVENT_WAIT_FOREVER, ev, 0));
	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(self->fd, 1);
	EXPECT_EQ(1, kevent_get_events(self->fd, 0, 2, KEVENT_WAIT_FOREVER, ev, 0));
}

TEST_F(queue, wait_forever_ends_with_the_event)
{
	struct ukevent ev;

	ASSERT_EQ(0, add_timer(self->fd, 5 * MS, KEVENT_REQ_ONESHOT));
	EXPECT_EQ(1, kevent_get_events(self->fd, 1, 1, KEVENT_WAIT_FOREVER, &ev, 0));
	EXPECT_EQ(5 * MS, ev.id.raw[1]);
}

static void *add_later(void *arg)
{
	int fd = *(int *)arg;

	sleep_ns(10 * MS);
	add_timer(fd, MS, KEVENT_REQ_ONESHOT);
	return NULL;
}

/* Another thread adds the event while this one waits forever. */
TEST_F(queue, wait_forever_woken_by_other_thread)
{
	struct ukevent ev;
	pthread_t t;
	int r;
	__u64 dt;

	__u64 t0 = now_ns();

	/* From before the thread starts its 10 ms: on SMP it starts at once. */
	ASSERT_EQ(0, pthread_create(&t, NULL, add_later, &self->fd));
	timed_get(self->fd, 1, 1, KEVENT_WAIT_FOREVER, &ev, &r);
	dt = now_ns() - t0;
	pthread_join(t, NULL);
	EXPECT_EQ(1, r);
	EXPECT_LE(10 * MS, dt);
}

static void on_signal(int sig) { (void)sig; }

struct signaller {
	pthread_t target;
	int done;
};

/*
 * SIGUSR1 to the target 10 ms after the start, then every 10 ms until the
 * wait is over: a signal that came before the call began (the caller was
 * preempted that long) is followed by one that comes during it.
 */
static void *signal_later(void *arg)
{
	struct signaller *s = arg;

	do {
		sleep_ns(10 * MS);
		pthread_kill(s->target, SIGUSR1);
	} while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE));
	return NULL;
}

static void signal_during_wait(struct __test_metadata *_metadata, int fd, int flags)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = flags };
	struct signaller sig = { .target = pthread_self() };
	struct ukevent ev;
	pthread_t t;
	int r, err;
	__u64 t0, dt;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	/*
	 * Timed from before the thread starts: its 10 ms begin after t0, and
	 * the wait ends after the signal (timed from the call, the wait could
	 * look shorter: the thread may start sleeping before the call).
	 */
	t0 = now_ns();
	ASSERT_EQ(0, pthread_create(&t, NULL, signal_later, &sig));
	r = kevent_get_events(fd, 1, 1, 1000 * MS, &ev, 0);
	err = errno;
	dt = now_ns() - t0;
	__atomic_store_n(&sig.done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(-1, r);
	EXPECT_EQ(EINTR, err);
	EXPECT_LE(10 * MS, dt);
	EXPECT_GT(slack(500 * MS), dt);
}

TEST_F(queue, signal_during_wait_eintr)
{
	signal_during_wait(_metadata, self->fd, 0);
}

/* Like epoll_wait, the call is not restarted even with SA_RESTART. */
TEST_F(queue, signal_with_sa_restart_still_eintr)
{
	signal_during_wait(_metadata, self->fd, SA_RESTART);
}

/* A faulting buffer: -EFAULT, and the event is still there afterwards. */
TEST_F(queue, faulting_buffer_efault_event_kept)
{
	struct ukevent ev;

	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(self->fd, 1);
	EXPECT_EQ(-1, kevent_get_events(self->fd, 1, 1, 0, (void *)8, 0));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 0, &ev, 0));
	EXPECT_EQ(MS, ev.id.raw[1]);
	EXPECT_EQ(1U, ev.ret_data[0]);
}

/* A fault after one copy: that count, the rest stays ready. */
TEST_F(queue, fault_after_first_copy_returns_count)
{
	char *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ukevent *slot, ev;

	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, mprotect(mem + 4096, 4096, PROT_NONE));
	slot = (struct ukevent *)(mem + 4096 - sizeof(*slot));
	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(0, add_timer(self->fd, MS + 1, KEVENT_REQ_ONESHOT));
	sleep_ns(4 * MS);
	wait_ready(self->fd, 2);
	EXPECT_EQ(1, kevent_get_events(self->fd, 2, 2, 0, slot, 0));
	EXPECT_EQ(1, kevent_get_events(self->fd, 1, 1, 0, &ev, 0));
	EXPECT_EQ(0, kevent_get_events(self->fd, 0, 1, 0, &ev, 0));
	munmap(mem, 8192);
}

/* kevent_get_events leaves a registered ring alone. */
TEST_F(queue, does_not_write_the_ring)
{
	static char mem[8 + 4 * sizeof(struct ukevent)] __attribute__((aligned(8)));
	struct kevent_ring *ring = (struct kevent_ring *)mem;
	struct ukevent ev;

	ASSERT_EQ(0, kevent_ring_init(self->fd, ring, 4));
	memset(ring->event, 0x5a, 4 * sizeof(struct ukevent));
	ASSERT_EQ(0, add_timer(self->fd, MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
	EXPECT_EQ(0U, ring->ring_kidx);
	EXPECT_EQ(0x5a5a5a5aU, ring->event[0].type);
}

TEST_HARNESS_MAIN
