// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the socket storage (KEVENT_SOCKET) on AF_UNIX stream pairs and
 * TCP over loopback, created in-kernel: RECV, ACCEPT, SEND, a FIN as RECV,
 * a reset and a peer's close as a broken event, accept-until-EAGAIN with
 * coalesced ACCEPT events, WAKEUP_ONE on a listener.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/in.h>
#include <linux/poll.h>
#include <net/sock.h>
#include <net/net_namespace.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"
#include "kevent_file_test.h"

#define SEC		NSEC_PER_SEC
#define KSOCK_CONNS	8

struct ksock_tcp {
	struct socket	*listener;
	int		lfd;
	struct sockaddr_in addr;
	struct socket	*accepted[KSOCK_CONNS];
	int		nr_accepted;
};

static int ksock_sock_fd(struct kunit *test, struct socket *sock)
{
	return kf_fd(test, sock_alloc_file(sock, O_NONBLOCK, NULL));
}

static void ksock_unix_pair(struct kunit *test, int fds[2])
{
	struct socket *a, *b;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_UNIX, SOCK_STREAM,
					       0, &a), 0);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_UNIX, SOCK_STREAM,
					       0, &b), 0);
	KUNIT_ASSERT_EQ(test, a->ops->socketpair(a, b), 0);
	fds[0] = ksock_sock_fd(test, a);
	fds[1] = ksock_sock_fd(test, b);
}

/* Loopback is down until someone brings it up; the tests do. */
static int ksock_init(struct kunit *test)
{
	struct net_device *dev;
	int err;

	rtnl_lock();
	dev = __dev_get_by_name(&init_net, "lo");
	err = dev ? dev_change_flags(dev, dev->flags | IFF_UP, NULL) : -ENODEV;
	rtnl_unlock();
	if (err)
		return err;
	return kf_init(test);
}

static void ksock_tcp_listen(struct kunit *test, struct ksock_tcp *t)
{
	struct socket *s;

	memset(t, 0, sizeof(*t));
	t->addr.sin_family = AF_INET;
	t->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(s, (struct sockaddr *)&t->addr,
					  sizeof(t->addr)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(s, 64), 0);
	KUNIT_ASSERT_GT(test, kernel_getsockname(s, (struct sockaddr *)&t->addr),
			0);
	t->listener = s;
	t->lfd = ksock_sock_fd(test, s);
}

/* A connected client, as an fd. */
static int ksock_tcp_connect(struct kunit *test, struct ksock_tcp *t,
			     struct socket **out)
{
	struct socket *s;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	KUNIT_ASSERT_EQ(test, kernel_connect(s, (struct sockaddr *)&t->addr,
					     sizeof(t->addr), 0), 0);
	if (out)
		*out = s;
	return ksock_sock_fd(test, s);
}

/* Accept until EAGAIN; returns how many were accepted. */
static int ksock_tcp_accept_all(struct kunit *test, struct ksock_tcp *t)
{
	struct socket *s;
	int n = 0;

	while (!kernel_accept(t->listener, &s, O_NONBLOCK)) {
		KUNIT_ASSERT_LT(test, t->nr_accepted, KSOCK_CONNS);
		t->accepted[t->nr_accepted++] = s;
		n++;
	}
	return n;
}

static void ksock_tcp_release(struct ksock_tcp *t)
{
	while (t->nr_accepted)
		sock_release(t->accepted[--t->nr_accepted]);
}

/* The server side of one connection, as an fd; the client in *client. */
static int ksock_tcp_pair(struct kunit *test, struct ksock_tcp *t,
			  struct socket **client, int *cfd)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;

	ksock_tcp_listen(test, t);
	uk = kf_uk(KEVENT_SOCKET, t->lfd, KEVENT_SOCKET_ACCEPT, KEVENT_REQ_ONESHOT);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	*cfd = ksock_tcp_connect(test, t, client);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_ASSERT_EQ(test, ksock_tcp_accept_all(test, t), 1);
	t->nr_accepted = 0;	/* the fd owns it now */
	return ksock_sock_fd(test, t->accepted[0]);
}

/*
 * A unix socket pair @s, watched for RECV on s[0] in queue 0: not ready
 * until @len bytes are written to s[1], then collected into @uk.
 */
static void ksock_watched_pair_written(struct kunit *test, struct kf_ctx *c,
				       int s[2], struct ukevent *uk, size_t len)
{
	ksock_unix_pair(test, s);
	*uk = kf_uk(KEVENT_SOCKET, s[0], KEVENT_SOCKET_RECV, 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, uk), 0);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	KUNIT_ASSERT_EQ(test, kf_write(s[1], len), (ssize_t)len);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, uk), 1L);
}

