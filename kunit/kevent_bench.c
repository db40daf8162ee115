// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit suite kevent_bench: kevent's delivery against epoll's, measured
 * inside the kernel (a system call into UML costs about 110 us of host
 * ptrace round trips; code inside it runs natively).  Not a test: its
 * speed attribute is very_slow, the test runs filter with
 * 'speed>very_slow' (which keeps kevent_concurrency's slow cases) and
 * never run it; ./run_tests.sh --bench does (scripts/bench.py kernel,
 * CONFIG_KEVENT_BENCH).
 *
 * pipes: N pipes watched by one reader, K of them made readable per
 * round by kernel_write() of one byte on the write end (K distinct pipes,
 * in a new random order in each repetition), then collected
 * through the real entry points into user memory (kunit_vm_mmap()):
 * kevent_sys_get_events(), kevent_sys_wait() into a ring, sys_epoll_wait().
 * kevent watches with POLL kevents, ET; epoll with EPOLLIN|EPOLLET (the
 * same rule) and, for reference, level-triggered.  Each reader has its
 * own pipes and queue, so a write wakes at most one watcher.  The pipes,
 * then the watches, are made for every reader, 16 at a time, the readers
 * in a new random order each time; they are made anew for each of
 * BENCH_BLOCKS blocks of repetitions; and the readers' repetitions
 * interleave, in a new random order each time: neither where the objects
 * land nor the order of running favours one.
 * A fifth reader, "unwatched", has pipes that nothing watches and
 * collects nothing: its notify figure is the pipe write and the clock
 * alone, which every watcher's notify figure includes, and its collect
 * figure the clock alone.  The writes (notify: pipe write, wake-up, ready
 * list) and the collection are timed with ktime_get_ns(); draining the
 * pipes afterwards is not timed, for any reader.
 *
 * timers: T periodic timers (10 ms) all fired, then collected: T
 * KEVENT_TIMER kevents in kevent_get_events() calls against T timerfds
 * collected by epoll_wait() plus one read(2) of each (what a timerfd
 * user must do to learn the expiration count).  Only the collection is
 * timed; the expirations happen while the reader sleeps.
 *
 * Each (shape, reader, N, K) runs BENCH_REPS repetitions, a warm-up at
 * the start of each block; a repetition is enough rounds for about
 * BENCH_EVENTS events, four times as many at K = 1 (there each write
 * finds a cold pipe at N = 10000, and 1024 of them left the A/A gate's
 * difference at +-13 ns between boots; 4096, within 4 ns).
 * KTAP diagnostic lines, parsed by scripts/bench_kernel.py:
 *   # bench: shape=pipes reader=R N=.. K=.. ns_per_event=median min=.. max=..
 *     notify_ns=.. collect_ns=.. reps=..
 * one per figure (ns per event; notify_ns and collect_ns are the medians
 * of the split);
 *   # bench-paired: shape=pipes N=.. K=.. ... valid=yes|no
 * one per (N, K): each reader's own share of a notification and its
 * collection, less the write and the clock, and their ratios to epoll's,
 * computed within each repetition (bench_paired()), with the validity
 * gate; and per case
 *   # bench-calibrate: ktime_get_ns=.. put_user_8=.. copy_to_user_640=..
 * what the parts of the figures cost alone (bench_calibrate()).
 *
 * What a case creates (fds, pipes, queues) is released by KUnit actions
 * (kunit_add_action()), so a failed assertion mid-benchmark leaks none of
 * it; the user memory comes from kunit_vm_mmap(), which KUnit unmaps.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/syscalls.h>
#include <linux/timerfd.h>
#include <linux/uaccess.h>
#include <linux/eventpoll.h>	/* after fs.h and uaccess.h, which it needs */
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define BENCH_REPS	301
/*
 * The objects are made anew for each of BENCH_BLOCKS blocks of
 * repetitions: where a reader's pipes, files and kevents land (their
 * cache sets, which neighbours they have) is fixed for as long as they
 * live, and one layout favoured one of kevent's two readers, which run
 * the same notification code, by up to 29 ns per event at N = 10000,
 * with a sign that changed from boot to boot.  With a new layout per
 * block, each reader's figures are taken over several layouts in one
 * boot, as the order of the readers already varies per repetition.
 */
#define BENCH_BLOCKS	12
#define BENCH_EVENTS	1024
#define BENCH_MAX_K	128
#define BENCH_RING	(BENCH_MAX_K + 1)
#define BENCH_MAX_T	1024
#define BENCH_TIMER_NS	(10 * NSEC_PER_MSEC)
#define BENCH_CTL	16	/* kevent_ctl() entries per call of the setup */

enum bench_reader {
	R_GET_EVENTS, R_RING, R_EPOLL_ET, R_EPOLL_LT, R_UNWATCHED, R_NR
};

static const char * const bench_reader_name[R_NR] = {
	"kevent_get_events", "kevent_ring", "epoll_et", "epoll_lt", "unwatched",
};

struct bench_pipes {
	unsigned int	n;
	int		*rfd;		/* read ends, fds of the KUnit thread */
	struct file	**rfile;	/* read ends (a reference of ours) */
	struct file	**wfile;	/* write ends, no fd */
	unsigned int	*order;		/* the order they are made ready in */
};

struct bench {
	struct kunit	*test;
	void __user	*mem;		/* collection buffer, ctl entries */
	struct kevent_ring __user *ring;
	int		qfd;		/* the reader's queue: kevent or epoll */
	enum bench_reader reader;
};

struct bench_fig {
	u64	total[BENCH_REPS], notify[BENCH_REPS], collect[BENCH_REPS];
};

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 bench_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
	return v[n / 2];
}

