// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit suite bench_kevent: kevent's delivery against epoll's, measured
 * inside the kernel (a system call into UML costs about 110 us of host
 * ptrace round trips; code inside it runs natively).  Not a test: the
 * default runs filter 'kevent*' and never run it; ./run_tests.sh --bench
 * does (scripts/run_bench.sh, CONFIG_KEVENT_BENCH).
 *
 * pipes: N pipes watched by one reader, K of them made readable per
 * round by kernel_write() of one byte on the write end, then collected
 * through the real entry points into user memory (kunit_vm_mmap()):
 * kevent_sys_get_events(), kevent_sys_wait() into a ring, sys_epoll_wait().
 * kevent watches with POLL kevents, ET; epoll with EPOLLIN|EPOLLET (the
 * same rule) and, for reference, level-triggered.  Each reader has its
 * own pipes and queue, so a write wakes at most one watcher, and the
 * readers' repetitions interleave.  A fifth reader, "unwatched", has
 * pipes that nothing watches and collects nothing: its notify figure is
 * the pipe write alone, which every watcher's notify figure includes.
 * The writes (notify: pipe write, wake-up, ready list) and the
 * collection are timed with ktime_get_ns(); draining the pipes
 * afterwards is not timed, for any reader.
 *
 * timers: T periodic timers (10 ms) all fired, then collected: T
 * KEVENT_TIMER kevents in kevent_get_events() calls against T timerfds
 * collected by epoll_wait() plus one read(2) of each (what a timerfd
 * user must do to learn the expiration count).  Only the collection is
 * timed; the expirations happen while the reader sleeps.
 *
 * Each (shape, reader, N, K) runs BENCH_REPS repetitions after one
 * warm-up; a repetition is enough rounds for about BENCH_EVENTS events.
 * One KTAP diagnostic line per figure, parsed by scripts/bench_kernel.py:
 *   # bench: shape=pipes reader=R N=.. K=.. ns_per_event=median min=.. max=..
 *     notify_ns=.. collect_ns=.. reps=..
 * (ns per event; notify_ns and collect_ns are the medians of the split).
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
#include <linux/mman.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/syscalls.h>
#include <linux/timerfd.h>
#include <linux/uaccess.h>
#include <linux/eventpoll.h>	/* after fs.h and uaccess.h, which it needs */
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

#define BENCH_REPS	51
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
	p->n = 0;
}

static void bench_pipes_create(struct kunit *test, struct bench_pipes *p,
			       unsigned int n)
{
	struct file *res[2];
	unsigned int i;
	int fd;

	p->n = 0;
	p->rfd = kvcalloc(n, sizeof(*p->rfd), GFP_KERNEL);
	p->rfile = kvcalloc(n, sizeof(*p->rfile), GFP_KERNEL);
	p->wfile = kvcalloc(n, sizeof(*p->wfile), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
			bench_pipes_free, p));
	KUNIT_ASSERT_TRUE(test, p->rfd && p->rfile && p->wfile);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, 0, create_pipe_files(res, O_NONBLOCK));
		fd = get_unused_fd_flags(0);
		if (fd < 0) {
			fput(res[0]);
			fput(res[1]);
			KUNIT_ASSERT_GE(test, fd, 0);
		}
		p->rfile[i] = get_file(res[0]);
		fd_install(fd, res[0]);
		p->rfd[i] = fd;
		p->wfile[i] = res[1];
		p->n++;
	}
}

static void bench_copy_out(struct kunit *test, void __user *dst,
			   const void *src, size_t len)
{
	KUNIT_ASSERT_EQ(test, 0UL, copy_to_user(dst, src, len));
}

