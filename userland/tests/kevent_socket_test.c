// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: KEVENT_SOCKET on TCP over loopback and AF_UNIX stream
 * sockets.  A server driven only by kevent accepts every one of N
 * connections (accepting until EAGAIN on each event); server and client
 * both driven by kevent echo; a FIN is
 * RECV with end of file; a reset and an AF_UNIX peer's close are broken
 * events; WAKEUP_ONE on a listener watched by one queue per thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "common.h"
#include "kselftest_harness.h"

#define CONNS	128

static int add1(int q, struct ukevent *uk)
{
	return kevent_ctl(q, KEVENT_CTL_ADD, 1, uk);
}

/* A non-blocking listener on 127.0.0.1, its address in @sin. */
static int tcp_listener(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)sin, sizeof(*sin)) ||
	    listen(s, 2 * CONNS) || getsockname(s, (struct sockaddr *)sin, &len))
		return -1;
	return s;
}

static int tcp_connect(const struct sockaddr_in *sin)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || connect(s, (const struct sockaddr *)sin, sizeof(*sin)))
		return -1;
	return s;
}

/* Accept until EAGAIN; the accepted sockets go to @fds. */
static int accept_all(int l, int *fds, int *n)
{
	int s, k = 0;

	while ((s = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		fds[(*n)++] = s;
		k++;
	}
	return errno == EAGAIN ? k : -1;
}

/* One accepted connection: the server's end in *srv, the client's in *cli. */
static void tcp_pair(struct __test_metadata *_metadata, int *srv, int *cli)
{
	struct sockaddr_in sin;
	int l = tcp_listener(&sin), q = kevent_open(0), n = 0;
	struct ukevent uk = kevent_socket(l, KEVENT_SOCKET_ACCEPT, 0);

	ASSERT_LE(0, l);
	ASSERT_EQ(0, add1(q, &uk));
	*cli = tcp_connect(&sin);
	ASSERT_LE(0, *cli);
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_SOCKET_ACCEPT, uk.ret_data[0]);
	ASSERT_EQ(1, accept_all(l, srv, &n));
	close(q);
	close(l);
}

struct clients {
	struct sockaddr_in sin;
	int fds[CONNS];
	int failed;
};

static void *connect_clients(void *arg)
{
	struct clients *c = arg;
	int i;

	for (i = 0; i < CONNS; i++) {
		c->fds[i] = tcp_connect(&c->sin);
		if (c->fds[i] < 0)
			c->failed++;
	}
	return NULL;
}

TEST(tcp_server_driven_by_kevent_accepts_all_connections)
{
	struct rlimit rl = { 4 * CONNS + 64, 4 * CONNS + 64 };
	static struct clients c;
	int l, q = kevent_open(0), srv[CONNS], n = 0, events = 0, i;
	struct ukevent uk;
	pthread_t t;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	l = tcp_listener(&c.sin);
	ASSERT_LE(0, l);
	uk = kevent_socket(l, KEVENT_SOCKET_ACCEPT, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	pthread_create(&t, NULL, connect_clients, &c);
	/* Only events tell the server to look. */
	while (n < CONNS &&
	       kevent_get_events(q, 1, 1, slack(2000 * MS), &uk, 0) == 1) {
		ASSERT_EQ(KEVENT_SOCKET_ACCEPT, uk.ret_data[0]);
		events++;
		ASSERT_LE(0, accept_all(l, srv, &n));
	}
	pthread_join(t, NULL);
	EXPECT_EQ(0, c.failed);
	EXPECT_EQ(CONNS, n);
	TH_LOG("%d connections, %d ACCEPT events", n, events);
	/* Nothing pending, nothing announced. */
	EXPECT_EQ(0, accept_all(l, srv, &n));
	for (i = 0; i < n; i++)
		close(srv[i]);
	for (i = 0; i < CONNS; i++)
		close(c.fds[i]);
	close(l);
	close(q);
}

TEST(tcp_echo_driven_by_kevent)
{
	int srv, cli, q = kevent_open(0), i;
	struct ukevent uk, s_uk, c_uk;
	char buf[64];

	tcp_pair(_metadata, &srv, &cli);
	ASSERT_EQ(0, fcntl(cli, F_SETFL, O_NONBLOCK));
	/* One queue for both ends: the server's RECV, the client's RECV. */
	s_uk = kevent_socket(srv, KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	c_uk = kevent_socket(cli, KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &s_uk));
	ASSERT_EQ(0, add1(q, &c_uk));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(6, write(cli, "hello", 6));
		ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
		EXPECT_EQ(srv, (int)uk.id.raw[0]);
		EXPECT_EQ(KEVENT_SOCKET_RECV, uk.ret_data[0]);
		EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
		ASSERT_EQ(6, read(srv, buf, sizeof(buf)));
		ASSERT_EQ(6, write(srv, buf, 6));
		ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
		EXPECT_EQ(cli, (int)uk.id.raw[0]);
		EXPECT_EQ(KEVENT_SOCKET_RECV, uk.ret_data[0]);
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(6, read(cli, buf, sizeof(buf)));
		EXPECT_STREQ("hello", buf);
		/* Nothing else is pending on either end. */
		EXPECT_EQ(0, kevent_get_events(q, 0, 1, 0, &uk, 0));
	}
	close(srv);
	close(cli);
	close(q);
}

