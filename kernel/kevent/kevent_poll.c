// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the poll storage (KEVENT_POLL).
 *
 * id.raw[0] is an fd of any file with ->poll (pipe, eventfd, socket,
 * tty...; not a kevent queue nor an epoll instance); the event bits are
 * the POLL* values, at least one of them.  The file is not pinned: its
 * last close breaks the kevent (kevent_file.c).  ret_data[0] is the ready
 * mask: the bits of interest that wake-ups reported since the kevent was
 * last delivered.  POLLERR and POLLHUP are reported whether they were asked for
 * or not, as epoll does.  A kevent ready at ADD (data already in the pipe)
 * is answered by kevent_ctl() with its mask and not kept, as for every
 * storage.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/poll.h>
#include "kevent_file.h"

/* What a file can report: the event bits a POLL kevent may ask for. */
#define KEVENT_POLL_EVENTS						\
	((__force u32)(EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLERR | EPOLLHUP |	\
		       EPOLLRDNORM | EPOLLRDBAND | EPOLLWRNORM |		\
		       EPOLLWRBAND | EPOLLMSG | EPOLLRDHUP))

/* The bits of @mask that @k reports, added to its ready mask. */
static int kevent_poll_ready(struct kevent *k, __poll_t mask)
{
	u32 ready = (__force u32)mask & (k->event.event | POLLERR | POLLHUP);

	if (!ready)
		return 0;
	k->event.ret_data[0] |= ready;
	return 1;
}

static const struct kevent_file_ops kevent_poll_ops = {
	.ready	= kevent_poll_ready,
	.events	= KEVENT_POLL_EVENTS,
};

static int __init kevent_init_poll(void)
{
	return kevent_file_register(KEVENT_POLL, &kevent_poll_ops);
}
fs_initcall(kevent_init_poll);
