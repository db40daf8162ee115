// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: KEVENT_POLL on pipes and eventfds.  Readable and writable
 * edges in ET mode and in take23's sticky-DONE mode, ready at ADD,
 * POLLHUP reported unasked, files not pinned (the last close breaks the
 * kevent), WAKEUP_ONE across per-thread queues, and thousands of watched
 * pipes in one queue.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include "common.h"
#include "kselftest_harness.h"

static int add1(int q, struct ukevent *uk)
{
	return kevent_ctl(q, KEVENT_CTL_ADD, 1, uk);
}

FIXTURE(pipe) {
	int q;
	int p[2];
};

FIXTURE_SETUP(pipe)
{
	signal(SIGPIPE, SIG_IGN);
	self->q = kevent_open(0);
	ASSERT_LE(0, self->q);
	ASSERT_EQ(0, pipe2(self->p, O_NONBLOCK | O_CLOEXEC));
}

FIXTURE_TEARDOWN(pipe)
{
	close(self->q);
	close(self->p[0]);
	close(self->p[1]);
}

TEST_F(pipe, readable_edges_in_et_mode)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, KEVENT_REQ_ET);
	char buf[8];
	int i;

	ASSERT_EQ(0, add1(self->q, &uk));
	EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 0, &uk, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, write(self->p[1], "x", 1));
		ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
		EXPECT_EQ(KEVENT_POLL, uk.type);
		EXPECT_EQ(self->p[0], (int)uk.id.raw[0]);
		EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
		EXPECT_EQ(POLLIN, uk.ret_data[0]);
		EXPECT_EQ(0, uk.ret_data[1]);
		EXPECT_EQ(self->p[0], (int)uk.user[0]);
		/* No new edge: nothing more. */
		EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 0, &uk, 0));
	}
	EXPECT_EQ(3, read(self->p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 0, &uk, 0));
}

TEST_F(pipe, writable_edge_after_the_pipe_drains)
{
	struct ukevent uk;
	char buf[4096];
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	while (write(self->p[1], buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(EAGAIN, errno);
	uk = kevent_poll(self->p[1], POLLOUT, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(self->q, &uk));
	EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 10 * MS, &uk, 0));
	do
		n = read(self->p[0], buf, sizeof(buf));
	while (n > 0);
	ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(self->p[1], (int)uk.id.raw[0]);
	EXPECT_EQ(POLLOUT, uk.ret_data[0]);
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
}

TEST_F(pipe, sticky_done_requeued_by_every_wakeup)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, 0);
	int i;

	ASSERT_EQ(0, add1(self->q, &uk));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, write(self->p[1], "x", 1));
		ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
		/* DONE stays set between deliveries (take23's level mode). */
		EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
		EXPECT_EQ(POLLIN, uk.ret_data[0]);
		EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 0, &uk, 0));
	}
}

TEST_F(pipe, oneshot_fires_once_then_the_key_is_free)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, KEVENT_REQ_ONESHOT);

	ASSERT_EQ(0, add1(self->q, &uk));
	ASSERT_EQ(1, write(self->p[1], "x", 1));
	ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
	ASSERT_EQ(1, write(self->p[1], "x", 1));
	EXPECT_EQ(0, kevent_get_events(self->q, 0, 1, 10 * MS, &uk, 0));
	uk = kevent_poll(self->p[0], POLLIN, 0);
	EXPECT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-ENOENT, (int)uk.ret_data[1]);
}

TEST_F(pipe, ready_at_add_is_reported_and_not_kept)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN | POLLRDNORM, 0);

	ASSERT_EQ(1, write(self->p[1], "x", 1));
	ASSERT_EQ(1, add1(self->q, &uk));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(POLLIN | POLLRDNORM, uk.ret_data[0]);
	uk = kevent_poll(self->p[0], POLLIN, 0);
	EXPECT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(-ENOENT, (int)uk.ret_data[1]);
}

TEST_F(pipe, hangup_reported_even_if_not_asked)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, KEVENT_REQ_ET);

	ASSERT_EQ(0, add1(self->q, &uk));
	ASSERT_EQ(0, close(self->p[1]));
	self->p[1] = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(POLLHUP, uk.ret_data[0]);
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
}

TEST_F(pipe, closing_one_of_two_fds_changes_nothing)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, KEVENT_REQ_ET);
	int d = dup(self->p[0]);

	ASSERT_LE(0, d);
	ASSERT_EQ(0, add1(self->q, &uk));
	ASSERT_EQ(0, close(self->p[0]));
	self->p[0] = d;
	EXPECT_EQ(1, write(self->p[1], "x", 1));
	ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(POLLIN, uk.ret_data[0]);
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
}

