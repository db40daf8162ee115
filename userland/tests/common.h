/* SPDX-License-Identifier: GPL-2.0+ */
/* Helpers shared by the user-space test programs. */
#ifndef KEVENT_TEST_COMMON_H
#define KEVENT_TEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../kevent.h"

#define MS	1000000ULL

/*
 * Upper bounds of timing checks are multiplied by this: 1, or what the
 * harness sets for slow (debug) kernels in INIT_TOLERANCE_SCALE.
 */
static inline __u64 slack(__u64 ns)
{
	const char *s = getenv("INIT_TOLERANCE_SCALE");
	int k = s ? atoi(s) : 1;

	return ns * (k > 0 ? k : 1);
}

/*
 * A timing check with a tight upper bound may be tried this many times,
 * and the bound is judged on the fastest try.  The host can stall this
 * UML for milliseconds at any moment (seen under load: a 1 ms timeout
 * that returned after 6 to 15 ms), and a stall only ever makes a call
 * slower.  A kernel that waits too long does so in every try and still
 * fails; the lower bounds hold in every try.
 */
#define TIMING_TRIES	5

/* Loop over tries while the fastest one so far, @best, is not below @bound. */
#define for_each_timing_try(i, best, bound) \
	for ((i) = 0, (best) = ~0ULL; (i) < TIMING_TRIES && (best) >= (bound); (i)++)

/*
 * The fastest of @best and @dt; a try at or over @bound is logged (the
 * test's output shows every retry).  Used in a test body (TH_LOG).
 */
#define fastest(best, dt, bound) ({					\
	__u64 __dt = (dt);						\
	if (__dt >= (bound))						\
		TH_LOG("a try took %llu ns, the bound is %llu ns",	\
		       (unsigned long long)__dt, (unsigned long long)(bound)); \
	__dt < (best) ? __dt : (best);					\
})

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Add one timer of period @ns; returns kevent_ctl()'s value. */
static inline int add_timer(int q, __u64 ns, __u32 flags)
{
	struct ukevent uk = kevent_timer(ns, flags);

	return kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk);
}

static inline void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Wait, at most a second, until @q has @n kevents ready (its fdinfo).
 * After a sleep that outlasts a timer, the timer has fired in a UML
 * kernel (a host stall stops the whole UML); an emulated vCPU's timer
 * interrupt may come later than the sleeper's wake-up.
 */
static inline void wait_ready(int q, long n)
{
	int i;

	for (i = 0; i < 1000 && kevent_fdinfo(q, "ready") < n; i++)
		sleep_ns(MS);
}

/* Write @s to the file at @path (sysfs, procfs, debugfs); 0 on success. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * A fixture whose self->fd is a new kevent queue per test: queue, the
 * one of the test programs, and those that add a table of variants
 * (FIXTURE_VARIANT(name) { ... } and FIXTURE_VARIANT_ADD() after it).
 */
#include "kselftest_harness.h"

#define QUEUE_FIXTURE(name)						\
	FIXTURE(name) {							\
		int fd;							\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->fd = kevent_open(0);				\
		ASSERT_LE(0, self->fd)					\
			TH_LOG("open /dev/kevent: %s", strerror(errno)); \
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		close(self->fd);					\
	}

QUEUE_FIXTURE(queue);

/* The machine is fine: a new queue reports a 1 ms timer within a second. */
static inline void new_queue_works(struct __test_metadata *_metadata)
{
	struct ukevent ev;
	int q = kevent_open(0);

	ASSERT_LE(0, q);
	ASSERT_EQ(0, add_timer(q, MS, KEVENT_REQ_ONESHOT));
	EXPECT_EQ(1, kevent_get_events(q, 1, 1, 1000 * MS, &ev, 0));
	EXPECT_EQ(MS, ev.id.raw[1]);
	close(q);
}

/* Used by TEST_F(queue, ...); a program with none would warn it unused. */
static inline bool queue_teardown_in_parent(void)
{
	return queue_teardown_parent;
}

#endif
