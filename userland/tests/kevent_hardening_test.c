// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: what a hostile, unprivileged caller gets.  Each of the
 * defects once reproduced here (a kevent_wait() with num 0 that spun, a
 * kevent queue and an epoll fd watching each other, a 1 ns timer that
 * flooded the machine, a signalfd never reported, a fired ONESHOT timer
 * modified into a zombie, a queue kept alive by its own fd in flight) has
 * a test of the documented answer.  The hostile cases run in a child, as
 * the user nobody, watched by the parent: the parent keeps measuring its
 * own system-call latency, then SIGKILL must end the child within a
 * bound.  A case that wedges the kernel stops the whole UML instead, which
 * the harness reports as a hang.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "common.h"
#include "kselftest_harness.h"
#include "hostile.h"

static int add1(int q, struct ukevent *uk)
{
	return kevent_ctl(q, KEVENT_CTL_ADD, 1, uk);
}

/* A kevent queue @a and an epoll fd @e; every watch a caller may try. */
static void epoll_pair(struct __test_metadata *_metadata, int *a, int *e)
{
	*a = kevent_open(0);
	ASSERT_LE(0, *a);
	*e = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, *e);
}

/* POLL and SOCKET on an epoll fd: -EINVAL for the entry, nothing kept. */
TEST(epoll_fd_refused_one_level)
{
	struct ukevent uk;
	int a, e;

	epoll_pair(_metadata, &a, &e);
	uk = kevent_poll(e, POLLIN, 0);
	EXPECT_EQ(1, add1(a, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_socket(e, KEVENT_SOCKET_RECV, 0);
	EXPECT_EQ(1, add1(a, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	EXPECT_EQ(0, kevent_fdinfo(a, "kevents"));
	close(e);
	close(a);
}

/*
 * E watches A (allowed: epoll's side); A watching E is refused, so a
 * timer firing in A wakes E once and nothing recurses.
 */
TEST(epoll_cycle_cannot_be_built)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ukevent uk;
	int a, e;

	epoll_pair(_metadata, &a, &e);
	ASSERT_EQ(0, epoll_ctl(e, EPOLL_CTL_ADD, a, &ev));
	uk = kevent_poll(e, POLLIN, 0);
	EXPECT_EQ(1, add1(a, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_timer(1 * MS, KEVENT_REQ_ONESHOT);
	ASSERT_EQ(0, add1(a, &uk));
	EXPECT_EQ(1, epoll_wait(e, &ev, 1, 1000));
	EXPECT_EQ(EPOLLIN, ev.events);
	EXPECT_EQ(1, kevent_get_events(a, 1, 1, 0, &uk, 0));
	close(e);
	close(a);
}

/* A1 -> E1 -> A2 -> E2: each kevent link is refused. */
TEST(epoll_chain_cannot_be_built)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int a1, e1, a2, e2;
	struct ukevent uk;

	epoll_pair(_metadata, &a1, &e1);
	epoll_pair(_metadata, &a2, &e2);
	ASSERT_EQ(0, epoll_ctl(e1, EPOLL_CTL_ADD, a2, &ev));
	ASSERT_EQ(0, epoll_ctl(e2, EPOLL_CTL_ADD, a1, &ev));
	uk = kevent_poll(e1, POLLIN, 0);
	EXPECT_EQ(1, add1(a1, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_poll(e2, POLLIN, 0);
	EXPECT_EQ(1, add1(a2, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_timer(1 * MS, KEVENT_REQ_ONESHOT);
	ASSERT_EQ(0, add1(a2, &uk));
	EXPECT_EQ(1, epoll_wait(e1, &ev, 1, 1000));
	close(e1);
	close(e2);
	close(a1);
	close(a2);
}

/* kevent_wait() needs 0 < num < ring size; a ring needs two slots. */
TEST(kevent_wait_num_zero_einval_at_once)
{
	static struct {
		struct kevent_ring r;
		struct ukevent ev[4];
	} ring;
	int q = kevent_open(0);
	struct ukevent uk = kevent_timer(1 * MS, 0);
	__u64 t0;

	ASSERT_LE(0, q);
	EXPECT_EQ(-1, kevent_ring_init(q, &ring.r, 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, kevent_ring_init(q, &ring.r, 2));
	ASSERT_EQ(0, add1(q, &uk));
	sleep_ns(5 * MS);
	t0 = now_ns();
	EXPECT_EQ(-1, kevent_wait(q, 0, 300 * MS));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, kevent_wait(q, 0, KEVENT_WAIT_FOREVER));
	EXPECT_EQ(EINVAL, errno);
	/*
	 * At once: a kernel that waited would take the 300 ms timeout (the
	 * bound is not scaled for slow kernels, and leaves a host stall of
	 * 200 ms to two refused calls).
	 */
	EXPECT_GT(200 * MS, now_ns() - t0);
	EXPECT_EQ(1, kevent_wait(q, 1, 300 * MS));
	EXPECT_EQ(1U, ring.r.ring_kidx);
	close(q);
}

/*
 * A timer is not re-armed while an expiration waits undelivered; delivery
 * counts the periods missed meanwhile and re-arms it.  The count is judged
 * against the time that passed (about 55 ms: 4 to 6 periods), measured,
 * so a host that runs this UML late does not fail it.
 */
TEST(timer_delivery_counts_missed_periods_and_rearms)
{
	struct ukevent uk = kevent_timer(10 * MS, 0);
	int q = kevent_open(0);
	__u64 t0, t1, t2, t3;

	ASSERT_LE(0, q);
	t0 = now_ns();
	ASSERT_EQ(0, add1(q, &uk));
	t1 = now_ns();
	sleep_ns(55 * MS);
	t2 = now_ns();
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 0, &uk, 0));
	t3 = now_ns();
	/* Every period that surely passed, and no more than could have. */
	EXPECT_LE((t2 - t1) / (10 * MS) - 1, uk.ret_data[0]);
	EXPECT_GE((t3 - t0) / (10 * MS) + 1, uk.ret_data[0]);
	/* Re-armed at delivery: it fires again, counted from then on. */
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_LE(1U, uk.ret_data[0]);
	EXPECT_GE((now_ns() - t2) / (10 * MS) + 1, uk.ret_data[0]);
	close(q);
}

/* A 1 ns periodic timer left undelivered costs nothing. */
TEST(timer_one_ns_undelivered_does_not_flood)
{
	struct ukevent uk = kevent_timer(1, 0);
	__u64 base, with;
	int q = kevent_open(0);

	ASSERT_LE(0, q);
	base = syscall_time(2000);
	ASSERT_EQ(0, add1(q, &uk));
	with = syscall_time(2000);
	EXPECT_GT(5 * base + slack(20 * MS), with) {
		TH_LOG("2000 getppid(): %llu us without the timer, %llu us with it",
		       base / 1000, with / 1000);
	}
	/* (It fired long ago; a vCPU whose timer interrupt is late waits.) */
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 1000 * MS, &uk, 0));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_LT(1000U, uk.ret_data[0]);
	close(q);
}

/* A timer nobody can receive is refused; so is a POLL mask of nothing. */
TEST(event_mask_matching_nothing_einval)
{
	struct ukevent uk = kevent_timer(200 * 1000, KEVENT_REQ_ONESHOT);
	int q = kevent_open(0), p[2];

	ASSERT_LE(0, q);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	uk.event = 0x2;
	EXPECT_EQ(1, add1(q, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_poll(p[0], 0, 0);
	EXPECT_EQ(1, add1(q, &uk));
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	uk = kevent_timer(1000 * MS, 0);
	ASSERT_EQ(0, add1(q, &uk));
	uk.event = 0;
	EXPECT_EQ(0, kevent_ctl(q, KEVENT_CTL_MODIFY, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	EXPECT_EQ(1, kevent_fdinfo(q, "kevents"));
	close(p[0]);
	close(p[1]);
	close(q);
}

/*
 * signalfd wakes its readers without a key: the kevent is re-checked by
 * ->poll in the collecting task, which sees this task's signals.
 */
TEST(signalfd_signal_is_reported)
{
	struct signalfd_siginfo si;
	struct ukevent uk;
	sigset_t set;
	int q = kevent_open(0), sfd;

	ASSERT_LE(0, q);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	ASSERT_LE(0, sfd);
	uk = kevent_poll(sfd, POLLIN, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	ASSERT_EQ(0, kill(getpid(), SIGUSR1));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 500 * MS, &uk, 0));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(POLLIN, uk.ret_data[0]);
	ASSERT_EQ(sizeof(si), read(sfd, &si, sizeof(si)));
	EXPECT_EQ(SIGUSR1, (int)si.ssi_signo);
	/* Signalled and read before collection: found not ready, not sent. */
	ASSERT_EQ(0, kill(getpid(), SIGUSR1));
	ASSERT_EQ(sizeof(si), read(sfd, &si, sizeof(si)));
	EXPECT_EQ(0, kevent_get_events(q, 1, 1, 50 * MS, &uk, 0));
	close(sfd);
	close(q);
}

/*
 * MODIFY of a ONESHOT timer that fired but was not delivered, to
 * periodic: delivered DONE with its expiration, then periodic firings.
 */
TEST(modify_fired_oneshot_timer_to_periodic)
{
	struct ukevent uk = kevent_timer(2 * MS, KEVENT_REQ_ONESHOT), ev;
	int q = kevent_open(0), i;

	ASSERT_LE(0, q);
	ASSERT_EQ(0, add1(q, &uk));
	sleep_ns(10 * MS);
	uk.req_flags = 0;
	ASSERT_EQ(0, kevent_ctl(q, KEVENT_CTL_MODIFY, 1, &uk));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, &ev, 0));
		EXPECT_EQ(KEVENT_RET_DONE, ev.ret_flags);
		EXPECT_LE(1U, ev.ret_data[0]);
		EXPECT_EQ(0U, ev.req_flags);
	}
	EXPECT_EQ(1, kevent_fdinfo(q, "kevents"));
	close(q);
}

/*
 * Watched files are not pinned: a queue watching a socket that carries the
 * queue's own fd (SCM_RIGHTS) is freed when both are closed; the user's
 * kevent count returns to where it was.
 */
TEST(queue_in_flight_on_its_watched_socket_is_freed)
{
	char data = 'q', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	struct ukevent uk;
	int probe = kevent_open(0), q = kevent_open(0), s[2];
	long before;

	ASSERT_LE(0, probe);
	ASSERT_LE(0, q);
	before = kevent_fdinfo(probe, "user_kevents");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s));
	uk = kevent_poll(s[0], POLLIN, 0);
	ASSERT_EQ(0, add1(q, &uk));
	uk = kevent_timer(1000 * MS, 0);
	ASSERT_EQ(0, add1(q, &uk));
	EXPECT_EQ(before + 2, kevent_fdinfo(probe, "user_kevents"));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &q, sizeof(int));
	ASSERT_EQ(1, sendmsg(s[1], &msg, 0));
	close(q);
	close(s[1]);
	close(s[0]);
	/* The last close is synchronous; the unix GC may run a little later. */
	sleep_ns(50 * MS);
	EXPECT_EQ(before, kevent_fdinfo(probe, "user_kevents"));
	close(probe);
}

/* The last close of a watched file breaks its kevent: -EBADF, then gone. */
TEST(last_close_of_watched_file_breaks_kevent)
{
	struct ukevent uk;
	int q = kevent_open(0), p[2], d;

	ASSERT_LE(0, q);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK));
	uk = kevent_poll(p[0], POLLIN, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	d = dup(p[0]);
	ASSERT_LE(0, d);
	/* One of two fds: nothing changes. */
	ASSERT_EQ(0, close(p[0]));
	EXPECT_EQ(0, kevent_get_events(q, 1, 1, 0, &uk, 0));
	ASSERT_EQ(1, write(p[1], "x", 1));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	/* The last: broken, and the pipe has no reader at once. */
	ASSERT_EQ(0, close(d));
	signal(SIGPIPE, SIG_IGN);
	EXPECT_EQ(-1, write(p[1], "x", 1));
	EXPECT_EQ(EPIPE, errno);
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, &uk, 0));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EBADF, (int)uk.ret_data[1]);
	EXPECT_EQ(0, kevent_fdinfo(q, "kevents"));
	close(p[1]);
	close(q);
}