/* Figures are in ns per event, with one decimal (value x 10). */
static void bench_report(struct kunit *test, const char *shape,
			 const char *reader, unsigned int n, unsigned int k,
			 struct bench_fig *f)
{
	u64 med, lo, hi, nt, co;

	med = bench_median(f->total, BENCH_REPS);
	lo = f->total[0];
	hi = f->total[BENCH_REPS - 1];
	nt = bench_median(f->notify, BENCH_REPS);
	co = bench_median(f->collect, BENCH_REPS);
	kunit_info(test,
		   "bench: shape=%s reader=%s N=%u K=%u ns_per_event=%llu.%llu min=%llu.%llu max=%llu.%llu notify_ns=%llu.%llu collect_ns=%llu.%llu reps=%u\n",
		   shape, reader, n, k, med / 10, med % 10, lo / 10, lo % 10,
		   hi / 10, hi % 10, nt / 10, nt % 10, co / 10, co % 10,
		   BENCH_REPS);
}

/* Room for 50000 pipes' read ends in the KUnit thread (init's limit: 1024). */
static void bench_nofile(void)
{
	struct rlimit *r = &current->signal->rlim[RLIMIT_NOFILE];

	task_lock(current->group_leader);
	r->rlim_max = max_t(unsigned long, r->rlim_max, 65536);
	r->rlim_cur = r->rlim_max;
	task_unlock(current->group_leader);
}

/*
 * The action that closes an fd of the KUnit thread (@ctx: the fd).  The
 * kthreads share one fd table, so KUnit's cleanup thread may run it.
 */
static void bench_close_fd_action(void *ctx)
{
	close_fd((unsigned long)ctx);
	/* A kthread's last fput is deferred: release the queue now. */
	flush_delayed_fput();
}

/* @fd (>= 0) is closed when the case ends, however it ends. */
static void bench_own_fd(struct kunit *test, int fd)
{
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
			bench_close_fd_action, (void *)(unsigned long)fd));
}

/* Close an fd of bench_own_fd() now. */
static void bench_close_fd(struct kunit *test, int fd)
{
	kunit_release_action(test, bench_close_fd_action,
			     (void *)(unsigned long)fd);
}

/* The action that frees the pipes created so far (@ctx: the bench_pipes). */
static void bench_pipes_free(void *ctx)
{
	struct bench_pipes *p = ctx;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		close_fd(p->rfd[i]);
		fput(p->rfile[i]);
		fput(p->wfile[i]);
	}
	flush_delayed_fput();
	kvfree(p->rfd);
	kvfree(p->rfile);
	kvfree(p->wfile);
	kvfree(p->order);
	p->n = 0;
}

/* Room for @n pipes in @p, freed when the case ends. */
static void bench_pipes_alloc(struct kunit *test, struct bench_pipes *p,
			      unsigned int n)
{
	p->n = 0;
	p->rfd = kvcalloc(n, sizeof(*p->rfd), GFP_KERNEL);
	p->rfile = kvcalloc(n, sizeof(*p->rfile), GFP_KERNEL);
	p->wfile = kvcalloc(n, sizeof(*p->wfile), GFP_KERNEL);
	p->order = kvcalloc(n, sizeof(*p->order), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
			bench_pipes_free, p));
	KUNIT_ASSERT_TRUE(test, p->rfd && p->rfile && p->wfile && p->order);
}

/* @n more pipes in @p (allocated by bench_pipes_alloc()). */
static void bench_pipes_add(struct kunit *test, struct bench_pipes *p,
			    unsigned int n)
{
	struct file *res[2];
	unsigned int i;
	int fd;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, 0, create_pipe_files(res, O_NONBLOCK));
		fd = get_unused_fd_flags(0);
		if (fd < 0) {
			fput(res[0]);
			fput(res[1]);
			KUNIT_ASSERT_GE(test, fd, 0);
		}
		p->rfile[p->n] = get_file(res[0]);
		fd_install(fd, res[0]);
		p->rfd[p->n] = fd;
		p->wfile[p->n] = res[1];
		p->n++;
	}
}

static void bench_copy_out(struct kunit *test, void __user *dst,
			   const void *src, size_t len)
{
	KUNIT_ASSERT_EQ(test, 0UL, copy_to_user(dst, src, len));
}

/* A new queue for @b's reader (none for the unwatched one). */
static void bench_watch_open(struct bench *b)
{
	if (b->reader == R_UNWATCHED) {
		b->qfd = -1;
		return;
	}
	if (b->reader == R_EPOLL_ET || b->reader == R_EPOLL_LT)
		b->qfd = sys_epoll_create1(0);
	else
		b->qfd = kevent_queue_getfd(0);
	bench_own_fd(b->test, b->qfd);
}

