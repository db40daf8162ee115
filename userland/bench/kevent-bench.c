// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent-bench: event delivery at scale, kevent against epoll, poll() and
 * timerfd, side by side in one booted kernel.  Run by ./run_tests.sh
 * --bench (scripts/bench.py user); writes CSV (to --out FILE, or standard
 * output), one line per repetition:
 *
 *   shape,reader,n,rep,events,wall_s,cpu_s
 *
 * Shapes (see userland/bench/RESULTS.md):
 *   random     N pipes, a writer thread writes single bytes to random
 *              pipes; the reader collects up to 128 events per call and
 *              reads each ready pipe (Eric Dumazet's epoll_pipe_bench).
 *   oneactive  N pipes watched, only pipe 0 is ever written: the cost of
 *              idle watched objects.
 *   timers     T periodic timers with distinct periods; events are
 *              expirations (kevent's arrive counted in the event; timerfd's
 *              take a read each).
 * Readers: kevent_get_events and kevent_wait (ring) with KEVENT_POLL
 * events (ET) on the pipes or KEVENT_TIMER events; epoll ET and level;
 * poll(); for timers timerfd with epoll and with poll().  cpu_s is the
 * reader thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "kevent.h"

#define BATCH		128
#define RING		256
#define NS		1000000000ULL

static unsigned int duration_ms = 2000, reps = 5;
static FILE *csv;

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what)
{
	fprintf(stderr, "kevent-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- pipes ---- */

static int (*pipes)[2];
static unsigned int npipes;
static volatile int writer_stop;
static int one_active;

/*
 * The writer writes a burst, then sleeps briefly.  It shares UML's one CPU
 * with the reader (both SCHED_OTHER): the scheduler's time slices let
 * events pile up while the writer runs, so the reader finds many per call
 * (up to BATCH), instead of paying a context switch per event.  (A
 * SCHED_FIFO writer starves the reader in UML: tried, and dropped.)
 */
#define BURST		256
#define PAUSE_NS	500000

static void *writer(void *arg)
{
	struct timespec pause = { 0, PAUSE_NS };
	unsigned int x = 2463534242u, b;

	(void)arg;
	while (!writer_stop) {
		for (b = 0; b < BURST; b++) {
			unsigned int i = 0;

			if (!one_active) {
				x ^= x << 13;
				x ^= x >> 17;
				x ^= x << 5;
				i = x % npipes;
			}
			if (write(pipes[i][1], "x", 1) < 0 && errno != EAGAIN)
				fail("write");
		}
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* Read what a ready pipe holds; EAGAIN is a notification already served. */
static void take(int fd)
{
	char buf[4096];

	if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
		fail("read");
}

static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void drain_all(void)
{
	unsigned int i;

	for (i = 0; i < npipes; i++)
		drain(pipes[i][0]);
}

enum reader { KGET, KRING, EPOLL_ET, EPOLL_LT, POLL, TFD_EPOLL, TFD_POLL };
static const char *const reader_name[] = {
	"kevent_get_events", "kevent_wait_ring", "epoll_et", "epoll_lt",
	"poll", "timerfd_epoll", "timerfd_poll",
};

struct state {
	int q, ep;
	struct kevent_ring *ring;
	struct pollfd *pfd;
	int *tfd;
	unsigned int n;
};

static int kevent_queue(struct state *s)
{
	s->q = kevent_open(0);
	if (s->q < 0)
		fail("open /dev/kevent");
	return s->q;
}

static void kevent_add_all(struct state *s, struct ukevent *uk, unsigned int n)
{
	int r = kevent_ctl(s->q, KEVENT_CTL_ADD, n, uk);

	if (r != 0) {
		errno = r < 0 ? errno : EINVAL;
		fail("kevent_ctl ADD (an entry was ready or failed)");
	}
}

static void setup_ring(struct state *s)
{
	s->ring = mmap(NULL, sizeof(*s->ring) + RING * sizeof(struct ukevent),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->ring == MAP_FAILED || kevent_ring_init(s->q, s->ring, RING))
		fail("kevent_ring_init");
}

static void setup_pipes(struct state *s, enum reader r)
{
	struct ukevent *uk;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->n = npipes;
	switch (r) {
	case KGET:
	case KRING:
		kevent_queue(s);
		uk = calloc(npipes, sizeof(*uk));
		for (i = 0; i < npipes; i++) {
			uk[i] = kevent_poll(pipes[i][0], POLLIN, KEVENT_REQ_ET);
			uk[i].user[1] = i;
		}
		kevent_add_all(s, uk, npipes);
		free(uk);
		if (r == KRING)
			setup_ring(s);
		break;
	case EPOLL_ET:
	case EPOLL_LT:
		s->ep = epoll_create1(EPOLL_CLOEXEC);
		for (i = 0; i < npipes; i++) {
			struct epoll_event ev = {
				.events = EPOLLIN | (r == EPOLL_ET ? EPOLLET : 0),
				.data.u32 = i,
			};

			if (epoll_ctl(s->ep, EPOLL_CTL_ADD, pipes[i][0], &ev))
				fail("epoll_ctl");
		}
		break;
	default:
		s->pfd = calloc(npipes, sizeof(*s->pfd));
		for (i = 0; i < npipes; i++) {
			s->pfd[i].fd = pipes[i][0];
			s->pfd[i].events = POLLIN;
		}
		break;
	}
}

static void teardown(struct state *s)
{
	unsigned int i;

	if (s->ring)
		munmap(s->ring, sizeof(*s->ring) + RING * sizeof(struct ukevent));
	if (s->q > 0)
		close(s->q);
	if (s->ep > 0)
		close(s->ep);
	if (s->tfd)
		for (i = 0; i < s->n; i++)
			close(s->tfd[i]);
	free(s->tfd);
	free(s->pfd);
}

/* Indices of ready fds: up to one per watched pipe or timer. */
static unsigned int ready_idx[65536];

/*
 * One epoll_wait() or poll() on the fds of @s; the indices of the ready
 * ones go to @idx.  poll() scans every fd: that is its cost.
 */
static long ready_fds(struct state *s, unsigned int *idx)
{
	static struct epoll_event ev[BATCH];
	long n, i, got = 0;

	if (s->ep > 0) {
		n = epoll_wait(s->ep, ev, BATCH, 100);
		for (i = 0; i < n; i++)
			idx[i] = ev[i].data.u32;
		return n;
	}
	n = poll(s->pfd, s->n, 100);
	for (i = 0; n > 0 && i < s->n; i++) {
		if (!s->pfd[i].revents)
			continue;
		n--;
		idx[got++] = i;
	}
	return n < 0 ? n : got;
}

/* One wait and the work for what it returned; the number of events. */
static long pipe_round(struct state *s, enum reader r)
{
	static struct ukevent uk[BATCH];
	unsigned int *idx = ready_idx;
	long n, i;

	switch (r) {
	case KGET:
		n = kevent_get_events(s->q, 1, BATCH, 100 * 1000000ULL, uk, 0);
		for (i = 0; i < n; i++)
			take(pipes[uk[i].user[1]][0]);
		return n;
	case KRING: {
		unsigned int k = s->ring->ring_kidx;

		n = kevent_wait(s->q, BATCH, 100 * 1000000ULL);
		for (i = 0; i < n; i++) {
			struct ukevent *e = &s->ring->event[(k + i) % RING];

			take(pipes[e->user[1]][0]);
		}
		return n;
	}
	default:
		n = ready_fds(s, idx);
		for (i = 0; i < n; i++)
			take(pipes[idx[i]][0]);
		return n;
	}
}

/* ---- timers ---- */

/*
 * Timer i of T: about T * 0.49 ms, so that every T gives about 2000
 * expirations a second in all, plus 7.3 us * i to keep the periods (the
 * keys) distinct.  Periods that are not multiples of UML's 10 ms tick keep
 * the tick-sampled CPU clock from beating with the timers.
 */
static __u64 timer_period(unsigned int i, unsigned int t)
{
	return t * 487000ULL + i * 7300ULL;
}

static void setup_timers(struct state *s, enum reader r, unsigned int t)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->n = t;
	if (r == KGET || r == KRING) {
		struct ukevent *uk = calloc(t, sizeof(*uk));

		kevent_queue(s);
		for (i = 0; i < t; i++)
			uk[i] = kevent_timer(timer_period(i, t), 0);
		kevent_add_all(s, uk, t);
		free(uk);
		if (r == KRING)
			setup_ring(s);
		return;
	}
	s->tfd = calloc(t, sizeof(int));
	if (r == TFD_EPOLL)
		s->ep = epoll_create1(EPOLL_CLOEXEC);
	else
		s->pfd = calloc(t, sizeof(*s->pfd));
	for (i = 0; i < t; i++) {
		__u64 p = timer_period(i, t);
		struct itimerspec its = {
			.it_interval = { p / NS, p % NS },
			.it_value = { p / NS, p % NS },
		};

		s->tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (s->tfd[i] < 0 || timerfd_settime(s->tfd[i], 0, &its, NULL))
			fail("timerfd");
		if (r == TFD_EPOLL) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

			if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->tfd[i], &ev))
				fail("epoll_ctl");
		} else {
			s->pfd[i].fd = s->tfd[i];
			s->pfd[i].events = POLLIN;
		}
	}
}