/* Counters in fdinfo, and closing queues writes nothing to the log. */
TEST(fdinfo_shows_counters_and_close_logs_nothing)
{
	struct ukevent uk[3];
	char *log = malloc(1 << 20);
	int q = kevent_open(0), p[2], i, n;

	ASSERT_LE(0, q);
	ASSERT_NE(NULL, log);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_EQ(1, write(p[1], "x", 1));
	uk[0] = kevent_timer(1 * MS, KEVENT_REQ_ONESHOT);
	uk[1] = kevent_timer(1000 * MS, 0);
	uk[2] = kevent_poll(p[0], POLLIN, 0);	/* ready at once */
	ASSERT_EQ(1, kevent_ctl(q, KEVENT_CTL_ADD, 3, uk));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, 100 * MS, uk, 0));
	EXPECT_EQ(1, kevent_fdinfo(q, "kevents"));
	EXPECT_EQ(0, kevent_fdinfo(q, "ready"));
	EXPECT_EQ(3, kevent_fdinfo(q, "added"));
	EXPECT_EQ(1, kevent_fdinfo(q, "immediately"));
	EXPECT_EQ(1, kevent_fdinfo(q, "delivered"));
	EXPECT_EQ(0, kevent_fdinfo(q, "ring"));
	EXPECT_LE(1, kevent_fdinfo(q, "user_kevents"));
	close(q);

	n = klogctl(3, log, 1 << 20);	/* SYSLOG_ACTION_READ_ALL */
	ASSERT_LE(0, n);
	for (i = 0; i < 100; i++)
		close(kevent_open(0));
	i = klogctl(3, log, (1 << 20) - 1);
	ASSERT_LE(0, i);
	log[i] = 0;
	EXPECT_EQ(NULL, strstr(log, "kevent: queue"));
	close(p[0]);
	close(p[1]);
	free(log);
}