static void kevent_socket_unix_recv_on_data(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int s[2];

	ksock_watched_pair_written(test, c, s, &uk, 5);
	KUNIT_EXPECT_EQ(test, uk.type, (u32)KEVENT_SOCKET);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)KEVENT_SOCKET_RECV);
	KUNIT_EXPECT_EQ(test, uk.ret_data[1], 0U);
	KUNIT_EXPECT_EQ(test, kf_read(s[0], 64), 5L);
}

static void kevent_socket_unix_peer_close_breaks(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int s[2];

	ksock_watched_pair_written(test, c, s, &uk, 1);
	KUNIT_EXPECT_EQ(test, kf_read(s[0], 64), 1L);
	kf_close(test, s[1]);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -EPIPE);
	/* A broken kevent is removed once delivered: nothing more comes. */
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	KUNIT_EXPECT_EQ(test, kf_remove(c, 0, &uk), -ENOENT);
}

/* What an ADD answers in its entry, by what the fd is. */
enum ksock_target { KS_UNIX, KS_UNIX_PEER_GONE, KS_PIPE, KS_NOT_OPEN };

struct ksock_add_case {
	const char		*name;
	enum ksock_target	target;
	u32			event;
	int			ret;		/* kf_add()'s answer */
	u32			ret_flags;
	u32			data0;
	int			err;		/* ret_data[1] */
};

#define KS_FAILED	(KEVENT_RET_BROKEN | KEVENT_RET_DONE)

static const struct ksock_add_case ksock_add_cases[] = {
	{ "send_ready_reported_not_kept", KS_UNIX,
	  KEVENT_SOCKET_SEND | KEVENT_SOCKET_RECV, 1, KEVENT_RET_DONE,
	  KEVENT_SOCKET_SEND, 0 },
	{ "pipe_enotsock", KS_PIPE, KEVENT_SOCKET_RECV, -ENOTSOCK, KS_FAILED,
	  0, -ENOTSOCK },
	{ "fd_not_open_ebadf", KS_NOT_OPEN, KEVENT_SOCKET_RECV, -EBADF,
	  KS_FAILED, 0, -EBADF },
	{ "peer_gone_broken_epipe", KS_UNIX_PEER_GONE, KEVENT_SOCKET_RECV,
	  -EPIPE, KS_FAILED, 0, -EPIPE },
};

static void ksock_add_desc(const struct ksock_add_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(ksock_add, ksock_add_cases, ksock_add_desc);

/* An ADD answered at once is answered in its entry, and nothing is kept. */
static void kevent_socket_add_answered_at_once(struct kunit *test)
{
	const struct ksock_add_case *t = test->param_value;
	struct kf_ctx *c = test->priv;
	int fds[2], fd = 1000;
	struct ukevent uk;

	if (t->target == KS_PIPE)
		kf_pipe(test, fds);
	else if (t->target != KS_NOT_OPEN)
		ksock_unix_pair(test, fds);
	if (t->target == KS_UNIX_PEER_GONE)
		kf_close(test, fds[1]);
	if (t->target != KS_NOT_OPEN)
		fd = fds[0];
	uk = kf_uk(KEVENT_SOCKET, fd, t->event, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), t->ret);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, t->ret_flags);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], t->data0);
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], t->err);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 0U);
}

static void kevent_socket_tcp_accept_until_eagain(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	int i, accepted = 0, events = 0;
	struct ukevent uk;
	struct ksock_tcp t;

	ksock_tcp_listen(test, &t);
	uk = kf_uk(KEVENT_SOCKET, t.lfd, KEVENT_SOCKET_ACCEPT, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	for (i = 0; i < KSOCK_CONNS; i++)
		ksock_tcp_connect(test, &t, NULL);
	/* Driven by events only: accept until EAGAIN after each one. */
	while (accepted < KSOCK_CONNS && kf_get(test, c, 0, SEC, &uk) == 1) {
		KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)KEVENT_SOCKET_ACCEPT);
		events++;
		accepted += ksock_tcp_accept_all(test, &t);
	}
	KUNIT_EXPECT_EQ(test, accepted, KSOCK_CONNS);
	/* Coalesced: fewer events than connections, and none left over. */
	KUNIT_EXPECT_LE(test, events, KSOCK_CONNS);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	ksock_tcp_release(&t);
}

/* The server end of a TCP pair, watched for RECV in queue 0 with @flags. */
static int ksock_tcp_watched(struct kunit *test, struct kf_ctx *c,
			     struct ksock_tcp *t, struct socket **client,
			     int *cfd, u32 flags)
{
	int sfd = ksock_tcp_pair(test, t, client, cfd);
	struct ukevent uk = kf_uk(KEVENT_SOCKET, sfd, KEVENT_SOCKET_RECV, flags);

	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	return sfd;
}