TEST_F(pipe, last_close_breaks_the_kevent_and_frees_the_file)
{
	struct ukevent uk = kevent_poll(self->p[0], POLLIN, 0);

	ASSERT_EQ(0, add1(self->q, &uk));
	ASSERT_EQ(0, close(self->p[0]));
	/* The queue does not hold the reader: the pipe is broken at once. */
	EXPECT_EQ(-1, write(self->p[1], "x", 1));
	EXPECT_EQ(EPIPE, errno);
	ASSERT_EQ(1, kevent_get_events(self->q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EBADF, (int)uk.ret_data[1]);
	/* Delivered broken, then removed: the key is free. */
	uk = kevent_poll(self->p[0], POLLIN, 0);
	EXPECT_EQ(0, kevent_ctl(self->q, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(-ENOENT, (int)uk.ret_data[1]);
	self->p[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

TEST(eventfd_readable_and_writable)
{
	int q = kevent_open(0), e = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct ukevent uk;
	uint64_t v = 1;

	ASSERT_LE(0, q);
	ASSERT_LE(0, e);
	/* Counter 0: writable at once, not readable. */
	uk = kevent_poll(e, POLLOUT, 0);
	ASSERT_EQ(1, kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk));
	EXPECT_EQ(POLLOUT, uk.ret_data[0]);
	uk = kevent_poll(e, POLLIN, KEVENT_REQ_ET);
	ASSERT_EQ(0, kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk));
	ASSERT_EQ(8, write(e, &v, 8));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(POLLIN, uk.ret_data[0]);
	EXPECT_EQ(e, (int)uk.id.raw[0]);
	ASSERT_EQ(8, read(e, &v, 8));
	EXPECT_EQ(1, v);
	EXPECT_EQ(0, kevent_get_events(q, 0, 1, 0, &uk, 0));
	close(e);
	close(q);
}

TEST(bad_files_fail_the_entry)
{
	int q = kevent_open(0), q2 = kevent_open(0);
	struct ukevent uk[3];

	ASSERT_LE(0, q);
	uk[0] = kevent_poll(1000, POLLIN, 0);
	uk[1] = kevent_poll(q2, POLLIN, 0);		/* a queue */
	uk[2] = kevent_poll(open("/", O_RDONLY | O_DIRECTORY), POLLIN, 0);
	ASSERT_EQ(3, kevent_ctl(q, KEVENT_CTL_ADD, 3, uk));
	EXPECT_EQ(-EBADF, (int)uk[0].ret_data[1]);
	EXPECT_EQ(-EINVAL, (int)uk[1].ret_data[1]);
	EXPECT_EQ(-EPERM, (int)uk[2].ret_data[1]);
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[2].ret_flags);
	close(q2);
	close(q);
}

struct reader {
	pthread_t t;
	int fd;			/* the watched pipe */
	__u32 flags;
	pthread_barrier_t *ready;
	int got;
};

static void *read_events(void *arg)
{
	struct reader *r = arg;
	int q = kevent_open(0);
	struct ukevent uk = kevent_poll(r->fd, POLLIN, r->flags);

	if (q < 0 || kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk))
		r->got = -1;
	pthread_barrier_wait(r->ready);
	if (r->got == 0)
		r->got = kevent_get_events(q, 1, 1, slack(200 * MS), &uk, 0);
	close(q);
	return NULL;
}

/* Each of @n threads watches the pipe in its own queue; one write. */
static int readers_woken(int n, __u32 flags)
{
	struct reader r[8] = {};
	pthread_barrier_t ready;
	int p[2], i, woken = 0;

	if (pipe2(p, O_NONBLOCK))
		return -1;
	pthread_barrier_init(&ready, NULL, n + 1);
	for (i = 0; i < n; i++) {
		r[i].fd = p[0];
		r[i].flags = flags;
		r[i].ready = &ready;
		pthread_create(&r[i].t, NULL, read_events, &r[i]);
	}
	pthread_barrier_wait(&ready);
	sleep_ns(10 * MS);
	if (write(p[1], "x", 1) != 1)
		return -1;
	for (i = 0; i < n; i++) {
		pthread_join(r[i].t, NULL);
		if (r[i].got < 0)
			return -1;
		woken += r[i].got;
	}
	close(p[0]);
	close(p[1]);
	return woken;
}

TEST(wakeup_one_reaches_one_of_four_queues)
{
	EXPECT_EQ(1, readers_woken(4, KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE));
}

TEST(without_wakeup_one_all_four_queues)
{
	EXPECT_EQ(4, readers_woken(4, KEVENT_REQ_ET));
}

#define MANY	3000

TEST(thousands_of_watched_pipes)
{
	struct rlimit rl = { 2 * MANY + 64, 2 * MANY + 64 };
	static int p[MANY][2];
	static struct ukevent uk[MANY];
	int q = kevent_open(0), i, n, seen = 0;
	static char hit[MANY];
	char c;

	ASSERT_LE(0, q);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	for (i = 0; i < MANY; i++) {
		ASSERT_EQ(0, pipe2(p[i], O_NONBLOCK | O_CLOEXEC));
		uk[i] = kevent_poll(p[i][0], POLLIN, KEVENT_REQ_ET);
		uk[i].user[1] = i;
	}
	ASSERT_EQ(0, kevent_ctl(q, KEVENT_CTL_ADD, MANY, uk));
	/* Every 37th pipe gets a byte; exactly those are reported. */
	for (i = 0; i < MANY; i += 37)
		ASSERT_EQ(1, write(p[i][1], "x", 1));
	while ((n = kevent_get_events(q, 0, MANY, 0, uk, 0)) > 0) {
		for (i = 0; i < n; i++) {
			int j = uk[i].user[1];

			ASSERT_EQ(0, j % 37);
			ASSERT_EQ(0, hit[j]);
			ASSERT_EQ(p[j][0], (int)uk[i].id.raw[0]);
			hit[j] = 1;
			seen++;
			ASSERT_EQ(1, read(p[j][0], &c, 1));
		}
	}
	EXPECT_EQ((MANY + 36) / 37, seen);
	for (i = 0; i < MANY; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	close(q);
}

TEST_HARNESS_MAIN