/* One wait; returns the expirations it delivered. */
static long timer_round(struct state *s, enum reader r)
{
	static struct ukevent uk[BATCH];
	unsigned int *idx = ready_idx;
	long n, i, got = 0;
	uint64_t v;

	switch (r) {
	case KGET:
		n = kevent_get_events(s->q, 1, BATCH, 100 * 1000000ULL, uk, 0);
		for (i = 0; i < n; i++)
			got += uk[i].ret_data[0];
		return got;
	case KRING: {
		unsigned int k = s->ring->ring_kidx;

		n = kevent_wait(s->q, BATCH, 100 * 1000000ULL);
		for (i = 0; i < n; i++)
			got += s->ring->event[(k + i) % RING].ret_data[0];
		return got;
	}
	default:
		n = ready_fds(s, idx);
		for (i = 0; i < n; i++)
			if (read(s->tfd[idx[i]], &v, 8) == 8)
				got += v;
		return n < 0 ? n : got;
	}
}

/* ---- driver ---- */

static void measure(const char *shape, enum reader r, unsigned int n,
		    int timers)
{
	unsigned int rep;

	for (rep = 0; rep < reps; rep++) {
		double w0, c0, wall, cpu;
		struct state s;
		pthread_t w;
		long events = 0;

		if (timers)
			setup_timers(&s, r, n);
		else
			setup_pipes(&s, r);
		writer_stop = 0;
		if (!timers && pthread_create(&w, NULL, writer, NULL))
			fail("pthread_create");
		w0 = clock_s(CLOCK_MONOTONIC);
		c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		do {
			long got = timers ? timer_round(&s, r) : pipe_round(&s, r);

			if (got < 0 && errno != EINTR)
				fail(reader_name[r]);
			if (got > 0)
				events += got;
		} while (clock_s(CLOCK_MONOTONIC) - w0 < duration_ms / 1000.0);
		cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall = clock_s(CLOCK_MONOTONIC) - w0;
		writer_stop = 1;
		if (!timers) {
			pthread_join(w, NULL);
			drain_all();
		}
		teardown(&s);
		fprintf(csv, "%s,%s,%u,%u,%ld,%.4f,%.4f\n", shape,
			reader_name[r], n, rep, events, wall, cpu);
		fflush(csv);
		if (csv != stdout)
			printf("kevent-bench: %-9s %-17s n=%-5u rep %u: %8.0f events/s, %7.2f us CPU/event\n",
			       shape, reader_name[r], n, rep, events / wall,
			       events ? cpu * 1e6 / events : 0.0);
	}
}

