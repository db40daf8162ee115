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
 * interrupting waits.  And shapes, scenarios on private objects that build
 * the states the oracles of meaning need: many fast periodic timers (1 ns
 * to 4 us) among idle ones ("timers"), a giant ring aliased from one 2 MiB
 * memfd with kevent_wait() of nearly all of it and a 1 ms timeout
 * ("bigring"), collections faulting into PROT_NONE memory while another
 * thread wakes the watched socket ("faultwake"), WAKEUP_ONE kevents of
 * several queues on one socket whose peer hangs up ("wakeone").
 *
 * Oracles of survival, each of which ends the run with a FINDING line: a
 * kernel report in /dev/kmsg; a watchdog thread whose own wake-up latency
 * passes a bound (a kernel that stops answering); a canary ONESHOT timer,
 * armed over and over on a private queue, that does not arrive (a lost
 * event); workers that do not finish after the budget (a hang); at the
 * end, the user's kevent count not back to 0 once everything is closed (a
 * leak), and a fresh queue that does not deliver a timer exactly once.
 * The host adds its own: the log check (kmemleak included), the boot
 * timeout.
 *
 * Oracles of meaning (SPEC.md), checked on every call the fuzzer makes:
 *  - slow-call: every call returns within its timeout plus 2 s times
 *    INIT_TOLERANCE_SCALE (call_begin()); a clock thread reports a call
 *    still running past that, naming it and its arguments;
 *  - duplicate: one kevent_get_events() or kevent_wait() returns each
 *    kevent at most once (check_once(); for kevent_wait() the ring entries
 *    it wrote, from ring_kidx before the call); count and ring-index: no
 *    more entries than asked, ring_kidx moved by what was returned;
 *  - lost-readiness: after collections that faulted, an ET POLL kevent
 *    whose file poll(2) still reports ready comes back, with that bit
 *    (shape_faultwake());
 *  - timer-count, empty-timer: the expirations delivered for a periodic
 *    timer match the time that passed (timers_account());
 *  - lost-hangup, lost-wakeup: a peer's close or shutdown reaches every
 *    queue that watches its socket, WAKEUP_ONE or not; an edge reaches
 *    at least one (shape_wakeone()).
 * Each is built so that legal behaviour cannot trip it (a level kevent
 * back in every call, ring entries overwritten, saturated counts, REMOVE
 * and ADD of one key during a call, UML's scheduling noise); see there.
 *
 * Each thread keeps its last operations in a ring; a finding prints them.
 * --trace prints every operation before it runs instead (slow; for the
 * reducer's final replay, where a kernel crash leaves nothing else).
 * The shapes draw their parameters from the same per-thread PRNGs.
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
#include <sys/resource.h>
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
#define SEC		(1000 * MS)
/* A timeout this long or longer is a wait without limit (see call_begin). */
#define NO_LIMIT	(3600 * SEC)
/* Entries of the per-thread big buffer: the largest shape's queue. */
#define BIGN		4096
/*
 * The shapes' private fds live at or above this number, which no random
 * operation picks (objects get the lowest free numbers, junk fds are
 * 1000..1049), so no stale fd of another thread reaches them.
 */
#define HIFD		1100
/* user[0] of the shapes' kevents: tag | thread. */
#define SHAPE_TAG	0x5a000000u

/* Operation kinds; --kinds selects a subset (bit n = kind n). */
enum {
	K_ADD, K_REMOVE, K_MODIFY, K_GET, K_RING, K_WAIT, K_CHURN, K_IO,
	K_RINGMEM, K_PASS, K_FORK, K_SIGNAL,
	/* The shapes: whole scenarios on private objects (see shape_*()). */
	K_TIMERS, K_BIGRING, K_FAULTWAKE, K_WAKEONE, K_NR
};

static const char *const kind_name[K_NR] = {
	"add", "remove", "modify", "get", "ring_init", "wait", "churn", "io",
	"ringmem", "pass", "fork", "signal", "timers", "bigring", "faultwake",
	"wakeone",
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
	void *ring_at;		/* where in it the ring was registered */
	unsigned int ring_num;	/* its size in entries */
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
/* The bound past its timeout within which every call must return. */
static unsigned long long slack_ns = 2 * SEC;
/*
 * Bumped at the start and the end of each kevent_wait() of the random
 * operations and by every change of a ring or of the table: a wait whose
 * start and end are one bump apart had the rings to itself, so the
 * entries it wrote are still where it wrote them.
 */
static unsigned long ring_epoch;
/*
 * kevent_wait() calls of the random operations under way: the epoch sees
 * a wait that begins or ends during another, not one that spans it
 * (seen: a wait with a 1 ns timeout running across a shorter one moved
 * the shared ring_kidx under it).
 */
static unsigned long waits_in_flight;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int kmsg = -1;

/* Memory the pointer arguments come from (rw: one area per thread). */
static char *ro_mem, *none_mem;
#define MEMLEN	(64 * 1024)

struct thr {
	pthread_t t;
	int idx;
	int alive;		/* under alive_lock: not returned yet */
	unsigned long long rng;
	unsigned long long ops;
	unsigned long long kind_ops[K_NR];	/* operations run, per kind */
	char log[LOGN][112];
	unsigned int logpos;
	struct ukevent buf[65];	/* one spare: the misaligned pointer */
	char *rw;		/* MEMLEN bytes, then a guard page */
	struct ukevent *big;	/* BIGN entries, for the shapes */
	/* The call in flight, for the clock thread (call_begin()). */
	volatile unsigned long long call_start, call_limit;
	char call_desc[112];
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

/*
 * The timing oracle.  Every kevent call of the workers runs between
 * call_begin() and call_end(): it must return within its timeout plus
 * slack_ns (2 s times INIT_TOLERANCE_SCALE: 10 s in scripts/fuzz.py, so a
 * debug UML on a loaded host, descheduled by the host and by the other
 * threads' heavy operations, stays far inside it, while one call that
 * runs on, as kevent_wait() did with 1 ns timers and a huge ring, is
 * seen within seconds).  SPEC: a call returns by its deadline plus a
 * bound that grows with nothing the user sets.  A timeout of NO_LIMIT or
 * more waits without limit: only signals end it, and the "hang" oracle
 * watches those.  The description is the call's note() line, so the
 * FINDING names the call and its arguments.  call_end() judges a call
 * that returned; check_calls() (the clock thread) one still running.
 */
static void call_begin(struct thr *t, __u64 timeout)
{
	memcpy(t->call_desc, t->log[(t->logpos - 1) % LOGN], sizeof(t->call_desc));
	t->call_limit = timeout >= NO_LIMIT ? 0 : timeout + slack_ns;
	__sync_synchronize();
	t->call_start = now_ns();
}

static void call_end(struct thr *t)
{
	unsigned long long start = t->call_start, limit = t->call_limit;
	unsigned long long took = now_ns() - start;

	t->call_start = 0;
	__sync_synchronize();
	if (limit && took > limit)
		found("slow-call", "%s returned after %llu ms, its timeout + %llu ms passed",
		      t->call_desc, took / MS, slack_ns / MS);
}

static void check_calls(void)
{
	unsigned int i;

	for (i = 0; i < nthreads; i++) {
		struct thr *t = &thr[i];
		unsigned long long now = now_ns(), start = t->call_start;
		unsigned long long limit = t->call_limit;

		if (!start || !limit || start > now || now - start <= limit)
			continue;
		__sync_synchronize();
		if (t->call_start != start)	/* it ended meanwhile */
			continue;
		found("slow-call", "%s still running after %llu ms, its timeout + %llu ms passed",
		      t->call_desc, (now - start) / MS, slack_ns / MS);
	}
}

/* An entry of @n ukevents from @base, wrapping at @size (a ring). */
static void entry_at(const void *base, unsigned int size, unsigned long long k,
		     struct ukevent *uk)
{
	memcpy(uk, (const char *)base + (k % size) * sizeof(*uk), sizeof(*uk));
}

static unsigned long long entry_hash(const struct ukevent *uk)
{
	unsigned long long h = uk->id.raw_u64 * 0x9e3779b97f4a7c15ULL;

	h ^= ((unsigned long long)uk->type << 32 | uk->user[0]) * 0xbf58476d1ce4e5b9ULL;
	h ^= uk->user[1] * 0x94d049bb133111ebULL;
	return h ^ h >> 29;
}

static int entry_same(const struct ukevent *a, const struct ukevent *b)
{
	return a->type == b->type && a->id.raw_u64 == b->id.raw_u64 &&
	       a->user[0] == b->user[0] && a->user[1] == b->user[1];
}

/*
 * The first oracle of meaning: one call delivers each kevent at most once
 * (SPEC, "One call, one pass").  @n entries from @base (starting at entry
 * @from, wrapping at @size for a ring) came from one call, described by
 * the thread's last note().  A kevent is (type, id) within its queue; the
 * user data is compared too, because another thread may REMOVE a kevent
 * and ADD another with the same key while the call collects, and both
 * may then legally arrive in the one call: every ADD of the fuzzer gives
 * its kevents user data of their own (thread, entry, operation), so equal
 * (type, id, user) is one kevent.  Only the first 2^20 entries are
 * compared (a queue of this fuzzer never holds that many distinct
 * kevents, so a longer answer repeats one early).
 */
static void check_once(struct thr *t, const void *base, unsigned long long from,
		       unsigned int size, unsigned int n)
{
	unsigned int cap, mask, i, h, small[256];
	unsigned int *set = small;
	struct ukevent a, b;

	if (n > 1u << 20)
		n = 1u << 20;
	for (cap = 4; cap < 2 * n; cap <<= 1)
		;
	if (cap > 256) {
		set = calloc(cap, sizeof(*set));
		if (!set)
			return;
	} else {
		memset(small, 0, sizeof(small));
	}
	mask = cap - 1;
	for (i = 0; i < n && !stop; i++) {
		entry_at(base, size, from + i, &a);
		for (h = entry_hash(&a) & mask; set[h]; h = (h + 1) & mask) {
			entry_at(base, size, from + set[h] - 1, &b);
			if (entry_same(&a, &b)) {
				found("duplicate", "%s: kevent type %u id %u:%u (user %#x:%u) is entry %u and entry %u of the %u it returned",
				      t->log[(t->logpos - 1) % LOGN], a.type, a.id.raw[0],
				      a.id.raw[1], a.user[0], a.user[1], set[h] - 1, i, n);
				goto out;
			}
		}
		set[h] = i + 1;
	}
out:
	if (set != small)
		free(set);
}

/* Move @fd to a number at or above HIFD (see there); -1 on failure. */
static int hifd(int fd)
{
	int h;

	if (fd < 0)
		return -1;
	h = fcntl(fd, F_DUPFD_CLOEXEC, HIFD);
	close(fd);
	return h;
}

/* The timed wrappers of the four calls (call_begin(): the last note()). */
static int t_ctl(struct thr *t, int q, unsigned int cmd, unsigned int num, void *arg)
{
	int ret;

	call_begin(t, 0);
	ret = kevent_ctl(q, cmd, num, arg);
	call_end(t);
	return ret;
}

/* Whether @n entries at @p are in the thread's own writable memory. */
static int holds(struct thr *t, const void *p, unsigned int n)
{
	const char *c = p;
	size_t len = (size_t)n * sizeof(struct ukevent);

	return (c >= (char *)t->buf && c + len <= (char *)(t->buf + 65)) ||
	       (c >= t->rw && c + len <= t->rw + MEMLEN) ||
	       (c >= (char *)t->big && c + len <= (char *)(t->big + BIGN));
}

/*
 * kevent_get_events() with the timing oracle, then, when it returned
 * entries, the count and the once-per-call oracles on them.
 */
static int t_get(struct thr *t, int q, unsigned int min, unsigned int max, __u64 to,
		 void *buf, unsigned int flags)
{
	int ret;

	call_begin(t, to);
	ret = kevent_get_events(q, min, max, to, buf, flags);
	call_end(t);
	if (ret <= 0)
		return ret;
	if ((unsigned int)ret > max || !holds(t, buf, ret))
		found("count", "%s returned %d entries", t->call_desc, ret);
	else if (ret > 1)
		check_once(t, buf, 0, ret, ret);
	return ret;
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
	case 5: return t->rw + MEMLEN - 20;	/* runs off the end */
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
	for (i = 0; i < n; i++) {
		pick_uk(t, &t->buf[i]);
		/* Each entry's own user data: see check_once(). */
		t->buf[i].user[0] = t->idx | i << 8;
	}
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
	arg = pick_ptr(t, num > 64 ? (void *)t->rw : t->buf);
	note(t, "ctl q=%d cmd=%u num=%u arg=%p type0=%u ev0=%#x fl0=%#x id0=%u:%u",
	     q, c, num, arg, t->buf[0].type, t->buf[0].event,
	     t->buf[0].req_flags, t->buf[0].id.raw[0], t->buf[0].id.raw[1]);
	t_ctl(t, q, c, num, arg);
}

static void op_get(struct thr *t)
{
	int q = pick_queue(t);
	unsigned int max = pick_num(t, 64), min = below(t, 4) ? below(t, 3) : pick_num(t, 64);
	__u64 to = pick_timeout(t);
	unsigned int flags = below(t, 30) ? 0 : 1 + below(t, 4);
	void *buf = pick_ptr(t, max > 64 ? (void *)t->rw : t->buf);

	note(t, "get q=%d min=%u max=%u timeout=%llu buf=%p flags=%u",
	     q, min, max, (unsigned long long)to, buf, flags);
	t_get(t, q, min, max, to, buf, flags);
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
	void *mem, *at;
	struct obj *o;
	int err;

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
	at = pick_ptr(t, mem);
	note(t, "ring_init q=%d num=%u mem=%p at=%p len=%zu", q, num, mem, at, len);
	__sync_fetch_and_add(&ring_epoch, 1);
	call_begin(t, 0);
	err = kevent_ring_init(q, at, num);
	call_end(t);
	if (err) {
		munmap(mem, len);	/* no queue took it */
		return;
	}
	pthread_mutex_lock(&objs_lock);
	o = obj_of(q);
	if (o && o->kind == O_QUEUE && !o->ring) {
		o->ring = mem;
		o->ring_len = len;
		o->ring_at = at;
		o->ring_num = num;
		mem = NULL;
	}
	pthread_mutex_unlock(&objs_lock);
	/* Registered on a queue no slot tracks: the ring goes under it. */
	if (mem)
		retire(mem, len);
}

/*
 * kevent_wait() with the timing oracle, then the count, ring_kidx and
 * once-per-call oracles on the entries it wrote: from ring_kidx as it was
 * before the call, as many as it returned, wrapping at the ring size.
 * @ring (NULL: no entry checks) is the ring registered on @q, of @size
 * entries, which nothing else writes during the call.
 */
static void check_ring(struct thr *t, const struct kevent_ring *ring, unsigned int size,
		       unsigned int kidx, unsigned int num, int ret)
{
	unsigned int after = ring->ring_kidx;

	if (ret <= 0 || kidx >= size)
		return;
	if ((unsigned int)ret > num)
		found("count", "%s returned %d entries", t->call_desc, ret);
	else if (after != (kidx + (unsigned long long)ret) % size)
		found("ring-index", "%s: ring_kidx went from %u to %u for %d entries in a ring of %u",
		      t->call_desc, kidx, after, ret, size);
	else if (ret > 1)
		check_once(t, ring->event, kidx, size, ret);
}

static int t_wait(struct thr *t, int q, unsigned int num, __u64 to,
		  struct kevent_ring *ring, unsigned int size)
{
	unsigned int kidx = ring ? ring->ring_kidx : 0;
	int ret;

	call_begin(t, to);
	ret = kevent_wait(q, num, to);
	call_end(t);
	if (ring)
		check_ring(t, ring, size, kidx, num, ret);
	return ret;
}

static void op_wait(struct thr *t)
{
	int q = pick_queue(t), ret;
	unsigned int num = below(t, 5) ? below(t, 20) : pick_num(t, 300);
	__u64 to = pick_timeout(t);
	struct kevent_ring *ring = NULL;
	unsigned int size = 0, kidx = 0;
	unsigned long e0, e1;
	struct obj *o;
	int alone;

	note(t, "wait q=%d num=%u timeout=%llu", q, num, (unsigned long long)to);
	/* The ring the table knows for q (readable while o->ring is set). */
	pthread_mutex_lock(&objs_lock);
	o = obj_of(q);
	if (o && o->kind == O_QUEUE && o->ring) {
		ring = o->ring_at;
		size = o->ring_num;
		kidx = ring->ring_kidx;
	}
	e0 = __sync_add_and_fetch(&ring_epoch, 1);
	alone = __sync_add_and_fetch(&waits_in_flight, 1) == 1;
	pthread_mutex_unlock(&objs_lock);
	call_begin(t, to);
	ret = kevent_wait(q, num, to);
	call_end(t);
	e1 = __sync_add_and_fetch(&ring_epoch, 1);
	__sync_sub_and_fetch(&waits_in_flight, 1);
	if (ret <= 0 || !ring || !alone || e1 != e0 + 1)
		return;
	/*
	 * Nothing else waited or touched a ring or the table meanwhile
	 * (ring_epoch, waits_in_flight): check the entries, under
	 * objs_lock so the ring stays mapped.
	 */
	pthread_mutex_lock(&objs_lock);
	if (ring_epoch == e1 && obj_of(q) == o && o->ring_at == ring)
		check_ring(t, ring, size, kidx, num, ret);
	pthread_mutex_unlock(&objs_lock);
}

/* Ring memory changes under waiters: munmap, mprotect, or back. */
static void op_ringmem(struct thr *t)
{
	struct obj *o = &objs[below(t, NOBJ)];
	unsigned int how = below(t, 3);

	pthread_mutex_lock(&objs_lock);
	__sync_fetch_and_add(&ring_epoch, 1);
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
	__sync_fetch_and_add(&ring_epoch, 1);
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
	uk.user[0] = t->idx | 0x10000;	/* its own user data: check_once() */
	uk.user[1] = t->ops;
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

/*
 * Signal a worker only while it runs: one that returned may have been
 * joined by the main thread, which joins them one by one while the
 * others and the interrupter go on, and pthread_kill() on a joined
 * thread is undefined (seen: a segfault in pthread_kill(), the fuzzer
 * killed by it at its time limit).
 */
static pthread_mutex_t alive_lock = PTHREAD_MUTEX_INITIALIZER;

static void signal_worker(struct thr *to)
{
	pthread_mutex_lock(&alive_lock);
	if (to->alive)
		pthread_kill(to->t, SIGUSR1);
	pthread_mutex_unlock(&alive_lock);
}

static void op_signal(struct thr *t)
{
	struct thr *to = &thr[below(t, nthreads)];

	note(t, "signal t%d", to->idx);
	signal_worker(to);
}

/*
 * The shapes: scenarios that build the states the oracles of meaning
 * need, each on private objects (fds at HIFD and above, so the random
 * operations cannot disturb what they check).  Their parameters come
 * from the thread's PRNG like every other operation's.
 */

/*
 * Timer conservation.  A periodic timer ADDed at t0 (between the times
 * before and after its ADD) expires at t0 + k * period; delivery counts
 * the expirations since the last delivery (SPEC: TIMER), so after a
 * delivery at T the counts delivered so far add up to floor((T - t0) /
 * period), saturating at U32_MAX per delivery.  A delivery happens inside
 * its call, so with the call's start and end times:
 *   sum <= (end - before ADD) / period + 1  (the robust bound: scheduling
 *          noise only makes calls later, which raises it; the 1 absorbs
 *          rounding between the user's clock and the timer's),
 *   sum >= (start - after ADD) / period - 2 unless a delivery saturated
 *          (a put-back that drops a count, a delivery that loses one).
 * A delivered periodic timer with a count of 0, or a timer entry whose
 * id and user data do not match what was added, is a finding too.
 */
struct tstate {
	unsigned long long period, sum;
	unsigned long long call;	/* the last call that delivered it */
	int saturated;
};

struct timers {
	unsigned int n;
	unsigned long long t_add, t_added, calls;
	struct tstate *tm;
};

/* ADD nfast timers of 1..nfast ns, 3 of 0.1-3 ms and nidle of an hour. */
static int timers_add(struct thr *t, int q, struct timers *ts, unsigned int nfast,
		      unsigned int nidle)
{
	static const unsigned long long medium[] = { 100000, 1 * MS, 3 * MS };
	unsigned int i, n = nfast + 3 + nidle;
	__u32 flags = below(t, 2) ? 0 : KEVENT_REQ_ET;
	struct ukevent *uk = t->big;
	int ret;

	memset(ts, 0, sizeof(*ts));
	if (n > BIGN)
		return -1;
	ts->tm = calloc(n, sizeof(*ts->tm));
	if (!ts->tm)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned long long p = i < nfast ? i + 1 :
				       i < nfast + 3 ? medium[i - nfast] : 3600 * SEC + i;

		uk[i] = kevent_timer(p, flags);
		uk[i].user[0] = SHAPE_TAG | t->idx;
		uk[i].user[1] = i;
		ts->tm[i].period = p;
	}
	note(t, "timers-add q=%d n=%u (1..%u ns, 0.1-3 ms, %u of 1 h) flags=%#x",
	     q, n, nfast, nidle, flags);
	ts->t_add = now_ns();
	ret = t_ctl(t, q, KEVENT_CTL_ADD, n, uk);
	ts->t_added = now_ns();
	ts->n = n;
	return ret;
}

/* Account the @n timer entries of one call (from @base, as check_once()). */
static void timers_account(struct thr *t, struct timers *ts, const void *base,
			   unsigned long long from, unsigned int size, unsigned int n,
			   unsigned long long before, unsigned long long after)
{
	unsigned int i;
	struct ukevent uk;

	ts->calls++;
	for (i = 0; i < n && !stop; i++) {
		struct tstate *tm;
		unsigned long long p, hi, lo;

		entry_at(base, size, from + i, &uk);
		p = (unsigned long long)uk.id.raw[0] * SEC + uk.id.raw[1];
		if (uk.type != KEVENT_TIMER || uk.user[0] != (SHAPE_TAG | t->idx) ||
		    uk.user[1] >= ts->n || ts->tm[uk.user[1]].period != p) {
			found("corrupt", "%s: entry %u is type %u id %u:%u user %#x:%u, no timer of this queue",
			      t->log[(t->logpos - 1) % LOGN], i, uk.type, uk.id.raw[0],
			      uk.id.raw[1], uk.user[0], uk.user[1]);
			return;
		}
		tm = &ts->tm[uk.user[1]];
		if (!uk.ret_data[0]) {
			found("empty-timer", "%s: the timer of %llu ns came with 0 expirations (flags %#x)",
			      t->log[(t->logpos - 1) % LOGN], p, uk.ret_flags);
			return;
		}
		tm->saturated |= uk.ret_data[0] == 0xffffffffu;
		tm->sum += uk.ret_data[0];
		tm->call = ts->calls;
		hi = (after - ts->t_add) / p + 1;
		lo = before > ts->t_added ? (before - ts->t_added) / p : 0;
		if (tm->sum > hi)
			found("timer-count", "%s: the timer of %llu ns has delivered %llu expirations %llu ns after its ADD began (at most %llu)",
			      t->log[(t->logpos - 1) % LOGN], p, tm->sum,
			      after - ts->t_add, hi);
		else if (!tm->saturated && tm->sum + 2 < lo)
			found("timer-count", "%s: the timer of %llu ns has delivered %llu expirations %llu ns after its ADD ended (at least %llu)",
			      t->log[(t->logpos - 1) % LOGN], p, tm->sum,
			      before - ts->t_added, lo);
	}
}

/*
 * Many fast periodic timers (1..1024 ns), and often three times as many
 * idle ones, in one queue; a few collections of up to all of them, some
 * into PROT_NONE memory (-EFAULT: the counts must be put back, merged).
 * Builds defect B's state: a collection limited by the number of kevents
 * rather than by those ready at its start takes the re-armed fast timers
 * again.  Oracles: once per call, the timing bound, conservation.
 */
static void shape_timers(struct thr *t)
{
	unsigned int nfast = 1u << (6 + below(t, 5)), rounds = 2 + below(t, 6), r;
	unsigned int nidle = below(t, 3) ? 3 * nfast - 3 : 0;
	int q = hifd(kevent_open(0)), ret;
	struct timers ts;

	if (q < 0)
		return;
	if (timers_add(t, q, &ts, nfast, nidle))
		goto out;	/* past the user's limit, say: nothing to check */
	for (r = 0; r < rounds && !stop; r++) {
		unsigned int max = below(t, 4) ? ts.n : 1 + below(t, ts.n);
		unsigned long long before, after;
		__u64 to = below(t, 4) * MS;

		if (below(t, 5) == 0) {
			/* The fault: nothing is delivered, everything stays. */
			note(t, "timers-get q=%d max=%u timeout=0 buf=PROT_NONE", q, max);
			call_begin(t, 0);
			kevent_get_events(q, 1, max, 0, (void *)none_mem, 0);
			call_end(t);
			continue;
		}
		if (below(t, 3) == 0) {
			struct timespec ts_sleep = { 0, below(t, 3) * MS };

			nanosleep(&ts_sleep, NULL);
		}
		note(t, "timers-get q=%d min=1 max=%u timeout=%llu (%u timers)", q, max,
		     (unsigned long long)to, ts.n);
		before = now_ns();
		ret = t_get(t, q, 1, max, to, t->big, 0);
		after = now_ns();
		if (ret > 0 && !stop)
			timers_account(t, &ts, t->big, 0, ret, ret, before, after);
	}
out:
	close(q);
	free(ts.tm);
}

/*
 * A giant aliased ring: one 2 MiB memfd mapped again and again, back to
 * back, so a ring of up to 4 million slots costs 2 MiB, with 256..4096
 * periodic timers of 1..4096 ns, and kevent_wait() with a num of nearly
 * the whole ring and a 1 ms timeout.  Defect A's state: a fill that goes
 * on while re-armed timers are ready runs for tens of seconds.  Oracles:
 * the timing bound (the clock thread sees the call still running), once
 * per call on the ring entries, ring_kidx, conservation.
 */
#define CHUNK	(2u << 20)
static void shape_bigring(struct thr *t)
{
	unsigned int aliases = below(t, 3) ? 80 : 8 + below(t, 72), i, size, rounds, r;
	unsigned int nfast = 1u << (8 + below(t, 5));
	size_t len = (size_t)aliases * CHUNK;
	int fd = memfd_create("kevent-fuzz-ring", MFD_CLOEXEC), q = -1, ret;
	struct kevent_ring *ring = MAP_FAILED;
	struct timers ts = { 0 };
	char *base;

	if (fd < 0 || ftruncate(fd, CHUNK))
		goto out;
	ring = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ring == MAP_FAILED)
		goto out;
	base = (char *)ring;
	for (i = 0; i < aliases; i++)
		if (mmap(base + (size_t)i * CHUNK, CHUNK, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
			goto out;
	size = (len - sizeof(*ring)) / sizeof(struct ukevent);
	q = hifd(kevent_open(0));
	if (q < 0)
		goto out;
	note(t, "bigring-init q=%d ring=%p size=%u (%u aliases of 2 MiB)", q, ring, size, aliases);
	call_begin(t, 0);
	ret = kevent_ring_init(q, ring, size);
	call_end(t);
	if (nfast > BIGN - 3)
		nfast = BIGN - 3;	/* and the three medium timers */
	if (ret || timers_add(t, q, &ts, nfast, 0))
		goto out;
	rounds = 1 + below(t, 3);
	for (r = 0; r < rounds && !stop; r++) {
		unsigned int num = below(t, 4) ? size - 1 : 1 + below(t, size - 1);
		unsigned int kidx = ring->ring_kidx;
		unsigned long long before, after;

		note(t, "bigring-wait q=%d num=%u timeout=1000000 (ring %u, %u timers of 1..%u ns)",
		     q, num, size, ts.n, nfast);
		before = now_ns();
		ret = t_wait(t, q, num, 1 * MS, ring, size);
		after = now_ns();
		if (ret > 0 && !stop)
			timers_account(t, &ts, ring->event, kidx, size, ret, before, after);
	}
out:
	if (q >= 0)
		close(q);
	if (ring != MAP_FAILED)
		munmap(ring, len);
	if (fd >= 0)
		close(fd);
	free(ts.tm);
}

/* The peer side of shape_faultwake(): a POLLOUT wake-up of s0 per round. */
struct drainer {
	int s0, s1;
	volatile int stop;
};

static void *drainer(void *arg)
{
	struct drainer *d = arg;
	char b[4096];

	memset(b, 0, sizeof(b));
	while (!d->stop) {
		/* Reading what s0 sent frees its room: POLLOUT on s0. */
		while (read(d->s1, b, sizeof(b)) > 0)
			;
		/* And fill it again, so the next drain is an edge again. */
		while (write(d->s0, b, sizeof(b)) > 0)
			;
		sched_yield();
	}
	return NULL;
}

/*
 * No readiness is lost.  An ET POLL kevent on AF_UNIX s0 for
 * POLLIN|POLLOUT: s0's send room is full, then one byte arrives from the
 * peer (POLLIN, never read in this shape).  Collections into memory that
 * faults (PROT_NONE, read-only, or a ring made PROT_NONE) return -EFAULT
 * and put the kevent back, while a thread drains and refills the peer, so
 * POLLOUT wake-ups of s0 come during the collections.  Afterwards poll(2)
 * still reports POLLIN, and no collection has delivered the kevent since
 * the byte came, so the next collection must bring it back with POLLIN
 * (SPEC: -EFAULT and the event is not lost; a put-back merges the masks).
 * Defect C replaced the mask by what came during the copy.
 */
static void shape_faultwake(struct thr *t)
{
	int sv[2] = { -1, -1 }, q = -1, ret, how = below(t, 3), faults = 0;
	/*
	 * Many rounds: the window (the kevent taken, its copy faulting) is
	 * hit only when a tick preempts the collector inside it and the
	 * drainer runs (UML has one CPU; an unprivileged fuzzer has no
	 * SCHED_FIFO to force it), so the chance grows with the time spent
	 * collecting.
	 */
	unsigned int rounds = 16 + below(t, 241), r;
	struct ukevent uk;
	struct drainer d = { .stop = 0 };
	pthread_t dt;
	struct kevent_ring *ring = MAP_FAILED;
	struct pollfd p;
	unsigned long long end;
	char b[4096];

	memset(b, 0, sizeof(b));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		return;
	sv[0] = hifd(sv[0]);
	sv[1] = hifd(sv[1]);
	q = hifd(kevent_open(0));
	if (sv[0] < 0 || sv[1] < 0 || q < 0)
		goto out;
	if (how == 2) {
		ring = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ring == MAP_FAILED || kevent_ring_init(q, ring, 64))
			goto out;
	}
	while (write(sv[0], b, sizeof(b)) > 0)
		;
	uk = kevent_poll(sv[0], POLLIN | POLLOUT, KEVENT_REQ_ET);
	uk.user[0] = SHAPE_TAG | t->idx;
	uk.user[1] = 1;
	note(t, "faultwake-add q=%d s0=%d ET POLLIN|POLLOUT (send room full)", q, sv[0]);
	if (t_ctl(t, q, KEVENT_CTL_ADD, 1, &uk) != 0)
		goto out;	/* ready at once, or refused: no state to check */
	if (write(sv[1], "x", 1) != 1)
		goto out;
	d.s0 = sv[0];
	d.s1 = sv[1];
	if (pthread_create(&dt, NULL, drainer, &d))
		goto out;
	if (ring != MAP_FAILED)
		mprotect(ring, 4096, PROT_NONE);
	for (r = 0; r < rounds && !stop; r++) {
		note(t, "faultwake-collect q=%d into %s", q,
		     how == 0 ? "PROT_NONE" : how == 1 ? "read-only" : "a PROT_NONE ring");
		call_begin(t, 0);
		if (how == 2)
			ret = kevent_wait(q, 1 + below(t, 8), 0);
		else
			ret = kevent_get_events(q, 0, 1 + below(t, 8), 0,
						how ? (void *)ro_mem : none_mem, 0);
		call_end(t);
		if (ret > 0) {
			faults = 0;	/* cannot be: nothing was writable */
			break;
		}
		faults += ret == -1 && errno == EFAULT;
		sched_yield();
	}
	d.stop = 1;
	pthread_join(dt, NULL);
	if (ring != MAP_FAILED)
		mprotect(ring, 4096, PROT_READ | PROT_WRITE);
	if (!faults || stop)
		goto out;
	p = (struct pollfd){ .fd = sv[0], .events = POLLIN | POLLOUT };
	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
		goto out;	/* cannot be: nobody reads s0 */
	end = now_ns() + slack_ns;
	while (!stop) {
		unsigned long long now = now_ns();
		int i;

		if (now >= end) {
			found("lost-readiness", "the ET POLL kevent on AF_UNIX fd %d did not come back within %llu ms after %d faulted collections, while poll(2) reports %#x",
			      sv[0], slack_ns / MS, faults, p.revents);
			break;
		}
		note(t, "faultwake-get q=%d min=1 max=8 timeout=%llu", q,
		     (end - now) / MS * MS);
		ret = t_get(t, q, 1, 8, (end - now) / MS * MS, t->buf, 0);
		for (i = 0; i < ret; i++) {
			if (t->buf[i].type != KEVENT_POLL || t->buf[i].id.raw[0] != (__u32)sv[0])
				continue;
			if (!(t->buf[i].ret_data[0] & POLLIN))
				found("lost-readiness", "the ET POLL kevent on AF_UNIX fd %d came back with %#x after %d faulted collections: the unread byte's POLLIN was lost (poll(2) reports %#x)",
				      sv[0], t->buf[i].ret_data[0], faults, p.revents);
			goto out;
		}
	}
out:
	if (ring != MAP_FAILED)
		munmap(ring, 4096);
	if (q >= 0)
		close(q);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
}

/*
 * Collect from @q until an entry for @fd arrives or @end passes: 1 if it
 * did.  It looks at least once, so an @end already past is one look
 * without waiting.
 */
static int got_event_for(struct thr *t, int q, int fd, unsigned long long end)
{
	for (;;) {
		unsigned long long now = now_ns();
		__u64 to = now < end ? (end - now) / MS * MS : 0;
		int ret, i;

		note(t, "wakeone-get q=%d min=1 max=8 timeout=%llu", q, (unsigned long long)to);
		ret = t_get(t, q, 1, 8, to, t->buf, 0);
		for (i = 0; i < ret; i++)
			if (t->buf[i].id.raw[0] == (__u32)fd)
				return 1;
		if (stop)
			return 1;	/* stopping: judge nothing */
		if (now_ns() >= end)
			return 0;
	}
}

/*
 * A hang-up reaches every queue that watches.  2..4 queues each watch
 * AF_UNIX s0 (SOCKET RECV, or POLL POLLIN), most with WAKEUP_ONE; maybe
 * one byte first (an edge: at least one queue must get it); then the peer
 * s1 is closed or shut down, and every queue must get an event for s0
 * (BROKEN, or RECV for the end of file) within the bound.  SPEC: a
 * wake-up without a key, or with POLLHUP/POLLERR, reaches every kevent of
 * the storage whatever WAKEUP_ONE says.  Defect D gave it to one queue.
 */
static void shape_wakeone(struct thr *t)
{
	unsigned int nq = 2 + below(t, 3), i;
	int sv[2] = { -1, -1 }, q[4] = { -1, -1, -1, -1 }, how = below(t, 3);
	__u32 flags[4];
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		return;
	sv[0] = hifd(sv[0]);
	sv[1] = hifd(sv[1]);
	if (sv[0] < 0 || sv[1] < 0)
		goto out;
	for (i = 0; i < nq; i++) {
		struct ukevent uk;

		flags[i] = (below(t, 4) ? KEVENT_REQ_WAKEUP_ONE : 0) |
			   (below(t, 3) ? 0 : KEVENT_REQ_ET);
		uk = below(t, 3) ? kevent_socket(sv[0], KEVENT_SOCKET_RECV, flags[i]) :
				   kevent_poll(sv[0], POLLIN, flags[i]);
		uk.user[0] = SHAPE_TAG | t->idx;
		uk.user[1] = i;
		q[i] = hifd(kevent_open(0));
		if (q[i] < 0)
			goto out;
		note(t, "wakeone-add q=%d s0=%d type=%u flags=%#x", q[i], sv[0], uk.type, flags[i]);
		if (t_ctl(t, q[i], KEVENT_CTL_ADD, 1, &uk) != 0)
			goto out;
	}
	if (below(t, 2)) {
		unsigned long long end = now_ns() + slack_ns;
		int any = 0;

		note(t, "wakeone-send s1=%d one byte", sv[1]);
		if (write(sv[1], "x", 1) != 1)
			goto out;
		/* An edge: WAKEUP_ONE may give it to one queue, not to none. */
		while (!any && !stop && now_ns() < end) {
			struct timespec ms = { 0, 1 * MS };

			for (i = 0; i < nq && !any; i++)
				any = got_event_for(t, q[i], sv[0], 0);
			nanosleep(&ms, NULL);
		}
		if (!any && !stop) {
			found("lost-wakeup", "one byte on AF_UNIX fd %d reached none of %u queues within %llu ms",
			      sv[0], nq, slack_ns / MS);
			goto out;
		}
		if (read(sv[0], &c, 1) != 1)
			goto out;
		/* What the byte left ready goes, so what comes next is the hang-up's. */
		for (i = 0; i < nq; i++) {
			note(t, "wakeone-drain q=%d", q[i]);
			while (t_get(t, q[i], 1, 8, 0, t->buf, 0) > 0)
				;
		}
	}
	note(t, "wakeone-hangup s1=%d how=%s", sv[1],
	     how == 0 ? "close" : how == 1 ? "shutdown(SHUT_WR)" : "shutdown(SHUT_RDWR)");
	if (how == 0) {
		close(sv[1]);
		sv[1] = -1;
	} else {
		shutdown(sv[1], how == 1 ? SHUT_WR : SHUT_RDWR);
	}
	{
		unsigned long long end = now_ns() + slack_ns;

		for (i = 0; i < nq && !stop; i++)
			if (!got_event_for(t, q[i], sv[0], end)) {
				found("lost-hangup", "the %s of the peer of AF_UNIX fd %d reached no kevent of queue %u of %u (flags %#x) within %llu ms",
				      how == 0 ? "close" : "shutdown", sv[0], i + 1, nq,
				      flags[i], slack_ns / MS);
				break;
			}
	}
out:
	for (i = 0; i < nq; i++)
		if (q[i] >= 0)
			close(q[i]);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
}

/*
 * How often each kind runs, relative to the others: the system calls most,
 * fork (milliseconds in UML) and the memory games least.
 */
static const unsigned int kind_weight[K_NR] = {
	[K_ADD] = 8 * 32, [K_REMOVE] = 4 * 32, [K_MODIFY] = 4 * 32, [K_GET] = 6 * 32,
	[K_RING] = 2 * 32, [K_WAIT] = 3 * 32, [K_CHURN] = 3 * 32, [K_IO] = 6 * 32,
	[K_RINGMEM] = 32, [K_PASS] = 32, [K_FORK] = 32, [K_SIGNAL] = 32,
	/* The shapes: each takes tens of milliseconds to seconds. */
	[K_TIMERS] = 2, [K_BIGRING] = 1, [K_FAULTWAKE] = 3, [K_WAKEONE] = 2,
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

	t->kind_ops[k]++;
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
	case K_TIMERS: shape_timers(t); break;
	case K_BIGRING: shape_bigring(t); break;
	case K_FAULTWAKE: shape_faultwake(t); break;
	case K_WAKEONE: shape_wakeone(t); break;
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
	pthread_mutex_lock(&alive_lock);
	t->alive = 0;
	pthread_mutex_unlock(&alive_lock);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;	/* only to interrupt system calls */
}

/* Kernel reports, as scripts/logscan.py knows them. */
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
			check_calls();	/* a call that ran on is the better report */
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
		signal_worker(&thr[i++ % nthreads]);
	}
	return NULL;
}

/* The clock: calls in flight past their bound (call_begin()). */
static void *clock_thread(void *arg)
{
	(void)arg;
	while (!stop) {
		struct timespec ts = { 0, 50 * MS };

		nanosleep(&ts, NULL);
		check_calls();
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
	pthread_t wd, intr, clk;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long t0;
	const char *s = getenv("INIT_TOLERANCE_SCALE");
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
	slack_ns = 2 * SEC * scale;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* As root: the kernel log, then everything else as the user. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	/* Room for the shapes' fds at HIFD and above. */
	{
		struct rlimit rl = { 4096, 4096 };

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
			rl.rlim_cur = 4096;
			if (rl.rlim_max < 4096)
				rl.rlim_max = 4096;	/* root may raise it */
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (getuid() == 0 && uid && (setgid(uid) || setuid(uid))) {
		fprintf(stderr, "kevent-fuzz: cannot become uid %d: %s\n", uid, strerror(errno));
		return 2;
	}
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);	/* for the signalfds */
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/*
	 * Each thread's own area (what it reads back must be what its
	 * call wrote), with a guard page after it: a huge num stops there.
	 */
	for (i = 0; i < nthreads; i++) {
		thr[i].rw = mmap(NULL, MEMLEN + 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		thr[i].big = calloc(BIGN, sizeof(struct ukevent));
		if (thr[i].rw == MAP_FAILED || !thr[i].big)
			return 2;
		mprotect(thr[i].rw + MEMLEN, 4096, PROT_NONE);
	}
	ro_mem = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none_mem = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_mem == MAP_FAILED || none_mem == MAP_FAILED)
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
	for (i = 0; i < nthreads; i++) {
		thr[i].alive = 1;
		pthread_create(&thr[i].t, NULL, worker, &thr[i]);
	}
	pthread_create(&wd, NULL, watchdog, NULL);
	pthread_create(&intr, NULL, interrupter, NULL);
	pthread_create(&clk, NULL, clock_thread, NULL);
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
	pthread_join(clk, NULL);
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
	{
		/* What ran: a shape that never ran checked nothing. */
		char line[512];
		int n = 0, k;

		for (k = 0; k < K_NR && n < (int)sizeof(line) - 32; k++) {
			unsigned long long c = 0;

			for (i = 0; i < nthreads; i++)
				c += thr[i].kind_ops[k];
			if (kinds & (1u << k))
				n += snprintf(line + n, sizeof(line) - n, " %s %llu", kind_name[k], c);
		}
		say("operations per kind:%s", line);
	}
	if (finding) {
		say("result FINDING seed=%llu ops=%llu", seed, ops_done);
		return 1;
	}
	say("result ok seed=%llu ops=%llu", seed, ops_done);
	return 0;
}