/* Watch pipes @from ... @from + @n - 1 of @p (n <= BENCH_CTL) from @b's queue. */
static void bench_watch_range(struct bench *b, struct bench_pipes *p,
			      unsigned int from, unsigned int n)
{
	struct kunit *test = b->test;
	struct ukevent uk[BENCH_CTL];
	unsigned int i;

	if (b->reader == R_UNWATCHED)
		return;
	if (b->reader == R_EPOLL_ET || b->reader == R_EPOLL_LT) {
		for (i = from; i < from + n; i++) {
			struct epoll_event ev = {
				.events = EPOLLIN |
					  (b->reader == R_EPOLL_ET ? EPOLLET : 0),
				.data = i,
			};

			KUNIT_ASSERT_EQ(test, 0, do_epoll_ctl(b->qfd, EPOLL_CTL_ADD,
							      p->rfd[i], &ev, false));
		}
		return;
	}
	memset(uk, 0, sizeof(uk));
	for (i = 0; i < n; i++) {
		uk[i].type = KEVENT_POLL;
		uk[i].event = POLLIN;
		uk[i].req_flags = KEVENT_REQ_ET;
		uk[i].id.raw[0] = p->rfd[from + i];
		uk[i].user[0] = from + i;
	}
	bench_copy_out(test, b->mem, uk, n * sizeof(uk[0]));
	KUNIT_ASSERT_EQ(test, 0L, kevent_sys_ctl(b->qfd, KEVENT_CTL_ADD,
						 n, b->mem));
}

/* Collect @k events through @b's reader; returns how many came. */
static long bench_collect(struct bench *b, unsigned int k)
{
	unsigned int got = 0;
	long ret;

	while (got < k) {
		switch (b->reader) {
		case R_GET_EVENTS:
			ret = kevent_sys_get_events(b->qfd, 0, k - got, 0,
						    b->mem, 0);
			break;
		case R_RING:
			ret = kevent_sys_wait(b->qfd, k - got, 0);
			break;
		case R_UNWATCHED:
			return k;
		default:
			ret = sys_epoll_wait(b->qfd, b->mem, k - got, 0);
			break;
		}
		if (ret <= 0)
			return ret < 0 ? ret : got;
		got += ret;
	}
	return got;
}

/*
 * A new random order of @n things (readers, pipes) in @order
 * (Fisher-Yates, from a seeded generator, so a run can be repeated).
 * For the readers, not a rotation: with one, each reader would always
 * follow the same other reader, and find the cache lines next to its
 * objects, which are that reader's (they are allocated interleaved),
 * warm or cold by that reader's doing; at N = 10000 that was worth 30 to
 * 50 ns per event between kevent's two readers.
 */
static void bench_shuffle(struct rnd_state *rnd, unsigned int *order,
			  unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = prandom_u32_state(rnd) % (i + 1);
		swap(order[i], order[j]);
	}
}

/*
 * One repetition: @rounds rounds of K writes and one collection.  The
 * pipes are made ready in a new random order (@rnd) in each repetition,
 * K distinct ones per round.  In the order they were made, a round's
 * pipes and watches are the memory neighbours of the previous round's,
 * which that round's collection and draining had just touched, and what
 * came into the cache with them depended on the reader's own objects and
 * collection: at K = 1 and N >= 1000, kevent's two readers, which run the
 * same notification code, differed by 3 to 35 ns per notification, in
 * the median over the boots (2.5 at most in a random order, nine boots).
 * In a random order, every notification finds its objects as cold as N
 * makes them, as a server's would.
 */
static void bench_pipes_rep(struct bench *b, struct bench_pipes *p,
			    unsigned int k, unsigned int rounds,
			    struct rnd_state *rnd, u64 *notify, u64 *collect)
{
	struct kunit *test = b->test;
	unsigned int r, j, first, next = 0;
	char c = 'x';
	loff_t pos;
	u64 t0, t1, t2;
	long got;

	bench_shuffle(rnd, p->order, p->n);
	*notify = 0;
	*collect = 0;
	for (r = 0; r < rounds; r++) {
		first = next;
		t0 = ktime_get_ns();
		for (j = 0; j < k; j++) {
			pos = 0;
			kernel_write(p->wfile[p->order[(first + j) % p->n]],
				     &c, 1, &pos);
		}
		t1 = ktime_get_ns();
		got = bench_collect(b, k);
		t2 = ktime_get_ns();
		*notify += t1 - t0;
		*collect += t2 - t1;
		KUNIT_ASSERT_EQ_MSG(test, got, (long)k, "%s N=%u K=%u round %u",
				    bench_reader_name[b->reader], p->n, k, r);
		/* Not timed: empty the pipes for the next round. */
		for (j = 0; j < k; j++) {
			pos = 0;
			kernel_read(p->rfile[p->order[(first + j) % p->n]],
				    &c, 1, &pos);
		}
		next = (first + k) % p->n;
		cond_resched();
	}
}

static int bench_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static s64 bench_median_s64(s64 *v, unsigned int n)
{
	if (!n)
		return 0;
	sort(v, n, sizeof(*v), bench_cmp_s64, NULL);
	return v[n / 2];
}

/* A figure in tenths of ns as "[-]N.N", in @buf (BENCH_FMT bytes). */
#define BENCH_FMT	24
static const char *bench_tenths(char *buf, s64 v)
{
	u64 a = abs(v);

	snprintf(buf, BENCH_FMT, "%s%llu.%llu", v < 0 ? "-" : "", a / 10, a % 10);
	return buf;
}

/* A ratio in thousandths as "N.NNN", or "-" when none was had. */
static const char *bench_ratio(char *buf, s64 v, unsigned int had)
{
	u64 a = abs(v);

	if (!had)
		return "-";
	snprintf(buf, BENCH_FMT, "%s%llu.%03llu", v < 0 ? "-" : "",
		 a / 1000, a % 1000);
	return buf;
}

enum bench_what { B_NOTIFY, B_COLLECT, B_OWN, B_COLL, B_Q, B_WHOLE };

/*
 * Figure @w of reader @r in repetition @i, in tenths of ns per event:
 * its notify, collect or whole figure as measured, or (B_OWN) its own
 * share of a notification, its notify figure minus the unwatched
 * reader's (the pipe write and the clock) of the same repetition,
 * (B_COLL) its collection minus the clock (the unwatched reader's
 * collect figure, which collects nothing), or (B_Q) their sum.
 */