/* Watch every pipe of @p from a new queue of @b's reader. */
static void bench_watch(struct bench *b, struct bench_pipes *p)
{
	struct kunit *test = b->test;
	struct ukevent uk[BENCH_CTL];
	unsigned int i, j, n;

	if (b->reader == R_UNWATCHED) {
		b->qfd = -1;
		return;
	}
	if (b->reader == R_EPOLL_ET || b->reader == R_EPOLL_LT) {
		b->qfd = sys_epoll_create1(0);
		bench_own_fd(test, b->qfd);
		for (i = 0; i < p->n; i++) {
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
	b->qfd = kevent_user_getfd(0);
	bench_own_fd(test, b->qfd);
	for (i = 0; i < p->n; i += n) {
		n = min_t(unsigned int, p->n - i, BENCH_CTL);
		memset(uk, 0, sizeof(uk));
		for (j = 0; j < n; j++) {
			uk[j].type = KEVENT_POLL;
			uk[j].event = POLLIN;
			uk[j].req_flags = KEVENT_REQ_ET;
			uk[j].id.raw[0] = p->rfd[i + j];
			uk[j].user[0] = i + j;
		}
		bench_copy_out(test, b->mem, uk, n * sizeof(uk[0]));
		KUNIT_ASSERT_EQ(test, 0L, kevent_sys_ctl(b->qfd, KEVENT_CTL_ADD,
							 n, b->mem));
	}
	if (b->reader == R_RING)
		KUNIT_ASSERT_EQ(test, 0L, kevent_sys_ring_init(b->qfd, b->ring,
							       BENCH_RING));
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

/* One repetition: @rounds rounds of K writes and one collection. */
static void bench_pipes_rep(struct bench *b, struct bench_pipes *p,
			    unsigned int k, unsigned int rounds,
			    unsigned int *next, u64 *notify, u64 *collect)
{
	struct kunit *test = b->test;
	unsigned int r, j, first;
	char c = 'x';
	loff_t pos;
	u64 t0, t1, t2;
	long got;

	*notify = 0;
	*collect = 0;
	for (r = 0; r < rounds; r++) {
		first = *next;
		t0 = ktime_get_ns();
		for (j = 0; j < k; j++) {
			pos = 0;
			kernel_write(p->wfile[(first + j) % p->n], &c, 1, &pos);
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
			kernel_read(p->rfile[(first + j) % p->n], &c, 1, &pos);
		}
		*next = (first + k) % p->n;
		cond_resched();
	}
}

/*
 * K ready per round, every reader: the repetitions interleave the
 * readers (one repetition of each in turn), so a disturbance of the
 * machine (another process, the host) falls on all of them alike.
 */
static void bench_pipes_k(struct kunit *test, struct bench *bs,
			  struct bench_pipes *ps, unsigned int k)
{
	unsigned int rounds = max_t(unsigned int, BENCH_EVENTS / k, 16);
	unsigned int i, r, next[R_NR] = {};
	u64 nt, co, events = (u64)rounds * k;
	struct bench_fig *f;

	f = kunit_kcalloc(test, R_NR, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (r = 0; r < R_NR; r++)	/* warm-up */
		bench_pipes_rep(&bs[r], &ps[r], k, rounds / 4 + 1, &next[r],
				&nt, &co);
	for (i = 0; i < BENCH_REPS; i++) {
		for (r = 0; r < R_NR; r++) {
			bench_pipes_rep(&bs[r], &ps[r], k, rounds, &next[r],
					&nt, &co);
			f[r].notify[i] = div64_u64(nt * 10, events);
			f[r].collect[i] = div64_u64(co * 10, events);
			f[r].total[i] = div64_u64((nt + co) * 10, events);
		}
	}
	for (r = 0; r < R_NR; r++)
		bench_report(test, "pipes", bench_reader_name[r], ps[r].n, k,
			     &f[r]);
	kunit_kfree(test, f);
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
 * N pipes per reader, each K (K above N: K = N, all ready).  Each reader
 * has pipes of its own, allocated just before its queue's watches, so
 * all have the same memory layout and a write wakes at most one watcher
 * (none for the unwatched reader's).
 */
static void bench_pipes(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	struct bench_pipes *ps;
	struct bench *bs;
	unsigned int i, k, r;

	bs = kunit_kcalloc(test, R_NR, sizeof(*bs), GFP_KERNEL);
	ps = kunit_kcalloc(test, R_NR, sizeof(*ps), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, bs && ps);
	bench_nofile();
	for (r = 0; r < R_NR; r++) {
		bench_init(test, &bs[r]);
		bs[r].reader = r;
		bench_pipes_create(test, &ps[r], n);
		bench_watch(&bs[r], &ps[r]);
	}
	for (i = 0; i < ARRAY_SIZE(bench_k); i++) {
		k = min(bench_k[i], n);
		if (i && k == min(bench_k[i - 1], n))
			continue;
		bench_pipes_k(test, bs, ps, k);
	}
	/* Each queue before its pipes, as at a failed assertion. */
	for (r = 0; r < R_NR; r++) {
		if (bs[r].qfd >= 0)
			bench_close_fd(test, bs[r].qfd);
		kunit_release_action(test, bench_pipes_free, &ps[r]);
	}
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
	b->qfd = kevent_user_getfd(0);
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

static struct kunit_case bench_kevent_cases[] = {
	KUNIT_CASE_PARAM_ATTR(bench_pipes, bench_n_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(bench_timers, bench_t_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

/*
 * Not 'kevent*': kunit_tool's filter of the test runs does not match it,
 * only ./run_tests.sh --bench runs it.
 */
static struct kunit_suite bench_kevent_suite = {
	.name = "bench_kevent",
	.test_cases = bench_kevent_cases,
};
kunit_test_suite(bench_kevent_suite);

MODULE_LICENSE("GPL");