TEST(tcp_fin_is_recv_with_end_of_file)
{
	int srv, cli, q = kevent_open(0);
	struct ukevent uk;
	char buf[8];

	tcp_pair(_metadata, &srv, &cli);
	uk = kevent_socket(srv, KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	ASSERT_EQ(0, shutdown(cli, SHUT_WR));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(KEVENT_SOCKET_RECV, uk.ret_data[0]);
	EXPECT_EQ(0, read(srv, buf, sizeof(buf)));
	close(srv);
	close(cli);
	close(q);
}

TEST(tcp_reset_is_a_broken_event)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int srv, cli, q = kevent_open(0);
	struct ukevent uk;

	tcp_pair(_metadata, &srv, &cli);
	uk = kevent_socket(srv, KEVENT_SOCKET_RECV, 0);
	ASSERT_EQ(0, add1(q, &uk));
	ASSERT_EQ(0, setsockopt(cli, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_EQ(0, close(cli));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-ECONNRESET, (int)uk.ret_data[1]);
	EXPECT_EQ(srv, (int)uk.id.raw[0]);
	close(srv);
	close(q);
}

TEST(unix_pair_data_then_peer_close_is_broken)
{
	int s[2], q = kevent_open(0);
	struct ukevent uk;
	char buf[8];

	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s));
	uk = kevent_socket(s[0], KEVENT_SOCKET_RECV, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	ASSERT_EQ(4, write(s[1], "data", 4));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(100 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(KEVENT_SOCKET_RECV, uk.ret_data[0]);
	EXPECT_EQ(4, read(s[0], buf, sizeof(buf)));
	ASSERT_EQ(0, close(s[1]));
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EPIPE, (int)uk.ret_data[1]);
	/* Broken and delivered: removed, nothing more, the key is free. */
	EXPECT_EQ(0, kevent_get_events(q, 0, 1, 10 * MS, &uk, 0));
	uk = kevent_socket(s[0], KEVENT_SOCKET_RECV, 0);
	EXPECT_EQ(0, kevent_ctl(q, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-ENOENT, (int)uk.ret_data[1]);
	close(s[0]);
	close(q);
}

TEST(unix_send_ready_when_room_comes_back)
{
	int s[2], q = kevent_open(0);
	struct ukevent uk;
	char buf[4096];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s));
	memset(buf, 'x', sizeof(buf));
	while (write(s[0], buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(EAGAIN, errno);
	uk = kevent_socket(s[0], KEVENT_SOCKET_SEND, KEVENT_REQ_ET);
	ASSERT_EQ(0, add1(q, &uk));
	EXPECT_EQ(0, kevent_get_events(q, 0, 1, 10 * MS, &uk, 0));
	while (read(s[1], buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(1, kevent_get_events(q, 1, 1, slack(1000 * MS), &uk, 0));
	EXPECT_EQ(KEVENT_SOCKET_SEND, uk.ret_data[0]);
	close(s[0]);
	close(s[1]);
	close(q);
}

TEST(not_a_socket_enotsock)
{
	int p[2], q = kevent_open(0);
	struct ukevent uk;

	ASSERT_EQ(0, pipe(p));
	uk = kevent_socket(p[0], KEVENT_SOCKET_RECV, 0);
	ASSERT_EQ(1, add1(q, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-ENOTSOCK, (int)uk.ret_data[1]);
	close(p[0]);
	close(p[1]);
	close(q);
}

struct acceptor {
	pthread_t t;
	int l;
	__u32 flags;
	pthread_barrier_t *ready;
	int got;
};

static void *wait_accept(void *arg)
{
	struct acceptor *a = arg;
	int q = kevent_open(0);
	struct ukevent uk = kevent_socket(a->l, KEVENT_SOCKET_ACCEPT, a->flags);

	if (q < 0 || add1(q, &uk))
		a->got = -1;
	pthread_barrier_wait(a->ready);
	if (a->got == 0)
		a->got = kevent_get_events(q, 1, 1, slack(300 * MS), &uk, 0);
	close(q);
	return NULL;
}

/* @n threads, each with its own queue on one listener; one client. */
static int acceptors_woken(int n, __u32 flags)
{
	struct acceptor a[8] = {};
	pthread_barrier_t ready;
	struct sockaddr_in sin;
	int l = tcp_listener(&sin), c, i, woken = 0;

	if (l < 0)
		return -1;
	pthread_barrier_init(&ready, NULL, n + 1);
	for (i = 0; i < n; i++) {
		a[i].l = l;
		a[i].flags = flags;
		a[i].ready = &ready;
		pthread_create(&a[i].t, NULL, wait_accept, &a[i]);
	}
	pthread_barrier_wait(&ready);
	sleep_ns(10 * MS);
	c = tcp_connect(&sin);
	for (i = 0; i < n; i++) {
		pthread_join(a[i].t, NULL);
		if (a[i].got < 0)
			return -1;
		woken += a[i].got;
	}
	close(c);
	close(l);
	return c < 0 ? -1 : woken;
}

TEST(wakeup_one_listener_reaches_one_of_four_queues)
{
	EXPECT_EQ(1, acceptors_woken(4, KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE));
}

TEST(without_wakeup_one_listener_reaches_all_four)
{
	EXPECT_EQ(4, acceptors_woken(4, KEVENT_REQ_ET));
}

TEST_HARNESS_MAIN