static s64 bench_get(const struct bench_fig *f, enum bench_what w, int r,
		     unsigned int i)
{
	s64 own = (s64)f[r].notify[i] - (s64)f[R_UNWATCHED].notify[i];
	s64 coll = (s64)f[r].collect[i] - (s64)f[R_UNWATCHED].collect[i];

	switch (w) {
	case B_NOTIFY:
		return f[r].notify[i];
	case B_COLLECT:
		return f[r].collect[i];
	case B_OWN:
		return own;
	case B_COLL:
		return coll;
	case B_Q:
		return own + coll;
	default:
		return f[r].total[i];
	}
}

/*
 * The median over the repetitions of reader @a's figure @w over reader
 * @b's, paired within each repetition, in thousandths; *@had: how many
 * repetitions had a positive denominator.
 */
static s64 bench_paired_ratio(s64 *v, const struct bench_fig *f,
			      enum bench_what w, int a, int b,
			      unsigned int *had)
{
	unsigned int i, m = 0;
	s64 den;

	for (i = 0; i < BENCH_REPS; i++) {
		den = bench_get(f, w, b, i);
		if (den > 0)
			v[m++] = div64_s64(bench_get(f, w, a, i) * 1000, den);
	}
	*had = m;
	return bench_median_s64(v, m);
}

/* The median over the repetitions of reader @r's figure @w. */
static s64 bench_paired_median(s64 *v, const struct bench_fig *f,
			       enum bench_what w, int r)
{
	unsigned int i;

	for (i = 0; i < BENCH_REPS; i++)
		v[i] = bench_get(f, w, r, i);
	return bench_median_s64(v, BENCH_REPS);
}

/*
 * The gate of the figures of one (N, K): kevent_get_events and
 * kevent_ring run the same notification code, so their notify figures
 * must agree (the median of their difference, paired within each
 * repetition) within BENCH_GATE_NS, or BENCH_GATE_COLD_NS at N = 10000
 * where every object is cache-cold.  A benchmark that cannot tell two
 * equal things apart cannot tell kevent from epoll by less than that:
 * valid=no says this boot's difference is out of bounds.  The gate
 * itself is over several boots (scripts/bench_kernel.py): the median of
 * the boots' differences must be within the bound, since what one boot
 * fixes (where its objects land in the cache) moves a boot's difference
 * by about the bound, with a sign that changes from boot to boot.
 */
#define BENCH_GATE_NS		20	/* tenths: 2 ns */
#define BENCH_GATE_COLD_NS	50	/* 5 ns */

/*
 * One "# bench-paired:" line per (N, K): the shares and the ratios of
 * issue 27's targets, each the median over the repetitions of a figure
 * computed within each repetition (so a disturbance of one repetition
 * moves one value of each).  write = the unwatched reader's notify
 * figure (the pipe write and the clock), clock = its collect figure;
 * own_R, coll_R, q_R as bench_get()'s B_OWN, B_COLL, B_Q; t1_R =
 * own_R / own_epoll_et, t2_R = q_R / q_epoll_et, t3 = coll_ring /
 * coll_get, whole_R = R's whole figure / epoll_et's.
 */