static void make_pipes(unsigned int n)
{
	unsigned int i;

	pipes = calloc(n, sizeof(*pipes));
	for (i = 0; i < n; i++)
		if (pipe2(pipes[i], O_NONBLOCK | O_CLOEXEC))
			fail("pipe2");
	npipes = n;
}

static void free_pipes(void)
{
	unsigned int i;

	for (i = 0; i < npipes; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	free(pipes);
	npipes = 0;
}

static const char usage[] =
"usage: kevent-bench [--shapes random,oneactive,timers] [--sizes N,...]\n"
"                    [--timers T,...] [--reps R] [--duration-ms MS]\n"
"                    [--out FILE]\n";

static unsigned int parse_list(char *s, unsigned int *out, unsigned int max)
{
	unsigned int n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save))
		out[n++] = strtoul(tok, NULL, 10);
	return n;
}

int main(int argc, char **argv)
{
	unsigned int sizes[8] = { 10, 100, 1000, 10000 }, nsizes = 4;
	unsigned int tcounts[8] = { 1, 16, 256 }, ntcounts = 3, i, j;
	const char *shapes = "random,oneactive,timers";
	static const enum reader pipe_readers[] = {
		KGET, KRING, EPOLL_ET, EPOLL_LT, POLL,
	};
	static const enum reader timer_readers[] = {
		KGET, KRING, TFD_EPOLL, TFD_POLL,
	};
	struct rlimit rl = { 65536, 65536 };
	const char *out = NULL;
	int a;

	for (a = 1; a < argc; a++) {
		if (a + 1 < argc && !strcmp(argv[a], "--shapes"))
			shapes = argv[++a];
		else if (a + 1 < argc && !strcmp(argv[a], "--sizes"))
			nsizes = parse_list(argv[++a], sizes, 8);
		else if (a + 1 < argc && !strcmp(argv[a], "--timers"))
			ntcounts = parse_list(argv[++a], tcounts, 8);
		else if (a + 1 < argc && !strcmp(argv[a], "--reps"))
			reps = strtoul(argv[++a], NULL, 10);
		else if (a + 1 < argc && !strcmp(argv[a], "--duration-ms"))
			duration_ms = strtoul(argv[++a], NULL, 10);
		else if (a + 1 < argc && !strcmp(argv[a], "--out"))
			out = argv[++a];
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!reps || !duration_ms || !nsizes || !ntcounts) {
		fputs(usage, stderr);
		return 2;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fail("setrlimit");

	csv = out ? fopen(out, "w") : stdout;
	if (!csv)
		fail(out);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(csv, "shape,reader,n,rep,events,wall_s,cpu_s\n");
	for (i = 0; i < nsizes; i++) {
		make_pipes(sizes[i]);
		if (strstr(shapes, "random")) {
			one_active = 0;
			for (j = 0; j < sizeof(pipe_readers) / sizeof(pipe_readers[0]); j++)
				measure("random", pipe_readers[j], sizes[i], 0);
		}
		if (strstr(shapes, "oneactive")) {
			one_active = 1;
			for (j = 0; j < sizeof(pipe_readers) / sizeof(pipe_readers[0]); j++)
				measure("oneactive", pipe_readers[j], sizes[i], 0);
		}
		free_pipes();
	}
	if (strstr(shapes, "timers"))
		for (i = 0; i < ntcounts; i++)
			for (j = 0; j < sizeof(timer_readers) / sizeof(timer_readers[0]); j++)
				measure("timers", timer_readers[j], tcounts[i], 1);
	if (fclose(csv))
		fail("writing the results");
	return 0;
}