static void kevent_socket_tcp_fin_is_recv(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct socket *client;
	struct ukevent uk;
	struct ksock_tcp t;
	int sfd, cfd;

	sfd = ksock_tcp_watched(test, c, &t, &client, &cfd, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(client, SHUT_WR), 0);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)KEVENT_SOCKET_RECV);
	/* End of file. */
	KUNIT_EXPECT_EQ(test, kf_read(sfd, 64), 0L);
}

static void kevent_socket_tcp_reset_breaks(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct socket *client;
	struct ukevent uk;
	struct ksock_tcp t;
	int cfd;

	ksock_tcp_watched(test, c, &t, &client, &cfd, 0);
	/* Linger 0: close sends a reset. */
	sock_no_linger(client->sk);
	kf_close(test, cfd);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -ECONNRESET);
}

static void kevent_socket_wakeup_one_on_listener(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	unsigned int qi, ready = 0;
	struct ukevent uk;
	struct ksock_tcp t;

	ksock_tcp_listen(test, &t);
	uk = kf_uk(KEVENT_SOCKET, t.lfd, KEVENT_SOCKET_ACCEPT,
		   KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_ASSERT_EQ(test, kf_add(c, qi, &uk), 0);
	ksock_tcp_connect(test, &t, NULL);
	/* Wait for the handshake's last step, on any queue. */
	for (qi = 0; qi < 100 && !ready; qi++) {
		usleep_range(10000, 11000);
		ready = kevent_queue_ready_num(c->q[0]) +
			kevent_queue_ready_num(c->q[1]) +
			kevent_queue_ready_num(c->q[2]);
	}
	KUNIT_EXPECT_EQ(test, ready, 1U);
	KUNIT_EXPECT_EQ(test, ksock_tcp_accept_all(test, &t), 1);
	ksock_tcp_release(&t);
}

static void kevent_socket_without_wakeup_one_reaches_all(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	unsigned int qi;
	struct ksock_tcp t;

	ksock_tcp_listen(test, &t);
	uk = kf_uk(KEVENT_SOCKET, t.lfd, KEVENT_SOCKET_ACCEPT, KEVENT_REQ_ET);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_ASSERT_EQ(test, kf_add(c, qi, &uk), 0);
	ksock_tcp_connect(test, &t, NULL);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_EXPECT_EQ(test, kf_get(test, c, qi, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, ksock_tcp_accept_all(test, &t), 1);
	ksock_tcp_release(&t);
}

static void kevent_socket_and_poll_are_two_keys(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk, got[2];
	int s[2], i;

	ksock_unix_pair(test, s);
	uk = kf_uk(KEVENT_SOCKET, s[0], KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	uk = kf_uk(KEVENT_POLL, s[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(s[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 2U);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &got[0]), 1L);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &got[1]), 1L);
	KUNIT_EXPECT_NE(test, got[0].type, got[1].type);
	for (i = 0; i < 2; i++) {
		if (got[i].type == KEVENT_SOCKET)
			KUNIT_EXPECT_EQ(test, got[i].ret_data[0],
					(u32)KEVENT_SOCKET_RECV);
		else
			KUNIT_EXPECT_EQ(test, got[i].ret_data[0], (u32)POLLIN);
	}
}

static void kevent_socket_modify_rechecks(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int s[2];

	ksock_unix_pair(test, s);
	uk = kf_uk(KEVENT_SOCKET, s[0], KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	/* Now asking for room to write, which there is. */
	uk.event = KEVENT_SOCKET_SEND;
	KUNIT_ASSERT_EQ(test, kf_modify(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)KEVENT_SOCKET_SEND);
}

static struct kunit_case kevent_socket_cases[] = {
	KUNIT_CASE(kevent_socket_unix_recv_on_data),
	KUNIT_CASE(kevent_socket_unix_peer_close_breaks),
	KUNIT_CASE_PARAM(kevent_socket_add_answered_at_once,
			 ksock_add_gen_params),
	KUNIT_CASE(kevent_socket_tcp_accept_until_eagain),
	KUNIT_CASE(kevent_socket_tcp_fin_is_recv),
	KUNIT_CASE(kevent_socket_tcp_reset_breaks),
	KUNIT_CASE(kevent_socket_wakeup_one_on_listener),
	KUNIT_CASE(kevent_socket_without_wakeup_one_reaches_all),
	KUNIT_CASE(kevent_socket_and_poll_are_two_keys),
	KUNIT_CASE(kevent_socket_modify_rechecks),
	{}
};

static struct kunit_suite kevent_socket_suite = {
	.name = "kevent_socket",
	.init = ksock_init,
	.exit = kf_exit,
	.test_cases = kevent_socket_cases,
};

kunit_test_suite(kevent_socket_suite);