static void bench_paired(struct kunit *test, unsigned int n, unsigned int k,
			 const struct bench_fig *f)
{
	static const int cmp[] = { R_GET_EVENTS, R_RING, R_EPOLL_ET, R_EPOLL_LT };
	char b[16][BENCH_FMT];
	unsigned int i, had[5], limit;
	s64 *v, diff, own[4], q[4], r[5];

	v = kunit_kcalloc(test, BENCH_REPS, sizeof(*v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	for (i = 0; i < BENCH_REPS; i++)
		v[i] = (s64)f[R_GET_EVENTS].notify[i] - (s64)f[R_RING].notify[i];
	diff = bench_median_s64(v, BENCH_REPS);
	limit = n >= 10000 ? BENCH_GATE_COLD_NS : BENCH_GATE_NS;
	for (i = 0; i < ARRAY_SIZE(cmp); i++) {
		own[i] = bench_paired_median(v, f, B_OWN, cmp[i]);
		q[i] = bench_paired_median(v, f, B_Q, cmp[i]);
	}
	r[0] = bench_paired_ratio(v, f, B_OWN, R_GET_EVENTS, R_EPOLL_ET, &had[0]);
	r[1] = bench_paired_ratio(v, f, B_Q, R_GET_EVENTS, R_EPOLL_ET, &had[1]);
	r[2] = bench_paired_ratio(v, f, B_Q, R_RING, R_EPOLL_ET, &had[2]);
	r[3] = bench_paired_ratio(v, f, B_COLL, R_RING, R_GET_EVENTS, &had[3]);
	r[4] = bench_paired_ratio(v, f, B_WHOLE, R_GET_EVENTS, R_EPOLL_ET, &had[4]);
	kunit_info(test,
		   "bench-paired: shape=pipes N=%u K=%u reps=%u blocks=%u write=%s clock=%s own_get=%s own_ring=%s own_epoll_et=%s own_epoll_lt=%s q_get=%s q_ring=%s q_epoll_et=%s t1_get=%s t2_get=%s t2_ring=%s t3=%s whole_get=%s gate_diff=%s gate_limit=%s valid=%s\n",
		   n, k, BENCH_REPS, BENCH_BLOCKS,
		   bench_tenths(b[0], bench_paired_median(v, f, B_NOTIFY, R_UNWATCHED)),
		   bench_tenths(b[1], bench_paired_median(v, f, B_COLLECT, R_UNWATCHED)),
		   bench_tenths(b[2], own[0]), bench_tenths(b[3], own[1]),
		   bench_tenths(b[4], own[2]), bench_tenths(b[5], own[3]),
		   bench_tenths(b[6], q[0]), bench_tenths(b[7], q[1]),
		   bench_tenths(b[8], q[2]),
		   bench_ratio(b[9], r[0], had[0]), bench_ratio(b[10], r[1], had[1]),
		   bench_ratio(b[11], r[2], had[2]), bench_ratio(b[12], r[3], had[3]),
		   bench_ratio(b[13], r[4], had[4]),
		   bench_tenths(b[14], diff), bench_tenths(b[15], limit),
		   abs(diff) <= limit ? "yes" : "no");
	kunit_kfree(test, v);
}

/*
 * Calibration: what the figures' parts cost alone, in tenths of ns, the
 * fastest of 5 tries of BENCH_CAL_LOOPS each: a ktime_get_ns() (the
 * clock every figure includes), a __put_user() of 8 bytes (epoll stores
 * two per event), a copy_to_user() of 640 bytes (kevent's batch of 16
 * ukevents).
 */
#define BENCH_CAL_LOOPS	4096

static void bench_calibrate(struct bench *b)
{
	struct kunit *test = b->test;
	u64 __user *word = b->mem;
	u64 t0, ns, best[3] = { U64_MAX, U64_MAX, U64_MAX }, sink = 0;
	char buf[3][BENCH_FMT];
	unsigned int i, try;
	void *src;

	src = kunit_kzalloc(test, 16 * sizeof(struct ukevent), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	for (try = 0; try < 5; try++) {
		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_CAL_LOOPS; i++)
			sink += ktime_get_ns();
		ns = ktime_get_ns() - t0;
		best[0] = min(best[0], ns);

		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_CAL_LOOPS; i++)
			if (__put_user(sink + i, word))
				break;
		ns = ktime_get_ns() - t0;
		KUNIT_ASSERT_EQ(test, i, BENCH_CAL_LOOPS);
		best[1] = min(best[1], ns);

		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_CAL_LOOPS; i++)
			if (copy_to_user(b->mem, src, 16 * sizeof(struct ukevent)))
				break;
		ns = ktime_get_ns() - t0;
		KUNIT_ASSERT_EQ(test, i, BENCH_CAL_LOOPS);
		best[2] = min(best[2], ns);
	}
	for (i = 0; i < 3; i++)
		bench_tenths(buf[i], div64_u64(best[i] * 10, BENCH_CAL_LOOPS));
	kunit_info(test,
		   "bench-calibrate: ktime_get_ns=%s put_user_8=%s copy_to_user_640=%s\n",
		   buf[0], buf[1], buf[2]);
	kunit_kfree(test, src);
}

/*
 * K ready per round, every reader, repetitions @from to @to - 1 into @f
 * (one per reader): the repetitions interleave the readers (one
 * repetition of each, in a new random order each time), so a
 * disturbance of the machine (another process, the host) falls on all
 * of them alike, and no reader's place in the order favours it.
 */
static void bench_pipes_k(struct bench *bs, struct bench_pipes *ps,
			  unsigned int k, struct rnd_state *rnd,
			  struct bench_fig *f, unsigned int from, unsigned int to)
{
	unsigned int rounds = max_t(unsigned int, (k == 1 ? 4 : 1) * BENCH_EVENTS / k, 16);
	unsigned int i, r, s, order[R_NR];
	u64 nt, co, events = (u64)rounds * k;

	for (r = 0; r < R_NR; r++)	/* warm-up */
		bench_pipes_rep(&bs[r], &ps[r], k, rounds / 4 + 1, rnd,
				&nt, &co);
	for (i = from; i < to; i++) {
		bench_shuffle(rnd, order, R_NR);
		for (s = 0; s < R_NR; s++) {
			r = order[s];
			bench_pipes_rep(&bs[r], &ps[r], k, rounds, rnd,
					&nt, &co);
			f[r].notify[i] = div64_u64(nt * 10, events);
			f[r].collect[i] = div64_u64(co * 10, events);
			f[r].total[i] = div64_u64((nt + co) * 10, events);
		}
	}
}

static void bench_init(struct kunit *test, struct bench *b)
{
	size_t len = PAGE_ALIGN(struct_size_t(struct kevent_ring, event, BENCH_RING));
	unsigned long mem, ring;

	b->test = test;
	mem = kt_user_mem(test, BENCH_MAX_T * sizeof(struct ukevent));
	ring = kt_user_mem(test, len);
	KUNIT_ASSERT_NE(test, mem, 0UL);
	KUNIT_ASSERT_NE(test, ring, 0UL);
	b->mem = (void __user *)mem;
	b->ring = (struct kevent_ring __user *)ring;
	/* Fault the pages in: no reader pays for the first touch. */
	KUNIT_ASSERT_EQ(test, 0UL, clear_user(b->mem, BENCH_MAX_T * sizeof(struct ukevent)));
	KUNIT_ASSERT_EQ(test, 0UL, clear_user(b->ring, len));
}

static const unsigned int bench_n[] = { 10, 1000, 10000 };
static const unsigned int bench_k[] = { 1, 16, 128 };

static void bench_n_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "N=%u", *n);
}
KUNIT_ARRAY_PARAM(bench_n, bench_n, bench_n_desc);

