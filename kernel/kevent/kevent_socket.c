// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the socket storage (KEVENT_SOCKET).
 *
 * id.raw[0] is a socket fd.  KEVENT_SOCKET_RECV: data or end of file to
 * read (a TCP FIN makes RECV ready); KEVENT_SOCKET_ACCEPT: a connection
 * waits on a listening socket; KEVENT_SOCKET_SEND: room to write.
 * ret_data[0] is the socket event bits that became ready since the kevent
 * was last delivered.  An error or a hang-up the socket reports (POLLERR,
 * POLLHUP: a TCP reset, an AF_UNIX peer closing, both directions shut)
 * breaks the kevent: KEVENT_RET_BROKEN with ret_data[1] = -sk_err, or
 * -EPIPE for a hang-up without an error.  A socket that is already broken
 * (or, for TCP, neither connected nor listening) fails the ADD that way.
 *
 * Where the 2006 series hooked sock_def_readable() and friends and TCP's
 * request queue, this storage sits on the socket's wait queue like epoll
 * (kevent_file.c), so no socket code changes: every wake-up of the socket
 * reaches it.  A listener wakes its wait queue for each connection it
 * queues for accept(), so with coalescing (accept until EAGAIN) no
 * connection waits without an ACCEPT event to announce it.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <net/sock.h>
#include "kevent_file.h"

static int kevent_socket_check(struct file *file)
{
	return sock_from_file(file) ? 0 : -ENOTSOCK;
}

static u32 kevent_socket_event(__poll_t mask)
{
	u32 event = 0;

	if (mask & (EPOLLIN | EPOLLRDNORM | EPOLLRDHUP))
		event |= KEVENT_SOCKET_RECV | KEVENT_SOCKET_ACCEPT;
	if (mask & (EPOLLOUT | EPOLLWRNORM))
		event |= KEVENT_SOCKET_SEND;
	return event;
}

/* >0 ready, 0 not, <0 broken (ret_data[1] set). */
static int kevent_socket_ready(struct kevent *k, __poll_t mask)
{
	u32 ready;

	if (mask & (EPOLLERR | EPOLLHUP)) {
		struct socket *sock = sock_from_file(kevent_file_of(k));
		int err = READ_ONCE(sock->sk->sk_err);

		k->event.ret_data[1] = err ? -err : -EPIPE;
		return -1;
	}
	ready = kevent_socket_event(mask) & k->event.event;
	if (!ready)
		return 0;
	k->event.ret_data[0] |= ready;
	return 1;
}

static const struct kevent_file_ops kevent_socket_ops = {
	.check	= kevent_socket_check,
	.event	= kevent_socket_event,
	.ready	= kevent_socket_ready,
	.events	= KEVENT_SOCKET_RECV | KEVENT_SOCKET_ACCEPT | KEVENT_SOCKET_SEND,
};

static int __init kevent_init_socket(void)
{
	return kevent_file_register(KEVENT_SOCKET, &kevent_socket_ops);
}
fs_initcall(kevent_init_socket);
