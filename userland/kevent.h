/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent syscall wrappers for applications, the tests and the tools.
 * Build against the kernel's installed uapi headers (make headers_install):
 * <linux/ukevent.h> has the ABI, <asm/unistd.h> the syscall numbers.
 */
#ifndef KEVENT_USER_H
#define KEVENT_USER_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/ukevent.h>

#ifndef __NR_kevent_get_events
#define __NR_kevent_get_events	463
#define __NR_kevent_ctl		464
#define __NR_kevent_wait	465
#define __NR_kevent_ring_init	466
#endif

static inline int kevent_open(int flags)
{
	return open("/dev/kevent", O_RDWR | O_CLOEXEC | flags);
}

static inline int kevent_ctl(int fd, unsigned int cmd, unsigned int num,
			     struct ukevent *arg)
{
	return syscall(__NR_kevent_ctl, fd, cmd, num, arg);
}

static inline int kevent_get_events(int fd, unsigned int min_nr,
				    unsigned int max_nr, __u64 timeout,
				    struct ukevent *buf, unsigned int flags)
{
	return syscall(__NR_kevent_get_events, fd, min_nr, max_nr, timeout,
		       buf, flags);
}

static inline int kevent_wait(int fd, unsigned int num, __u64 timeout)
{
	return syscall(__NR_kevent_wait, fd, num, timeout);
}

static inline int kevent_ring_init(int fd, struct kevent_ring *ring,
				   unsigned int num)
{
	return syscall(__NR_kevent_ring_init, fd, ring, num);
}

/*
 * A value of the queue's /proc/self/fdinfo/FD (kevents, ready,
 * user_kevents, added, immediately, delivered, ring), or -1.
 */
static inline long kevent_fdinfo(int fd, const char *key)
{
	char path[64], line[128];
	size_t len = strlen(key);
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			val = atol(line + len + 1);
	fclose(f);
	return val;
}

/* A timer request: period @ns nanoseconds. */
static inline struct ukevent kevent_timer(__u64 ns, __u32 req_flags)
{
	struct ukevent uk = {
		.type = KEVENT_TIMER,
		.event = KEVENT_TIMER_FIRED,
		.req_flags = req_flags,
	};

	uk.id.raw[0] = ns / 1000000000ULL;
	uk.id.raw[1] = ns % 1000000000ULL;
	return uk;
}

/* A POLL request on @fd for the POLL* bits @events. */
static inline struct ukevent kevent_poll(int fd, __u32 events,
					 __u32 req_flags)
{
	struct ukevent uk = {
		.type = KEVENT_POLL,
		.event = events,
		.req_flags = req_flags,
	};

	uk.id.raw[0] = fd;
	uk.user[0] = fd;
	return uk;
}

/* A SOCKET request on @fd for KEVENT_SOCKET_RECV/ACCEPT/SEND. */
static inline struct ukevent kevent_socket(int fd, __u32 events,
					   __u32 req_flags)
{
	struct ukevent uk = kevent_poll(fd, events, req_flags);

	uk.type = KEVENT_SOCKET;
	return uk;
}

#endif /* KEVENT_USER_H */