/*
 * Every reader's pipes and queue, N pipes each.  Each reader has pipes
 * of its own, so a write wakes at most one watcher (none for the
 * unwatched reader's).  Pipes, then watches, are made for every reader,
 * BENCH_CTL at a time, the readers in a new random order (@rnd) each
 * time: no reader's objects are all older, all in one place, or always
 * next to the same other reader's.  @calibrate: print the calibration.
 */
static void bench_setup(struct kunit *test, unsigned int n,
			struct rnd_state *rnd, bool calibrate,
			struct bench **bsp, struct bench_pipes **psp)
{
	unsigned int i, r, c, s, order[R_NR];
	struct bench_pipes *ps;
	struct bench *bs;

	bs = kunit_kcalloc(test, R_NR, sizeof(*bs), GFP_KERNEL);
	ps = kunit_kcalloc(test, R_NR, sizeof(*ps), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, bs && ps);
	bench_nofile();
	for (r = 0; r < R_NR; r++) {
		bench_init(test, &bs[r]);
		bs[r].reader = r;
		bench_pipes_alloc(test, &ps[r], n);
	}
	if (calibrate)
		bench_calibrate(&bs[0]);
	for (i = 0; i < n; i += c) {
		c = min_t(unsigned int, n - i, BENCH_CTL);
		bench_shuffle(rnd, order, R_NR);
		for (s = 0; s < R_NR; s++)
			bench_pipes_add(test, &ps[order[s]], c);
	}
	bench_shuffle(rnd, order, R_NR);
	for (s = 0; s < R_NR; s++)
		bench_watch_open(&bs[order[s]]);
	for (i = 0; i < n; i += c) {
		c = min_t(unsigned int, n - i, BENCH_CTL);
		bench_shuffle(rnd, order, R_NR);
		for (s = 0; s < R_NR; s++) {
			r = order[s];
			bench_watch_range(&bs[r], &ps[r], i, c);
		}
	}
	KUNIT_ASSERT_EQ(test, 0L, kevent_sys_ring_init(bs[R_RING].qfd,
						       bs[R_RING].ring,
						       BENCH_RING));
	*bsp = bs;
	*psp = ps;
}

/* Each queue before its pipes, as at a failed assertion. */
static void bench_teardown(struct kunit *test, struct bench *bs,
			   struct bench_pipes *ps)
{
	unsigned int r;

	for (r = 0; r < R_NR; r++) {
		if (bs[r].qfd >= 0)
			bench_close_fd(test, bs[r].qfd);
		kunit_release_action(test, bench_pipes_free, &ps[r]);
	}
	kunit_kfree(test, bs);
	kunit_kfree(test, ps);
}

