/* SPDX-License-Identifier: GPL-2.0+ WITH Linux-syscall-note */
/*
 * kevent: the unified kernel event queue, user-space ABI.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 *
 * Layout-compatible with take23 on x86_64: struct ukevent is 40 bytes and
 * 8-byte aligned; struct kevent_ring's events start at offset 8.
 * Syscalls (x86_64): kevent_get_events 463, kevent_ctl 464, kevent_wait 465,
 * kevent_ring_init 466.  A queue is an fd of /dev/kevent.
 */
#ifndef _UAPI_LINUX_UKEVENT_H
#define _UAPI_LINUX_UKEVENT_H

#include <linux/types.h>

/* Request flags (ukevent.req_flags). */
#define KEVENT_REQ_ONESHOT	0x1	/* deliver once, then remove */
#define KEVENT_REQ_WAKEUP_ONE	0x2	/* one queue per notification */
#define KEVENT_REQ_ET		0x4	/* edge-triggered */

/* Return flags (ukevent.ret_flags). */
#define KEVENT_RET_BROKEN	0x1	/* failed: ret_data[1] = -errno */
#define KEVENT_RET_DONE		0x2	/* ready, or processed */
#define KEVENT_RET_COPY_FAILED	0x4

/* Types (ukevent.type). */
#define KEVENT_SOCKET		0
#define KEVENT_INODE		1
#define KEVENT_TIMER		2
#define KEVENT_POLL		3
#define KEVENT_NAIO		4
#define KEVENT_AIO		5
#define KEVENT_MAX		6

/* Timer events. */
#define KEVENT_TIMER_FIRED	0x1

/* Socket events. */
#define KEVENT_SOCKET_RECV	0x1
#define KEVENT_SOCKET_ACCEPT	0x2
#define KEVENT_SOCKET_SEND	0x4

/* Inode events. */
#define KEVENT_INODE_CREATE	0x1
#define KEVENT_INODE_REMOVE	0x2

/* Poll events: the POLL* values. */
#define KEVENT_POLL_POLLIN	0x0001
#define KEVENT_POLL_POLLPRI	0x0002
#define KEVENT_POLL_POLLOUT	0x0004
#define KEVENT_POLL_POLLERR	0x0008
#define KEVENT_POLL_POLLHUP	0x0010
#define KEVENT_POLL_POLLNVAL	0x0020
#define KEVENT_POLL_POLLRDNORM	0x0040
#define KEVENT_POLL_POLLRDBAND	0x0080
#define KEVENT_POLL_POLLWRNORM	0x0100
#define KEVENT_POLL_POLLWRBAND	0x0200
#define KEVENT_POLL_POLLMSG	0x0400
#define KEVENT_POLL_POLLREMOVE	0x1000

/* Asynchronous IO events. */
#define KEVENT_AIO_BIO		0x1

#define KEVENT_MASK_ALL		0xffffffff
#define KEVENT_MASK_EMPTY	0x0

/* kevent_get_events() / kevent_wait() timeout: wait without limit. */
#define KEVENT_WAIT_FOREVER	(~0ULL)

struct kevent_id {
	union {
		__u32		raw[2];
		__aligned_u64	raw_u64;
	};
};

struct ukevent {
	/* Id of this request: fd, timer period... (key with type). */
	struct kevent_id	id;
	/* Event type: KEVENT_SOCKET, KEVENT_TIMER... */
	__u32			type;
	/* Events of interest: KEVENT_TIMER_FIRED... */
	__u32			event;
	/* KEVENT_REQ_* */
	__u32			req_flags;
	/* KEVENT_RET_*, written by the kernel */
	__u32			ret_flags;
	/* Written by the kernel: type-specific data, -errno in [1] */
	__u32			ret_data[2];
	/* The application's own data, copied back untouched. */
	union {
		__u32		user[2];
		void		*ptr;
	};
};

struct kevent_ring {
	__u32			ring_kidx;	/* next slot the kernel fills */
	struct ukevent		event[];
};

/* kevent_ctl() commands. */
#define KEVENT_CTL_ADD		0
#define KEVENT_CTL_REMOVE	1
#define KEVENT_CTL_MODIFY	2

#endif /* _UAPI_LINUX_UKEVENT_H */