/* A waiter without limit ends at SIGKILL at once. */
TEST(sigkill_ends_a_waiter_without_limit)
{
	int q = kevent_open(0), status;
	struct ukevent uk;
	__u64 t0;
	pid_t pid;

	ASSERT_LE(0, q);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		kevent_get_events(q, 1, 1, KEVENT_WAIT_FOREVER, &uk, 0);
		_exit(1);
	}
	sleep_ns(20 * MS);
	t0 = now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_GT(slack(100 * MS), now_ns() - t0);
	close(q);
}

/*
 * Not kevent's: UML's flush_tlb_mm() walked another process's VMAs with
 * no lock when a file it maps shared was truncated (the debug kernel
 * printed "suspicious RCU usage"; kernel/patches/0014).  Truncated while
 * a child maps it, the page is gone for the child too: SIGBUS.  The debug
 * run's log check sees any report.
 */
TEST(truncating_a_shared_mapping_while_a_child_maps_it)
{
	int round, status, fd, up[2], down[2];
	volatile char *p;
	char c = 0;
	pid_t pid;

	for (round = 0; round < 50; round++) {
		fd = memfd_create("shared", MFD_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ftruncate(fd, 4096));
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, p);
		p[0] = 1;
		ASSERT_EQ(0, pipe2(up, O_CLOEXEC));
		ASSERT_EQ(0, pipe2(down, O_CLOEXEC));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			p[0] = 2;
			if (write(up[1], &c, 1) != 1 ||
			    read(down[0], &c, 1) != 1)
				_exit(3);
			p[0] = 3;	/* truncated meanwhile: SIGBUS */
			_exit(4);
		}
		ASSERT_EQ(1, read(up[0], &c, 1));
		EXPECT_EQ(0, ftruncate(fd, 0));
		ASSERT_EQ(1, write(down[1], &c, 1));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) {
			TH_LOG("round %d: the child ended with status 0x%x",
			       round, status);
		}
		munmap((void *)p, 4096);
		close(up[0]);
		close(up[1]);
		close(down[0]);
		close(down[1]);
		close(fd);
	}
}