/* N pipes per reader, each K (K above N: K = N, all ready). */
static void bench_pipes(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	struct bench_fig *f[ARRAY_SIZE(bench_k)];
	unsigned int i, k[ARRAY_SIZE(bench_k)], nk = 0, blk, r;
	struct rnd_state rnd;
	struct bench_pipes *ps;
	struct bench *bs;

	for (i = 0; i < ARRAY_SIZE(bench_k); i++) {
		if (nk && min(bench_k[i], n) == k[nk - 1])
			continue;
		k[nk] = min(bench_k[i], n);
		f[nk] = kunit_kcalloc(test, R_NR, sizeof(*f[nk]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f[nk]);
		nk++;
	}
	prandom_seed_state(&rnd, 0x6b6576656e74ULL + n);
	for (blk = 0; blk < BENCH_BLOCKS; blk++) {
		bench_setup(test, n, &rnd, !blk, &bs, &ps);
		for (i = 0; i < nk; i++)
			bench_pipes_k(bs, ps, k[i], &rnd, f[i],
				      blk * BENCH_REPS / BENCH_BLOCKS,
				      (blk + 1) * BENCH_REPS / BENCH_BLOCKS);
		bench_teardown(test, bs, ps);
	}
	for (i = 0; i < nk; i++) {
		/* Before bench_report(), which sorts each figure on its own. */
		bench_paired(test, n, k[i], f[i]);
		for (r = 0; r < R_NR; r++)
			bench_report(test, "pipes", bench_reader_name[r], n,
				     k[i], &f[i][r]);
	}
}

/*
 * Shape sleep: the collector is asleep in its wait (timeout 1 s) when
 * the notification comes, as a server's event loop mostly is.  A kthread
 * of the test's mm (kthread_use_mm()) collects for the reader; the KUnit
 * thread waits until it sleeps in the wait, makes one pipe readable, and
 * waits for it to come back.  notify_ns: the write, which now wakes a
 * task; ns_per_event: the wake-up latency, from the write's start to the
 * collection's return in the woken task (the write, the wake-up, the
 * switch to that task and the collection of one event); collect_ns their
 * difference.  BENCH_SLEEP_ROUNDS rounds per repetition, each on a pipe
 * of a new random order (as in shape pipes), the readers' repetitions
 * interleaved in a random order.  The unwatched reader has no collector
 * and is not measured here (its write is the pipes shape's).
 *
 * The KUnit thread writes as SCHED_FIFO, so that the woken collector
 * runs only once the writer waits for it, in every round.  With both
 * SCHED_NORMAL, the scheduler let the wake-up preempt the write in some
 * boots and not in others: the same reader's latency was 340 ns in one
 * boot and 850 in the next, and where it preempted, the write's figure
 * held the whole collection, which came back before the write did (its
 * collect_ns, a difference of unsigned clocks, wrapped).
 */
#define BENCH_SLEEP_ROUNDS	16

struct bench_sleeper {
	struct bench		*b;
	struct mm_struct	*mm;
	struct task_struct	*task;
	struct completion	go, done;
	bool			stop;
	long			got;
	u64			back;	/* ktime_get_ns() when it came back */
};

/* One event, waiting for it as long as 1 s. */
static long bench_collect_wait(struct bench *b)
{
	switch (b->reader) {
	case R_GET_EVENTS:
		return kevent_sys_get_events(b->qfd, 1, 1, NSEC_PER_SEC, b->mem, 0);
	case R_RING:
		return kevent_sys_wait(b->qfd, 1, NSEC_PER_SEC);
	default:
		return sys_epoll_wait(b->qfd, b->mem, 1, MSEC_PER_SEC);
	}
}

static int bench_sleeper_fn(void *arg)
{
	struct bench_sleeper *sl = arg;

	kthread_use_mm(sl->mm);
	for (;;) {
		wait_for_completion(&sl->go);
		if (READ_ONCE(sl->stop))
			break;
		sl->got = bench_collect_wait(sl->b);
		sl->back = ktime_get_ns();
		complete(&sl->done);
	}
	kthread_unuse_mm(sl->mm);
	while (!kthread_should_stop())
		schedule_timeout_uninterruptible(1);
	return 0;
}

/* Whether @sl's collector sleeps in its wait (not for its go). */
static bool bench_sleeper_asleep(struct bench_sleeper *sl)
{
	return READ_ONCE(sl->task->__state) == TASK_INTERRUPTIBLE;
}

/* One repetition of the sleep shape for @sl's reader; false on a failure. */
static bool bench_sleep_rep(struct bench_sleeper *sl, struct bench_pipes *p,
			    struct rnd_state *rnd, u64 *notify, u64 *latency)
{
	unsigned int r, tries, i;
	char c = 'x';
	loff_t pos;
	u64 t0, t1;

	bench_shuffle(rnd, p->order, p->n);
	*notify = 0;
	*latency = 0;
	for (r = 0; r < BENCH_SLEEP_ROUNDS; r++) {
		i = p->order[r % p->n];
		complete(&sl->go);
		for (tries = 0; !bench_sleeper_asleep(sl); tries++) {
			if (tries > 100000)
				return false;
			usleep_range(10, 20);
		}
		pos = 0;
		t0 = ktime_get_ns();
		kernel_write(p->wfile[i], &c, 1, &pos);
		t1 = ktime_get_ns();
		wait_for_completion(&sl->done);
		/* The collector runs once the writer waits: back after t1. */
		if (sl->got != 1 || sl->back < t1)
			return false;
		*notify += t1 - t0;
		*latency += sl->back - t0;
		pos = 0;
		kernel_read(p->rfile[i], &c, 1, &pos);
	}
	return true;
}

static const unsigned int bench_sleep_n[] = { 10, 1000 };
KUNIT_ARRAY_PARAM(bench_sleep_n, bench_sleep_n, bench_n_desc);

static void bench_sleep(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	static const int readers[] = { R_GET_EVENTS, R_RING, R_EPOLL_ET };
	const unsigned int nr = ARRAY_SIZE(readers);
	struct bench_sleeper *sl;
	unsigned int i, j, r, order[ARRAY_SIZE(readers)];
	struct rnd_state rnd;
	struct bench_pipes *ps;
	struct bench_fig *f;
	struct bench *bs;
	bool ok = true;
	u64 nt, lat;

	prandom_seed_state(&rnd, 0x736c656570ULL + n);
	bench_setup(test, n, &rnd, true, &bs, &ps);
	sl = kunit_kcalloc(test, nr, sizeof(*sl), GFP_KERNEL);
	f = kunit_kcalloc(test, nr, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sl && f);
	for (j = 0; j < nr; j++) {
		sl[j].b = &bs[readers[j]];
		sl[j].mm = current->mm;
		init_completion(&sl[j].go);
		init_completion(&sl[j].done);
		sl[j].task = kthread_run(bench_sleeper_fn, &sl[j], "bench-sleep-%u", j);
		if (IS_ERR(sl[j].task)) {
			ok = false;
			break;
		}
		get_task_struct(sl[j].task);
	}
	sched_set_fifo_low(current);
	for (i = 0; ok && i <= BENCH_REPS; i++) {
		bench_shuffle(&rnd, order, nr);
		for (j = 0; ok && j < nr; j++) {
			r = order[j];
			ok = bench_sleep_rep(&sl[r], &ps[readers[r]], &rnd,
					     &nt, &lat);
			if (!i)		/* the first is the warm-up */
				continue;
			f[r].notify[i - 1] = div64_u64(nt * 10, BENCH_SLEEP_ROUNDS);
			f[r].total[i - 1] = div64_u64(lat * 10, BENCH_SLEEP_ROUNDS);
			f[r].collect[i - 1] = f[r].total[i - 1] - f[r].notify[i - 1];
		}
	}
	sched_set_normal(current, 0);
	for (j = 0; j < nr && !IS_ERR_OR_NULL(sl[j].task); j++) {
		WRITE_ONCE(sl[j].stop, true);
		complete(&sl[j].go);
		kthread_stop(sl[j].task);
		put_task_struct(sl[j].task);
	}
	KUNIT_ASSERT_TRUE_MSG(test, ok, "a collector did not sleep, did not get its event, or came back before the write");
	for (j = 0; j < nr; j++)
		bench_report(test, "sleep", bench_reader_name[readers[j]], n, 1,
			     &f[j]);
	bench_teardown(test, bs, ps);
}

static const unsigned int bench_t[] = { 16, 128, 1024 };

static void bench_t_desc(const unsigned int *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "T=%u", *t);
}
KUNIT_ARRAY_PARAM(bench_t, bench_t, bench_t_desc);

