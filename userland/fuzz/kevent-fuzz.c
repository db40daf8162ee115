// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent-fuzz: a seeded, replayable, multi-threaded system-call fuzzer for
 * kevent, run inside the debug UML (./run_tests.sh --fuzz).
 *
 * After a short setup as root (it opens /dev/kmsg to watch the kernel
 * log), it becomes an unprivileged user and runs worker threads, each
 * with its own PRNG seeded from (seed, thread), doing random operations
 * on a shared table of objects: kevent queues (with rings), pipes,
 * eventfds, signalfds, AF_UNIX pairs, loopback TCP listeners and
 * connections, epoll fds, closed and reused fd numbers.  The operations:
 * the four system calls with valid and invalid arguments (every cmd, num
 * 0/1/many/huge, every type, every flag, timer periods from 1 ns to
 * seconds, min_nr/max_nr/timeouts at their edges, ring sizes at their
 * edges, bad pointers: NULL, unmapped, read-only, misaligned, kernel
 * half); closing and reopening objects while others use them; I/O,
 * shutdowns and signals on watched objects; munmap/mprotect of a ring
 * others wait on; dup, fork and SCM_RIGHTS passing of queues; signals
 * interrupting waits.
 *
 * Oracles, each of which ends the run with a FINDING line: a kernel report
 * in /dev/kmsg; a watchdog thread whose own wake-up latency passes a bound
 * (a kernel that stops answering); a canary ONESHOT timer, armed over and
 * over on a private queue, that does not arrive (a lost event); workers
 * that do not finish after the budget (a hang); at the end, the user's
 * kevent count not back to 0 once everything is closed (a leak), and a
 * fresh queue that does not deliver a timer exactly once.  The host adds
 * its own: the log check (kmemleak included), the boot timeout.
 *
 * Each thread keeps its last operations in a ring; a finding prints them.
 * --trace prints every operation before it runs instead (slow; for the
 * reducer's final replay, where a kernel crash leaves nothing else).
 *
 * Usage: kevent-fuzz [--seed N] [--ops N] [--time SEC] [--threads N]
 *                    [--kinds MASK] [--uid UID] [--trace]
 * Exit status: 0 ok, 1 a finding, 2 bad arguments or setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../kevent.h"

#define MS		1000000ULL
#define NOBJ		48
#define MAXTHREADS	8
#define LOGN		24
#define KADDR		((void *)0xffff800000000000UL)

/* Operation kinds; --kinds selects a subset (bit n = kind n). */
enum {
	K_ADD, K_REMOVE, K_MODIFY, K_GET, K_RING, K_WAIT, K_CHURN, K_IO,
	K_RINGMEM, K_PASS, K_FORK, K_SIGNAL, K_NR
};

static const char *const kind_name[K_NR] = {
	"add", "remove", "modify", "get", "ring_init", "wait", "churn", "io",
	"ringmem", "pass", "fork", "signal",
};

enum {
	O_NONE, O_QUEUE, O_PIPE_R, O_PIPE_W, O_EVENTFD, O_SIGNALFD, O_UNIX,
	O_TCP_LISTEN, O_TCP, O_EPOLL, O_KINDS
};

struct obj {
	int fd;
	int kind;
	void *ring;		/* a queue's ring mapping */
	size_t ring_len;
};

static struct obj objs[NOBJ];
static pthread_mutex_t objs_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long seed = 1, budget = 100000;
static unsigned int nthreads = 4, kinds = (1u << K_NR) - 1, scale = 1;
static double time_limit = 60;
static int trace, uid = 65534, tcp_port;
static volatile int stop, finding, joined, started;
static int canary = -1;
static unsigned long long ops_done;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int kmsg = -1;

/* Memory the pointer arguments come from. */
static char *rw_mem, *ro_mem, *none_mem;
#define MEMLEN	(64 * 1024)

struct thr {
	pthread_t t;
	int idx;
	unsigned long long rng;
	unsigned long long ops;
	char log[LOGN][112];
	unsigned int logpos;
	struct ukevent buf[65];	/* one spare: the misaligned pointer */
};

static struct thr thr[MAXTHREADS];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* xorshift64*: the same sequence for the same (seed, thread). */
static unsigned long long rnd(struct thr *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ULL;
}

static unsigned int below(struct thr *t, unsigned int n)
{
	return n ? rnd(t) % n : 0;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	va_start(ap, fmt);
	fputs("kevent-fuzz: ", stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
	pthread_mutex_unlock(&out_lock);
}

/* Record the operation about to run (and print it with --trace). */
static void note(struct thr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct thr *t, const char *fmt, ...)
{
	char *line = t->log[t->logpos++ % LOGN];
	int n;
	va_list ap;

	n = snprintf(line, 112, "t%d #%llu ", t->idx, t->ops);
	va_start(ap, fmt);
	vsnprintf(line + n, 112 - n, fmt, ap);
	va_end(ap);
	if (trace)
		say("op %s", line);
}

static void dump_logs(void)
{
	unsigned int i, j;

	say("last operations of each thread (oldest first):");
	for (i = 0; i < nthreads; i++) {
		struct thr *t = &thr[i];
		unsigned int n = t->logpos < LOGN ? t->logpos : LOGN;

		for (j = 0; j < n; j++)
			say("  %s", t->log[(t->logpos - n + j) % LOGN]);
	}
}

static void found(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void found(const char *what, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	if (__sync_lock_test_and_set(&finding, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	say("FINDING %s: %s (seed %llu)", what, detail, seed);
	dump_logs();
	stop = 1;
}

/* A random object's fd (possibly closed, possibly reused), or a junk fd. */
static int pick_fd(struct thr *t, int want)
{
	unsigned int i, start = below(t, NOBJ);

	switch (below(t, 16)) {
	case 0:
		return -1;
	case 1:
		return 1000 + below(t, 50);	/* not open */
	case 2:
		return objs[start].fd;		/* any kind */
	}
	for (i = 0; i < NOBJ; i++) {
		struct obj *o = &objs[(start + i) % NOBJ];

		if (o->kind == want && o->fd >= 0)
			return o->fd;
	}
	return objs[start].fd;
}

static int pick_queue(struct thr *t)
{
	return pick_fd(t, O_QUEUE);
}

/* A pointer for an argument: mostly good, sometimes bad in every way. */
static void *pick_ptr(struct thr *t, void *good)
{
	switch (below(t, 24)) {
	case 0: return NULL;
	case 1: return none_mem;
	case 2: return ro_mem;
	case 3: return (char *)good + 1;	/* misaligned */
	case 4: return KADDR;
	case 5: return rw_mem + MEMLEN - 20;	/* runs off the end */
	default: return good;
	}
}

static unsigned int pick_num(struct thr *t, unsigned int max)
{
	switch (below(t, 10)) {
	case 0: return 0;
	case 1: return 0xffffffffu;
	case 2: return 1u << below(t, 31);
	case 3: return max + 1;
	default: return 1 + below(t, max);
	}
}

static __u64 pick_timeout(struct thr *t)
{
	switch (below(t, 12)) {
	case 0: return KEVENT_WAIT_FOREVER;
	case 1: return 1;
	case 2: return ~0ULL >> 1;	/* past KTIME_MAX: forever in effect */
	case 3: return 5 * MS;
	case 4: return below(t, 5) * MS;
	default: return 0;
	}
}

static void pick_id(struct thr *t, struct ukevent *uk)
{
	static const __u64 periods[] = {
		1, 2, 1000, 50000, 1 * MS, 3 * MS, 10 * MS, 1000 * MS,
		5000 * MS,
	};
	__u64 p;

	if (uk->type == KEVENT_TIMER) {
		switch (below(t, 8)) {
		case 0:
			uk->id.raw[0] = below(t, 3);
			uk->id.raw[1] = rnd(t);	/* maybe past 999999999 */
			return;
		case 1:
			uk->id.raw_u64 = 0;
			return;
		default:
			p = periods[below(t, sizeof(periods) / sizeof(periods[0]))];
			uk->id.raw[0] = p / 1000000000ULL;
			uk->id.raw[1] = p % 1000000000ULL;
			return;
		}
	}
	uk->id.raw[0] = pick_fd(t, below(t, O_KINDS));
	uk->id.raw[1] = below(t, 4) ? 0 : rnd(t);
}

static void pick_uk(struct thr *t, struct ukevent *uk)
{
	static const __u32 types[] = {
		KEVENT_TIMER, KEVENT_TIMER, KEVENT_POLL, KEVENT_POLL,
		KEVENT_SOCKET, KEVENT_INODE, KEVENT_AIO, KEVENT_MAX, 77,
		0xffffffffu,
	};

	memset(uk, 0, sizeof(*uk));
	uk->type = types[below(t, sizeof(types) / sizeof(types[0]))];
	switch (below(t, 6)) {
	case 0: uk->event = 0; break;
	case 1: uk->event = 0xffffffffu; break;
	case 2: uk->event = 1u << below(t, 32); break;
	case 3: uk->event = rnd(t); break;
	default:
		uk->event = uk->type == KEVENT_TIMER ? KEVENT_TIMER_FIRED :
			    uk->type == KEVENT_POLL ? POLLIN | POLLOUT :
			    KEVENT_SOCKET_RECV | KEVENT_SOCKET_SEND |
			    KEVENT_SOCKET_ACCEPT;
	}
	uk->req_flags = below(t, 10) ? below(t, 8) : rnd(t);
	if (below(t, 16) == 0)
		uk->ret_flags = rnd(t);
	pick_id(t, uk);
	uk->user[0] = t->idx;
	uk->user[1] = t->ops;
}

/* Fill the first n entries of the thread's buffer; returns the buffer. */
static struct ukevent *fill(struct thr *t, unsigned int n)
{
	unsigned int i;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		pick_uk(t, &t->buf[i]);
	return t->buf;
}

static void op_ctl(struct thr *t, unsigned int cmd)
{
	int q = pick_queue(t);
	unsigned int num = pick_num(t, 64), c = cmd;
	void *arg;

	if (below(t, 20) == 0)
		c = below(t, 2) ? 3 + below(t, 5) : rnd(t);
	/* More than the thread's buffer holds: the guarded area instead. */
	fill(t, num);
	arg = pick_ptr(t, num > 64 ? (void *)rw_mem : t->buf);
	note(t, "ctl q=%d cmd=%u num=%u arg=%p type0=%u ev0=%#x fl0=%#x id0=%u:%u",
	     q, c, num, arg, t->buf[0].type, t->buf[0].event,
	     t->buf[0].req_flags, t->buf[0].id.raw[0], t->buf[0].id.raw[1]);
	kevent_ctl(q, c, num, arg);
}

static void op_get(struct thr *t)
{
	int q = pick_queue(t);
	unsigned int max = pick_num(t, 64), min = below(t, 4) ? below(t, 3) : pick_num(t, 64);
	__u64 to = pick_timeout(t);
	unsigned int flags = below(t, 30) ? 0 : 1 + below(t, 4);
	void *buf = pick_ptr(t, max > 64 ? (void *)rw_mem : t->buf);

	note(t, "get q=%d min=%u max=%u timeout=%llu buf=%p flags=%u",
	     q, min, max, (unsigned long long)to, buf, flags);
	kevent_get_events(q, min, max, to, buf, flags);
}

/*
 * A ring the fuzzer lets go of: its addresses become inaccessible for
 * good instead of unmapped, so a queue that still names them (dup, fork,
 * in flight) gets EFAULT and never writes into memory reused since.
 */
static void retire(void *mem, size_t len)
{
	mmap(mem, len, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS |
	     MAP_NORESERVE, -1, 0);
}

static struct obj *obj_of(int fd)
{
	unsigned int i;

	for (i = 0; i < NOBJ; i++)
		if (objs[i].fd == fd)
			return &objs[i];
	return NULL;
}

static void op_ring(struct thr *t)
{
	int q = pick_queue(t);
	unsigned int num;
	size_t len;
	void *mem;
	struct obj *o;

	switch (below(t, 6)) {
	case 0: num = 0; break;
	case 1: num = 1; break;
	case 2: num = 0xffffffffu; break;
	case 3: num = 2; break;
	default: num = 2 + below(t, 200);
	}
	/* One spare byte: the misaligned pointer. */
	len = 9 + (size_t)(num < 4096 ? num : 16) * sizeof(struct ukevent);
	len = (len + 4095) & ~4095UL;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
	note(t, "ring_init q=%d num=%u mem=%p len=%zu", q, num, mem, len);
	if (kevent_ring_init(q, pick_ptr(t, mem), num)) {
		munmap(mem, len);	/* no queue took it */
		return;
	}
	pthread_mutex_lock(&objs_lock);
	o = obj_of(q);
	if (o && o->kind == O_QUEUE && !o->ring) {
		o->ring = mem;
		o->ring_len = len;
		mem = NULL;
	}
	pthread_mutex_unlock(&objs_lock);
	/* Registered on a queue no slot tracks: the ring goes under it. */
	if (mem)
		retire(mem, len);
}

static void op_wait(struct thr *t)
{
	int q = pick_queue(t);
	unsigned int num = below(t, 5) ? below(t, 20) : pick_num(t, 300);
	__u64 to = pick_timeout(t);

	note(t, "wait q=%d num=%u timeout=%llu", q, num, (unsigned long long)to);
	kevent_wait(q, num, to);
}

/* Ring memory changes under waiters: munmap, mprotect, or back. */
static void op_ringmem(struct thr *t)
{
	struct obj *o = &objs[below(t, NOBJ)];
	unsigned int how = below(t, 3);

	pthread_mutex_lock(&objs_lock);
	if (o->kind == O_QUEUE && o->ring) {
		note(t, "ringmem fd=%d ring=%p how=%u", o->fd, o->ring, how);
		if (how == 0) {
			retire(o->ring, o->ring_len);
			o->ring = NULL;
		} else {
			mprotect(o->ring, o->ring_len,
				 how == 1 ? PROT_READ : PROT_READ | PROT_WRITE);
		}
	}
	pthread_mutex_unlock(&objs_lock);
}

static int tcp_connect(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(tcp_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (s >= 0)
		connect(s, (struct sockaddr *)&a, sizeof(a));
	return s;
}

/* Open a new object of a random kind into slot @o (objs_lock held). */
static void obj_open(struct thr *t, struct obj *o)
{
	int fds[2] = { -1, -1 }, kind = 1 + below(t, O_KINDS - 1);
	sigset_t set;

	switch (kind) {
	case O_QUEUE:
		fds[0] = kevent_open(below(t, 4) ? 0 : O_NONBLOCK);
		break;
	case O_PIPE_R:
	case O_PIPE_W:
		if (!pipe2(fds, O_NONBLOCK | O_CLOEXEC)) {
			close(fds[kind == O_PIPE_R]);
			fds[0] = fds[kind == O_PIPE_W];
		}
		break;
	case O_EVENTFD:
		fds[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		break;
	case O_SIGNALFD:
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		fds[0] = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
		break;
	case O_UNIX:
		if (!socketpair(AF_UNIX, (below(t, 2) ? SOCK_STREAM : SOCK_DGRAM) |
				SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds))
			close(fds[1]);
		break;
	case O_TCP_LISTEN: {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fds[0] >= 0 && (bind(fds[0], (struct sockaddr *)&a, sizeof(a)) ||
				    listen(fds[0], 8))) {
			close(fds[0]);
			fds[0] = -1;
		}
		break;
	}
	case O_TCP:
		fds[0] = tcp_connect();
		break;
	case O_EPOLL:
		fds[0] = epoll_create1(EPOLL_CLOEXEC);
		break;
	}
	o->fd = fds[0];
	o->kind = fds[0] >= 0 ? kind : O_NONE;
}

/* Close a random slot (others may be using the fd) and open another. */
static void op_churn(struct thr *t)
{
	struct obj *o = &objs[below(t, NOBJ)];
	int how = below(t, 4), fd;

	pthread_mutex_lock(&objs_lock);
	fd = o->fd;
	note(t, "churn slot=%ld fd=%d kind=%d how=%d", (long)(o - objs), fd, o->kind, how);
	if (how == 0 && fd >= 0) {
		/* dup2 another object over it: the number now names another file. */
		int other = objs[below(t, NOBJ)].fd;

		if (other >= 0 && other != fd && dup2(other, fd) == fd) {
			o->kind = obj_of(other) ? obj_of(other)->kind : O_NONE;
			if (o->ring) {
				retire(o->ring, o->ring_len);
				o->ring = NULL;
			}
			pthread_mutex_unlock(&objs_lock);
			return;
		}
	}
	if (fd >= 0)
		close(fd);
	if (o->ring) {
		if (below(t, 2))
			retire(o->ring, o->ring_len);	/* else leave it mapped */
		o->ring = NULL;
	}
	o->fd = -1;
	o->kind = O_NONE;
	if (how != 1)
		obj_open(t, o);
	pthread_mutex_unlock(&objs_lock);
}

/* I/O and state changes on watched objects. */
static void op_io(struct thr *t)
{
	struct obj *o = &objs[below(t, NOBJ)];
	int fd = o->fd, kind = o->kind;
	char buf[512];
	__u64 v = 1;

	note(t, "io fd=%d kind=%d", fd, kind);
	switch (kind) {
	case O_PIPE_W:
	case O_UNIX:
	case O_TCP:
		if (below(t, 3))
			send(fd, buf, 1 + below(t, sizeof(buf)), MSG_DONTWAIT | MSG_NOSIGNAL);
		else if (below(t, 2))
			write(fd, buf, 1 + below(t, sizeof(buf)));
		else
			shutdown(fd, below(t, 3));
		/* fall through */
	case O_PIPE_R:
		read(fd, buf, below(t, sizeof(buf)));
		break;
	case O_EVENTFD:
		if (below(t, 2))
			write(fd, &v, sizeof(v));
		else
			read(fd, &v, sizeof(v));
		break;
	case O_SIGNALFD:
		if (below(t, 2))
			kill(getpid(), SIGUSR2);
		else
			read(fd, buf, sizeof(struct signalfd_siginfo));
		break;
	case O_TCP_LISTEN:
		if (below(t, 2)) {
			int s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (s >= 0)
				close(s);
		} else {
			struct sockaddr_in a;
			socklen_t l = sizeof(a);
			int s;

			if (getsockname(fd, (struct sockaddr *)&a, &l))
				break;
			s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (s >= 0) {
				connect(s, (struct sockaddr *)&a, sizeof(a));
				close(s);	/* a reset or a FIN for the listener */
			}
		}
		break;
	case O_EPOLL: {
		struct epoll_event ev = { .events = EPOLLIN };

		epoll_ctl(fd, below(t, 3) ? EPOLL_CTL_ADD : EPOLL_CTL_DEL,
			  pick_fd(t, O_QUEUE), &ev);
		epoll_wait(fd, &ev, 1, 0);
		break;
	}
	case O_QUEUE: {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 0);
		break;
	}
	}
}

/* Pass a queue over an AF_UNIX pair and take it back (or leave it in flight). */
static void op_pass(struct thr *t)
{
	char data = 'k', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	int q = pick_queue(t), s = pick_fd(t, O_UNIX);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	note(t, "pass q=%d over=%d", q, s);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &q, sizeof(int));
	sendmsg(s, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (below(t, 2)) {
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(s, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) > 0 &&
		    (cm = CMSG_FIRSTHDR(&msg)) && cm->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(cm), sizeof(int));
			close(got);
		}
	}
}

/* A child shares the queues: a few operations, then it exits (or dies). */
static void op_fork(struct thr *t)
{
	int q = pick_queue(t), status;
	struct ukevent uk = kevent_timer(1 + below(t, 3) * MS, KEVENT_REQ_ONESHOT);
	pid_t pid;

	note(t, "fork q=%d", q);
	pid = fork();
	if (pid == 0) {
		kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk);
		kevent_get_events(q, 0, 1, below(t, 3) * MS, &uk, 0);
		if (below(t, 2))
			kill(getpid(), SIGKILL);
		_exit(0);
	}
	if (pid > 0) {
		if (below(t, 2))
			kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

static void op_signal(struct thr *t)
{
	struct thr *to = &thr[below(t, nthreads)];

	note(t, "signal t%d", to->idx);
	pthread_kill(to->t, SIGUSR1);
}

/*
 * How often each kind runs, relative to the others: the system calls most,
 * fork (milliseconds in UML) and the memory games least.
 */
static const unsigned int kind_weight[K_NR] = {
	[K_ADD] = 8, [K_REMOVE] = 4, [K_MODIFY] = 4, [K_GET] = 6, [K_RING] = 2,
	[K_WAIT] = 3, [K_CHURN] = 3, [K_IO] = 6, [K_RINGMEM] = 1, [K_PASS] = 1,
	[K_FORK] = 1, [K_SIGNAL] = 1,
};

static void one_op(struct thr *t)
{
	unsigned int k, total = 0, r;

	for (k = 0; k < K_NR; k++)
		if (kinds & (1u << k))
			total += kind_weight[k];
	r = below(t, total);
	for (k = 0; k < K_NR; k++) {
		if (!(kinds & (1u << k)))
			continue;
		if (r < kind_weight[k])
			break;
		r -= kind_weight[k];
	}

	switch (k) {
	case K_ADD: op_ctl(t, KEVENT_CTL_ADD); break;
	case K_REMOVE: op_ctl(t, KEVENT_CTL_REMOVE); break;
	case K_MODIFY: op_ctl(t, KEVENT_CTL_MODIFY); break;
	case K_GET: op_get(t); break;
	case K_RING: op_ring(t); break;
	case K_WAIT: op_wait(t); break;
	case K_CHURN: op_churn(t); break;
	case K_IO: op_io(t); break;
	case K_RINGMEM: op_ringmem(t); break;
	case K_PASS: op_pass(t); break;
	case K_FORK: op_fork(t); break;
	case K_SIGNAL: op_signal(t); break;
	}
}

static void *worker(void *arg)
{
	struct thr *t = arg;
	unsigned long long share = budget / nthreads;

	while (!started)	/* every thread exists before any signals one */
		sched_yield();
	while (!stop && t->ops < share) {
		one_op(t);
		t->ops++;
		__sync_fetch_and_add(&ops_done, 1);
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;	/* only to interrupt system calls */
}

/* Kernel reports, as check_log.sh knows them. */
static const char *const report_pattern[] = {
	"BUG:", "WARNING:", "Oops", "UBSAN:", "KASAN:", "possible recursive locking",
	"possible circular locking", "inconsistent lock state", "INFO: task ",
	"suspicious RCU usage", "unreferenced object", "list_add corruption",
	"list_del corruption", "ODEBUG:", "Kernel panic", "rcu_sched detected stall",
	"rcu: INFO:",
};

static void check_kmsg(void)
{
	char rec[2048];
	unsigned int i;
	ssize_t n;

	if (kmsg < 0)
		return;
	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = 0;
		for (i = 0; i < sizeof(report_pattern) / sizeof(report_pattern[0]); i++)
			if (strstr(rec, report_pattern[i])) {
				char *msg = strchr(rec, ';');

				found("kernel-report", "%.200s", msg ? msg + 1 : rec);
				return;
			}
	}
}

/* The watchdog: its own wake-up latency, the canary timer, the kernel log. */
static void *watchdog(void *arg)
{
	unsigned long long limit = 2000 * MS * scale, t0, late;
	struct ukevent uk;
	int q = canary;

	(void)arg;
	while (!stop) {
		struct timespec ts = { 0, 100 * MS };

		t0 = now_ns();
		nanosleep(&ts, NULL);
		late = now_ns() - t0;
		if (late > limit) {
			found("stall", "the watchdog slept 100 ms and woke after %llu ms",
			      late / MS);
			break;
		}
		check_kmsg();
		uk = kevent_timer(1 * MS, KEVENT_REQ_ONESHOT);
		if (kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk) != 0) {
			found("lost-event", "canary ADD failed: %d %s", uk.ret_data[1],
			      strerror(errno));
			break;
		}
		if (kevent_get_events(q, 1, 1, limit, &uk, 0) != 1 ||
		    uk.ret_flags != KEVENT_RET_DONE) {
			if (stop)
				break;
			found("lost-event", "the canary 1 ms timer did not arrive within %llu ms",
			      limit / MS);
			break;
		}
	}
	return NULL;
}

/* Sends SIGUSR1 now and then, so waits without limit end. */
static void *interrupter(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (!started)
		sched_yield();
	while (!joined) {
		struct timespec ts = { 0, 5 * MS };

		nanosleep(&ts, NULL);
		pthread_kill(thr[i++ % nthreads].t, SIGUSR1);
	}
	return NULL;
}

/* After everything is closed: no kevent left, and a timer once. */
static void final_checks(void)
{
	struct ukevent uk = kevent_timer(2 * MS, KEVENT_REQ_ONESHOT);
	int q = kevent_open(0), i, left = -1;

	if (q < 0) {
		found("sanity", "cannot open /dev/kevent: %s", strerror(errno));
		return;
	}
	/* Closing is synchronous; in-flight fds and RCU may lag a little. */
	for (i = 0; i < 50 && left; i++) {
		struct timespec ts = { 0, 20 * MS };

		left = kevent_fdinfo(q, "user_kevents");
		if (left)
			nanosleep(&ts, NULL);
	}
	if (left)
		found("leak", "user %d still has %d kevents after closing everything", uid, left);
	if (kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk) != 0 ||
	    kevent_get_events(q, 1, 1, 1000 * MS * scale, &uk, 0) != 1 ||
	    uk.ret_flags != KEVENT_RET_DONE || uk.ret_data[0] != 1 ||
	    kevent_get_events(q, 1, 1, 20 * MS, &uk, 0) != 0)
		found("sanity", "a fresh queue did not deliver a ONESHOT timer exactly once");
	close(q);
}

static int usage(void)
{
	fprintf(stderr, "usage: kevent-fuzz [--seed N] [--ops N] [--time SEC] [--threads N] "
		"[--kinds MASK] [--uid UID] [--trace]\n  kinds:");
	for (int k = 0; k < K_NR; k++)
		fprintf(stderr, " %d=%s", k, kind_name[k]);
	fputc('\n', stderr);
	return 2;
}

int main(int argc, char **argv)
{
	pthread_t wd, intr;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long t0;
	const char *s = getenv("KEVENT_TOLERANCE_SCALE");
	sigset_t set;
	unsigned int i;

	for (i = 1; i < (unsigned int)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (unsigned int)argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--trace")) {
			trace = 1;
			continue;
		}
		if (!v)
			return usage();
		if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--ops"))
			budget = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--time"))
			time_limit = atof(v);
		else if (!strcmp(a, "--threads"))
			nthreads = atoi(v);
		else if (!strcmp(a, "--kinds"))
			kinds = strtoul(v, NULL, 0) & ((1u << K_NR) - 1);
		else if (!strcmp(a, "--uid"))
			uid = atoi(v);
		else
			return usage();
		i++;
	}
	if (!nthreads || nthreads > MAXTHREADS || !kinds || !seed)
		return usage();
	if (s && atoi(s) > 0)
		scale = atoi(s);

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* As root: the kernel log, then everything else as the user. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	if (getuid() == 0 && uid && (setgid(uid) || setuid(uid))) {
		fprintf(stderr, "kevent-fuzz: cannot become uid %d: %s\n", uid, strerror(errno));
		return 2;
	}
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);	/* for the signalfds */
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/* A guard page after rw_mem: a huge num stops there. */
	rw_mem = mmap(NULL, MEMLEN + 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rw_mem != MAP_FAILED)
		mprotect(rw_mem + MEMLEN, 4096, PROT_NONE);
	ro_mem = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none_mem = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rw_mem == MAP_FAILED || ro_mem == MAP_FAILED || none_mem == MAP_FAILED)
		return 2;
	{
		int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);

		if (l >= 0 && !bind(l, (struct sockaddr *)&a, sizeof(a)) &&
		    !listen(l, 64) && !getsockname(l, (struct sockaddr *)&a, &len))
			tcp_port = ntohs(a.sin_port);
		objs[0].fd = l;
		objs[0].kind = O_TCP_LISTEN;
	}
	/* Open for the whole run, so no stale fd number can reach it. */
	canary = kevent_open(0);
	if (canary < 0) {
		fprintf(stderr, "kevent-fuzz: /dev/kevent: %s\n", strerror(errno));
		return 2;
	}
	for (i = 0; i < MAXTHREADS; i++) {
		thr[i].idx = i;
		thr[i].rng = seed * 0x9e3779b97f4a7c15ULL + i * 0xbf58476d1ce4e5b9ULL + 1;
	}
	for (i = 1; i < NOBJ; i++)
		obj_open(&thr[i % nthreads], &objs[i]);

	say("seed %llu, %llu operations, %u threads, at most %.0f s, kinds %#x, as uid %d",
	    seed, budget, nthreads, time_limit, kinds, uid);
	t0 = now_ns();
	for (i = 0; i < nthreads; i++)
		pthread_create(&thr[i].t, NULL, worker, &thr[i]);
	pthread_create(&wd, NULL, watchdog, NULL);
	pthread_create(&intr, NULL, interrupter, NULL);
	started = 1;

	while (!stop) {
		struct timespec ts = { 0, 50 * MS };
		unsigned long long done = 0;

		nanosleep(&ts, NULL);
		for (i = 0; i < nthreads; i++)
			done += thr[i].ops >= budget / nthreads;
		if (done == nthreads)
			break;
		if ((now_ns() - t0) / 1e9 > time_limit)
			break;
	}
	stop = 1;
	/* Workers stuck after the budget are a hang: the interrupter is still on. */
	for (i = 0; i < nthreads; i++) {
		struct timespec dl;
		int err;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 10 * scale;
		err = pthread_timedjoin_np(thr[i].t, NULL, &dl);
		if (err) {
			found("hang", "thread %u did not finish its operation in %u s", i, 10 * scale);
			say("result FINDING seed=%llu ops=%llu", seed, ops_done);
			return 1;
		}
	}
	joined = 1;
	pthread_join(intr, NULL);
	pthread_join(wd, NULL);
	close(canary);
	for (i = 0; i < NOBJ; i++) {
		if (objs[i].fd >= 0)
			close(objs[i].fd);
		if (objs[i].ring)
			munmap(objs[i].ring, objs[i].ring_len);
	}
	if (!finding)
		final_checks();
	check_kmsg();
	say("%llu operations in %.1f s", ops_done, (now_ns() - t0) / 1e9);
	if (finding) {
		say("result FINDING seed=%llu ops=%llu", seed, ops_done);
		return 1;
	}
	say("result ok seed=%llu ops=%llu", seed, ops_done);
	return 0;
}
