// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: /dev/kevent as a file: open and close, many queues, poll,
 * select and epoll on the queue fd, fork, O_NONBLOCK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/wait.h>
#include "common.h"
#include "kselftest_harness.h"

TEST(open_gives_a_queue_and_close_frees_it)
{
	int q = kevent_open(0);
	struct ukevent ev;

	ASSERT_LE(0, q);
	EXPECT_EQ(0, kevent_get_events(q, 0, 1, 0, &ev, 0));
	EXPECT_EQ(0, close(q));
	EXPECT_EQ(-1, kevent_get_events(q, 0, 1, 0, &ev, 0));
	EXPECT_EQ(EBADF, errno);
}

/* 200 queues at once, each with its own timer, each sees only its own. */
TEST(many_queues_are_independent)
{
	enum { N = 200 };
	struct rlimit rl = { 1024, 1024 };
	struct ukevent ev;
	int q[N], i;

	setrlimit(RLIMIT_NOFILE, &rl);
	for (i = 0; i < N; i++) {
		q[i] = kevent_open(0);
		ASSERT_LE(0, q[i]);
		ASSERT_EQ(0, add_timer(q[i], MS + i, KEVENT_REQ_ONESHOT));
	}
	sleep_ns(10 * MS);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(1, kevent_get_events(q[i], 1, 1, 100 * MS, &ev, 0));
		EXPECT_EQ(MS + i, ev.id.raw[1]);
		EXPECT_EQ(0, kevent_get_events(q[i], 0, 1, 0, &ev, 0));
	}
	for (i = 0; i < N; i++)
		EXPECT_EQ(0, close(q[i]));
}

/* Closing a queue with 1000 armed timers and some fired ones frees them. */
TEST(close_with_armed_timers)
{
	int q = kevent_open(0), i;

	ASSERT_LE(0, q);
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, add_timer(q, 1000 * MS + i, 0));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, add_timer(q, MS + i, i % 2 ? KEVENT_REQ_ONESHOT : 0));
	sleep_ns(5 * MS);
	ASSERT_EQ(0, close(q));
	new_queue_works(_metadata);
}

TEST(poll_reports_pollin_while_events_are_ready)
{
	int q = kevent_open(0);
	struct pollfd p = { .events = POLLIN | POLLRDNORM };
	struct ukevent ev;

	ASSERT_LE(0, q);
	p.fd = q;
	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, add_timer(q, 2 * MS, KEVENT_REQ_ONESHOT));
	/* poll() sleeps until the timer fires. */
	ASSERT_EQ(1, poll(&p, 1, 1000));
	EXPECT_EQ(POLLIN | POLLRDNORM, p.revents & (POLLIN | POLLRDNORM));
	ASSERT_EQ(1, kevent_get_events(q, 0, 1, 0, &ev, 0));
	p.revents = 0;
	EXPECT_EQ(0, poll(&p, 1, 0));
	close(q);
}

TEST(select_sees_the_queue_readable)
{
	int q = kevent_open(0);
	struct timeval tv = { 1, 0 };
	fd_set rd;

	ASSERT_LE(0, q);
	ASSERT_EQ(0, add_timer(q, 2 * MS, KEVENT_REQ_ONESHOT));
	FD_ZERO(&rd);
	FD_SET(q, &rd);
	ASSERT_EQ(1, select(q + 1, &rd, NULL, NULL, &tv));
	EXPECT_TRUE(FD_ISSET(q, &rd));
	close(q);
}

TEST(epoll_watches_the_queue)
{
	int q = kevent_open(0), ep = epoll_create1(0);
	struct epoll_event e = { .events = EPOLLIN }, out;

	ASSERT_LE(0, q);
	ASSERT_LE(0, ep);
	e.data.fd = q;
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, q, &e));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, add_timer(q, 2 * MS, KEVENT_REQ_ONESHOT));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 1000));
	EXPECT_EQ(q, out.data.fd);
	EXPECT_TRUE(out.events & EPOLLIN);
	close(ep);
	close(q);
}

/* Arm a 5 ms ONESHOT timer on @q, then fork: 0 in the child, its pid here. */
static pid_t fork_with_timer(struct __test_metadata *_metadata, int q)
{
	pid_t pid;

	ASSERT_EQ(0, add_timer(q, 5 * MS, KEVENT_REQ_ONESHOT));
	pid = fork();
	ASSERT_LE(0, pid);
	return pid;
}

/* After fork both processes share the queue: an event goes to one. */
TEST_F(queue, fork_shares_the_queue)
{
	int q = self->fd, status;
	struct ukevent ev;
	pid_t pid;

	pid = fork_with_timer(_metadata, q);
	if (pid == 0) {
		int n = kevent_get_events(q, 1, 1, 1000 * MS, &ev, 0);

		_exit(n == 1 && ev.id.raw[1] == 5 * MS ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The child took it. */
	EXPECT_EQ(0, kevent_get_events(q, 0, 1, 0, &ev, 0));
}

/* The child's close does not end the parent's queue. */
TEST_F(queue, fork_child_close_keeps_parent_queue)
{
	int q = self->fd, status;
	struct ukevent ev;
	pid_t pid;

	pid = fork_with_timer(_metadata, q);
	if (pid == 0)
		_exit(close(q));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(1, kevent_get_events(q, 1, 1, 1000 * MS, &ev, 0));
}

TEST(nonblock_get_events_never_waits)
{
	int q = kevent_open(O_NONBLOCK);
	struct ukevent ev;
	__u64 t0;

	ASSERT_LE(0, q);
	t0 = now_ns();
	EXPECT_EQ(0, kevent_get_events(q, 1, 1, 1000 * MS, &ev, 0));
	/* Far below the 1 s timeout, far above a loaded host's stall. */
	EXPECT_GT(slack(100 * MS), now_ns() - t0);
	ASSERT_EQ(0, add_timer(q, MS, KEVENT_REQ_ONESHOT));
	sleep_ns(3 * MS);
	wait_ready(q, 1);
	EXPECT_EQ(1, kevent_get_events(q, 1, 1, KEVENT_WAIT_FOREVER, &ev, 0));
	close(q);
}

TEST(nonblock_wait_never_waits)
{
	int q = kevent_open(O_NONBLOCK);
	static char mem[8 + 4 * sizeof(struct ukevent)] __attribute__((aligned(8)));
	__u64 t0, best, bound = slack(5 * MS);
	int i;

	ASSERT_LE(0, q);
	ASSERT_EQ(0, kevent_ring_init(q, (struct kevent_ring *)mem, 4));
	for_each_timing_try(i, best, bound) {
		t0 = now_ns();
		EXPECT_EQ(0, kevent_wait(q, 1, KEVENT_WAIT_FOREVER));
		best = fastest(best, now_ns() - t0, bound);
	}
	EXPECT_GT(bound, best);
	close(q);
}

TEST_HARNESS_MAIN
