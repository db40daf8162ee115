/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Hostile cases: what an unprivileged caller can do to the kernel.  Each
 * runs in a child, as the user nobody, watched by the parent: the parent
 * measures its own system-call latency while the child does its worst,
 * then SIGKILL must end the child within a bound.  A child that does not
 * end is reported, not waited on; a case that wedges the kernel stops the
 * whole UML instead, which the harness reports as a hang.
 *
 * Include after kselftest_harness.h.
 */
#ifndef KEVENT_TEST_HOSTILE_H
#define KEVENT_TEST_HOSTILE_H

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "common.h"

#define NOBODY	65534

/* ns for @n getppid() calls. */
static inline __u64 syscall_time(int n)
{
	__u64 t0 = now_ns();
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return now_ns() - t0;
}

/*
 * Wait up to @bound ns for @pid to end; its status in *@status.  Returns
 * false when it has not ended by then (it is left behind, not waited on).
 */
static inline bool wait_child_within(pid_t pid, int *status, __u64 bound)
{
	__u64 t0 = now_ns();

	while (waitpid(pid, status, WNOHANG) != pid) {
		if (now_ns() - t0 > bound)
			return false;
		sleep_ns(MS);
	}
	return true;
}

/*
 * Run @fn as nobody in a child; once @fn says it has started its worst
 * (go_hostile(), or its return), the system must answer system calls
 * within @factor times their cost before (and 20 ms), and SIGKILL must
 * end the child within 200 ms.  watch_hostile(): a factor of 5, for a
 * child that holds kevents and sleeps.
 */
static int hostile_go = -1;

/* Tell the watcher that the hostile part has begun. */
static inline void go_hostile(void)
{
	char c = 0;

	if (hostile_go >= 0 && write(hostile_go, &c, 1) == 1) {
		close(hostile_go);
		hostile_go = -1;
	}
}

static inline void watch_hostile_busy(struct __test_metadata *_metadata,
				      void (*fn)(void), unsigned int factor)
{
	__u64 base, during, t0;
	int status, go[2];
	char c = 0;
	pid_t pid;

	base = syscall_time(1000);
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[0]);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		hostile_go = go[1];
		fn();
		go_hostile();
		for (;;)
			pause();
	}
	close(go[1]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	close(go[0]);
	sleep_ns(50 * MS);
	during = syscall_time(1000);
	EXPECT_GT(factor * base + slack(20 * MS), during) {
		TH_LOG("1000 getppid(): %llu us before, %llu us during",
		       base / 1000, during / 1000);
	}
	t0 = now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_TRUE(wait_child_within(pid, &status, slack(200 * MS))) {
		TH_LOG("SIGKILL did not end the child in %llu ms",
		       (unsigned long long)slack(200 * MS) / MS);
	}
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_GT(slack(200 * MS), now_ns() - t0);
}

static inline void watch_hostile(struct __test_metadata *_metadata,
				 void (*fn)(void))
{
	watch_hostile_busy(_metadata, fn, 5);
}

#endif