/* Sleep until every timer has fired again since the last collection. */
static void bench_timers_sleep(void)
{
	usleep_range(2 * BENCH_TIMER_NS / NSEC_PER_USEC,
		     2 * BENCH_TIMER_NS / NSEC_PER_USEC + 1000);
}

static void bench_timers_kevent(struct bench *b, unsigned int t)
{
	struct kunit *test = b->test;
	struct ukevent uk[BENCH_CTL];
	unsigned int i, j, n;
	struct bench_fig *f;
	u64 t0, ns;
	long got;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);	/* 1.2 KiB */
	KUNIT_ASSERT_NOT_NULL(test, f);
	b->qfd = kevent_queue_getfd(0);
	bench_own_fd(test, b->qfd);
	for (i = 0; i < t; i += n) {
		n = min_t(unsigned int, t - i, BENCH_CTL);
		memset(uk, 0, sizeof(uk));
		for (j = 0; j < n; j++) {
			uk[j].type = KEVENT_TIMER;
			uk[j].event = KEVENT_TIMER_FIRED;
			/* Distinct keys: periods 1 ns apart. */
			uk[j].id.raw[1] = BENCH_TIMER_NS + i + j;
		}
		bench_copy_out(test, b->mem, uk, n * sizeof(uk[0]));
		KUNIT_ASSERT_EQ(test, 0L, kevent_sys_ctl(b->qfd, KEVENT_CTL_ADD,
							 n, b->mem));
	}
	for (i = 0; i <= BENCH_REPS; i++) {
		bench_timers_sleep();
		t0 = ktime_get_ns();
		got = kevent_sys_get_events(b->qfd, 0, t, 0, b->mem, 0);
		ns = ktime_get_ns() - t0;
		KUNIT_ASSERT_EQ(test, got, (long)t);
		if (i)	/* the first is the warm-up */
			f->total[i - 1] = f->collect[i - 1] = div64_u64(ns * 10, t);
	}
	bench_report(test, "timers", "kevent_get_events", t, t, f);
	bench_close_fd(test, b->qfd);
}

static void bench_timers_timerfd(struct bench *b, unsigned int t)
{
	struct kunit *test = b->test;
	struct __kernel_itimerspec its = {
		.it_interval.tv_nsec = BENCH_TIMER_NS,
		.it_value.tv_nsec = BENCH_TIMER_NS,
	};
	struct epoll_event __user *evs = b->mem;
	void __user *its_u = b->ring;	/* scratch */
	u64 __user *cnt = (u64 __user *)b->ring + 8;
	struct bench_fig *f;
	unsigned int i, j;
	int *tfd;
	u64 t0, ns;
	long got;

	tfd = kunit_kcalloc(test, t, sizeof(*tfd), GFP_KERNEL);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tfd && f);
	b->qfd = sys_epoll_create1(0);
	bench_own_fd(test, b->qfd);
	bench_copy_out(test, its_u, &its, sizeof(its));
	for (i = 0; i < t; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data = i };

		tfd[i] = sys_timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		bench_own_fd(test, tfd[i]);
		KUNIT_ASSERT_EQ(test, 0, do_epoll_ctl(b->qfd, EPOLL_CTL_ADD,
						      tfd[i], &ev, false));
		KUNIT_ASSERT_EQ(test, 0L, sys_timerfd_settime(tfd[i], 0, its_u, NULL));
	}
	for (i = 0; i <= BENCH_REPS; i++) {
		bench_timers_sleep();
		t0 = ktime_get_ns();
		got = sys_epoll_wait(b->qfd, evs, t, 0);
		for (j = 0; j < got; j++) {
			u64 data;

			if (get_user(data, &evs[j].data) ||
			    ksys_read(tfd[data], (char __user *)cnt, 8) != 8)
				break;
		}
		ns = ktime_get_ns() - t0;
		KUNIT_ASSERT_EQ(test, got, (long)t);
		KUNIT_ASSERT_EQ(test, j, t);
		if (i)
			f->total[i - 1] = f->collect[i - 1] = div64_u64(ns * 10, t);
	}
	bench_report(test, "timers", "timerfd_epoll_read", t, t, f);
	for (i = 0; i < t; i++)
		bench_close_fd(test, tfd[i]);
	bench_close_fd(test, b->qfd);
}

/* T periodic timers fired, collected: kevent against timerfds. */
static void bench_timers(struct kunit *test)
{
	const unsigned int t = *(const unsigned int *)test->param_value;
	struct bench *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	bench_init(test, b);
	bench_nofile();

	bench_timers_kevent(b, t);
	bench_timers_timerfd(b, t);
}

static struct kunit_case kevent_bench_cases[] = {
	KUNIT_CASE_PARAM_ATTR(bench_pipes, bench_n_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	KUNIT_CASE_PARAM_ATTR(bench_timers, bench_t_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	KUNIT_CASE_PARAM_ATTR(bench_sleep, bench_sleep_n_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	{}
};

/*
 * Very slow (minutes): the test runs filter it out (kunit.filter
 * 'speed>very_slow'), only ./run_tests.sh --bench runs it.
 */
static struct kunit_suite kevent_bench_suite = {
	.name = "kevent_bench",
	.test_cases = kevent_bench_cases,
	.attr.speed = KUNIT_SPEED_VERY_SLOW,
};
kunit_test_suite(kevent_bench_suite);

MODULE_LICENSE("GPL");