/* The hostile cases, each done by an unprivileged child. */

static void hostile_wait_num_zero(void)
{
	static struct {
		struct kevent_ring r;
		struct ukevent ev[2];
	} ring;
	struct ukevent uk = kevent_timer(1 * MS, 0);
	int q = kevent_open(0);

	kevent_ring_init(q, &ring.r, 1);
	kevent_ring_init(q, &ring.r, 2);
	add1(q, &uk);
	sleep_ns(5 * MS);
	kevent_wait(q, 0, KEVENT_WAIT_FOREVER);
}

static void hostile_epoll_cycle(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int a = kevent_open(0), e = epoll_create1(0);
	struct ukevent uk;

	epoll_ctl(e, EPOLL_CTL_ADD, a, &ev);
	uk = kevent_poll(e, POLLIN, 0);
	add1(a, &uk);
	uk = kevent_timer(1 * MS, 0);
	add1(a, &uk);
}

static void hostile_timer_flood(void)
{
	struct ukevent uk = kevent_timer(1, 0);

	add1(kevent_open(0), &uk);
}

static void hostile_timer_without_fired(void)
{
	struct ukevent uk = kevent_timer(200 * 1000, KEVENT_REQ_ONESHOT);

	uk.event = 0x2;
	add1(kevent_open(0), &uk);
}

TEST(hostile_kevent_wait_num_zero_unprivileged)
{
	watch_hostile(_metadata, hostile_wait_num_zero);
}

TEST(hostile_epoll_cycle_unprivileged)
{
	watch_hostile(_metadata, hostile_epoll_cycle);
}

TEST(hostile_one_ns_timer_unprivileged)
{
	watch_hostile(_metadata, hostile_timer_flood);
}

TEST(hostile_timer_nobody_receives_unprivileged)
{
	watch_hostile(_metadata, hostile_timer_without_fired);
}

TEST_HARNESS_MAIN
