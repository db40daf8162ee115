// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: several threads on one queue.  Each event goes to exactly
 * one waiter; the others keep waiting until their timeout (no spurious 0);
 * closing the fd in another thread does not cut a waiter short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include "common.h"
#include "kselftest_harness.h"

#define WAITERS	4

struct waiter {
	pthread_t t;
	int fd;
	__u64 timeout;
	int ret;
	__u64 elapsed;
	struct ukevent ev;
	int tid;	/* set when the thread runs */
	int done;	/* set when its call returned */
};

static void *wait_one(void *arg)
{
	struct waiter *w = arg;
	__u64 t0 = now_ns();

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->ret = kevent_get_events(w->fd, 1, 1, w->timeout, &w->ev, 0);
	w->elapsed = now_ns() - t0;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wait (at most 5 s) until the waiter sleeps in its call, or has returned:
 * a fixed head start is not enough on a loaded host, and a close() before
 * the call gives -EBADF instead of the race these tests are about.
 */
static void until_sleeping(struct waiter *w)
{
	char path[64], buf[256], *p;
	int i, fd, tid;
	ssize_t n;

	for (i = 0; i < 5000; i++, sleep_ns(MS)) {
		if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			return;
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
	}
}

static void start(struct waiter *w, int n, int fd, __u64 timeout)
{
	int i;

	for (i = 0; i < n; i++) {
		w[i].fd = fd;
		w[i].timeout = timeout;
		pthread_create(&w[i].t, NULL, wait_one, &w[i]);
	}
}

static void join(struct waiter *w, int n)
{
	int i;

	for (i = 0; i < n; i++)
		pthread_join(w[i].t, NULL);
}

/* One event, four waiters: one gets it, three wait their full timeout. */
TEST(one_event_goes_to_exactly_one_waiter)
{
	struct waiter w[WAITERS] = {};
	int q = kevent_open(0), got = 0, i;

	ASSERT_LE(0, q);
	start(w, WAITERS, q, 100 * MS);
	sleep_ns(5 * MS);
	ASSERT_EQ(0, add_timer(q, MS, KEVENT_REQ_ONESHOT));
	join(w, WAITERS);
	for (i = 0; i < WAITERS; i++) {
		if (w[i].ret == 1) {
			got++;
			continue;
		}
		EXPECT_EQ(0, w[i].ret);
		EXPECT_LE(100 * MS, w[i].elapsed) TH_LOG("waiter %d returned early", i);
	}
	EXPECT_EQ(1, got);
	close(q);
}

/* Four events, four waiters: each gets one. */
TEST(n_events_to_n_waiters)
{
	struct waiter w[WAITERS] = {};
	int q = kevent_open(0), i;
	__u32 seen = 0;

	ASSERT_LE(0, q);
	start(w, WAITERS, q, 1000 * MS);
	sleep_ns(5 * MS);
	for (i = 0; i < WAITERS; i++)
		ASSERT_EQ(0, add_timer(q, MS + i, KEVENT_REQ_ONESHOT));
	join(w, WAITERS);
	for (i = 0; i < WAITERS; i++) {
		ASSERT_EQ(1, w[i].ret);
		seen |= 1U << (w[i].ev.id.raw[1] - MS);
	}
	EXPECT_EQ((1U << WAITERS) - 1, seen);
	close(q);
}

/* Closing the fd while a thread waits: the wait runs to its timeout. */
TEST(close_while_waiting_waiter_returns_at_timeout)
{
	struct waiter w = {};
	int q = kevent_open(0);

	ASSERT_LE(0, q);
	start(&w, 1, q, 50 * MS);
	until_sleeping(&w);
	ASSERT_EQ(0, close(q));
	join(&w, 1);
	EXPECT_EQ(0, w.ret);
	EXPECT_LE(50 * MS, w.elapsed);
}

/* Closing the fd while a thread waits for a timer: it still gets it. */
TEST(close_while_waiting_waiter_gets_pending_event)
{
	struct waiter w = {};
	int q = kevent_open(0);

	ASSERT_LE(0, q);
	ASSERT_EQ(0, add_timer(q, 20 * MS, KEVENT_REQ_ONESHOT));
	start(&w, 1, q, 1000 * MS);
	until_sleeping(&w);
	ASSERT_EQ(0, close(q));
	join(&w, 1);
	EXPECT_EQ(1, w.ret);
	EXPECT_EQ(20 * MS, w.ev.id.raw[1]);
}

static void *churn(void *arg)
{
	int q = ((int *)arg)[0], base = ((int *)arg)[1], i;
	struct ukevent uk;

	for (i = 0; i < 200; i++) {
		uk = kevent_timer(MS + base * 1000 + i, 0);
		if (kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk))
			return (void *)1;
		if (kevent_ctl(q, KEVENT_CTL_REMOVE, 1, &uk) || uk.ret_flags != KEVENT_RET_DONE)
			return (void *)2;
	}
	return NULL;
}

/* Threads adding and removing on one queue while another drains it. */
TEST(concurrent_add_remove_and_drain)
{
	pthread_t t[3];
	int q = kevent_open(0), args[3][2], i;
	struct ukevent ev[16];
	void *ret;

	ASSERT_LE(0, q);
	for (i = 0; i < 3; i++) {
		args[i][0] = q;
		args[i][1] = i;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, churn, args[i]));
	}
	for (i = 0; i < 50; i++)
		ASSERT_LE(0, kevent_get_events(q, 0, 16, MS, ev, 0));
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &ret);
		EXPECT_EQ(NULL, ret);
	}
	close(q);
}

TEST_HARNESS_MAIN
