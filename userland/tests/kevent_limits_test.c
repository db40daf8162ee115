// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: what bounds kevent's memory.  The per-user cap
 * (fs.kevent.max_user_kevents) fails entries past it with -ENOSPC; the
 * kevent slab is charged to the memory cgroup, so a group at memory.max gets
 * per-entry -ENOMEM (not an OOM kill) and the machine stays healthy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common.h"
#include "kselftest_harness.h"

#define SYSCTL	"/proc/sys/fs/kevent/max_user_kevents"
#define CGROOT	"/sys/fs/cgroup"
#define CG	CGROOT "/kevent-memcg"

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = 0;
	if (fd >= 0)
		close(fd);
	return buf[0] ? atol(buf) : -1;
}

TEST(max_user_kevents_default_is_large)
{
	/* 4% of low memory in kevents: tens of thousands on a 512 MB UML. */
	EXPECT_LT(10000, read_long(SYSCTL));
}

TEST(per_user_limit_fails_entries_past_it_enospc)
{
	long saved = read_long(SYSCTL);
	struct ukevent uk[12];
	int q = kevent_open(0), i, r;
	char buf[32];

	ASSERT_LE(0, q);
	ASSERT_LT(0, saved);
	for (i = 0; i < 12; i++) {
		uk[i] = kevent_timer(1000 * MS + i, 0);
		uk[i].user[0] = i;
	}
	ASSERT_EQ(0, write_file(SYSCTL, "10"));
	r = kevent_ctl(q, KEVENT_CTL_ADD, 12, uk);
	snprintf(buf, sizeof(buf), "%ld", saved);
	ASSERT_EQ(0, write_file(SYSCTL, buf));
	ASSERT_EQ(2, r);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(10U + i, uk[i].user[0]);
		EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[i].ret_flags);
		EXPECT_EQ(-ENOSPC, (int)uk[i].ret_data[1]);
	}
	/* Closing the queue gives the ten back: a new queue can add ten. */
	close(q);
	q = kevent_open(0);
	ASSERT_EQ(0, write_file(SYSCTL, "10"));
	for (i = 0; i < 10; i++)
		uk[i] = kevent_timer(1000 * MS + i, 0);
	r = kevent_ctl(q, KEVENT_CTL_ADD, 10, uk);
	ASSERT_EQ(0, write_file(SYSCTL, buf));
	EXPECT_EQ(0, r);
	close(q);
}

/* In a group with a small memory.max: add timers until an entry fails. */
static int fill_group(void)
{
	struct ukevent uk[256];
	int q, i, r;
	__u32 n = 0;

	if (write_file(CG "/cgroup.procs", "0"))
		return 3;
	q = kevent_open(0);
	if (q < 0)
		return errno == ENOMEM ? 0 : 4;
	while (n < 2000000) {
		for (i = 0; i < 256; i++)
			uk[i] = kevent_timer(1000 * MS + n++, 0);
		r = kevent_ctl(q, KEVENT_CTL_ADD, 256, uk);
		if (r < 0)
			return 5;
		for (i = 0; i < r; i++)
			if ((int)uk[i].ret_data[1] == -ENOMEM)
				return 0;
		if (r)
			return 6;
	}
	return 2;
}

/* Filling a group is slow in a debug kernel under QEMU: 120 s, not 30. */
FIXTURE(memcg) {};
FIXTURE_SETUP(memcg) {}
FIXTURE_TEARDOWN(memcg) {}

TEST_F_TIMEOUT(memcg, limit_fails_entries_enomem_no_oom_kill, 120)
{
	int status;
	pid_t pid;

	mkdir(CGROOT, 0755);
	if (mount("none", CGROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		SKIP(return, "no cgroup2 (CONFIG_MEMCG): %s", strerror(errno));
	if (write_file(CGROOT "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	ASSERT_EQ(0, mkdir(CG, 0755) && errno != EEXIST ? -1 : 0);
	ASSERT_EQ(0, write_file(CG "/memory.max", "8M"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(fill_group());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, rmdir(CG));

	/* A queue outside the group works. */
	new_queue_works(_metadata);
}

TEST_HARNESS_MAIN
