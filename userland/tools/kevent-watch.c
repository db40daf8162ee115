// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent-watch: create a kevent queue, add timers, files and sockets to
 * it, and print one line per event as it arrives.  See kevent-watch(1)
 * (userland/man/kevent-watch.1) and the usage text below.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include "kevent.h"

#define MAX_SOURCES	256
#define NS		1000000000ULL

static const char short_usage[] =
"usage: kevent-watch [options] SOURCE...  (kevent-watch --help for more)\n";

static const char usage[] =
"usage: kevent-watch [options] SOURCE...\n"
"Create a kevent queue, add the SOURCEs and print each event as it comes.\n"
"\n"
"Sources (any number, in any order):\n"
"  --timer DURATION      periodic timer (DURATION: 500ms, 2s, 250us, 10ns)\n"
"  --fd N                watch fd N with KEVENT_POLL\n"
"  --file PATH           open PATH read-only, non-blocking, watch it with POLL\n"
"  --listen PORT         TCP listener on 127.0.0.1:PORT: SOCKET ACCEPT events;\n"
"                        accepted connections are watched for RECV\n"
"  --connect PORT        TCP client to 127.0.0.1:PORT: SOCKET RECV events\n"
"Options that apply to the sources named after them:\n"
"  --events LIST         POLL events: in,out,pri,err,hup,rdnorm,rdband,\n"
"                        wrnorm,wrband,msg (default: in)\n"
"  --flags LIST          request flags: et,oneshot,wakeup_one, or none\n"
"Global options:\n"
"  --count N             stop after N events (default: never)\n"
"  --ring N              deliver through a ring of N slots and kevent_wait()\n"
"                        (default: kevent_get_events())\n"
"  --quiet-data          do not read data from readable fds\n"
"  -h, --help            this text\n"
"\n"
"An event ready when it is added is reported by kevent_ctl() and not kept\n"
"(take23): a readable fd is read and added again; anything else is dropped.\n"
"Exit status: 0 done, 1 error, 2 bad arguments.\n";

enum kind { TIMER, POLLFD, LISTEN, CONN };

struct source {
	enum kind kind;
	int fd;
	__u32 events, flags;
	__u64 period;
	char name[64];
	int active;
};

static struct source src[MAX_SOURCES];
static int nsrc, quiet_data;
static __u64 t0;

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "kevent-watch: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", short_usage);
	exit(2);
}

static __u64 now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

/* "500ms", "2s", "250us", "10ns"; a bare number is milliseconds. */
static __u64 parse_duration(const char *s)
{
	static const struct { const char *unit; __u64 ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", NS },
		{ "", 1000000 },
	};
	char *end;
	unsigned long long v;
	unsigned int i;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		die_usage("bad duration '%s'", s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && v)
			return v * units[i].ns;
	die_usage("bad duration '%s' (a positive number with ns, us, ms or s)", s);
	return 0;
}

static unsigned int parse_uint(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > 0x7fffffff)
		die_usage(what, s);
	return v;
}

static const struct { const char *name; __u32 bit; } poll_names[] = {
	{ "in", POLLIN }, { "pri", POLLPRI }, { "out", POLLOUT },
	{ "err", POLLERR }, { "hup", POLLHUP }, { "nval", POLLNVAL },
	{ "rdnorm", POLLRDNORM }, { "rdband", POLLRDBAND },
	{ "wrnorm", POLLWRNORM }, { "wrband", POLLWRBAND }, { "msg", POLLMSG },
};

static const struct { const char *name; __u32 bit; } flag_names[] = {
	{ "et", KEVENT_REQ_ET }, { "oneshot", KEVENT_REQ_ONESHOT },
	{ "wakeup_one", KEVENT_REQ_WAKEUP_ONE },
};

#define PARSE_LIST(table, list, what)					\
({									\
	char *copy = strdup(list), *tok, *save = NULL;			\
	__u32 bits = 0;							\
	unsigned int i;							\
	for (tok = strtok_r(copy, ",", &save); tok;			\
	     tok = strtok_r(NULL, ",", &save)) {			\
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)	\
			if (!strcmp(tok, table[i].name))		\
				break;					\
		if (i == sizeof(table) / sizeof(table[0])) {		\
			if (strcmp(tok, "none"))			\
				die_usage(what, tok);			\
		} else {						\
			bits |= table[i].bit;				\
		}							\
	}								\
	free(copy);							\
	bits;								\
})

static void names(char *buf, size_t len, __u32 bits)
{
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < sizeof(poll_names) / sizeof(poll_names[0]); i++)
		if (bits & poll_names[i].bit)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 buf[0] ? "," : "", poll_names[i].name);
}

static struct source *new_source(enum kind kind)
{
	struct source *s;

	if (nsrc == MAX_SOURCES) {
		fprintf(stderr, "kevent-watch: at most %d sources\n", MAX_SOURCES);
		exit(2);
	}
	s = &src[nsrc++];
	s->kind = kind;
	s->fd = -1;
	return s;
}

static struct ukevent request(const struct source *s, int idx)
{
	struct ukevent uk;

	switch (s->kind) {
	case TIMER:
		uk = kevent_timer(s->period, s->flags);
		break;
	case POLLFD:
		uk = kevent_poll(s->fd, s->events, s->flags);
		break;
	case LISTEN:
		uk = kevent_socket(s->fd, KEVENT_SOCKET_ACCEPT, s->flags);
		break;
	default:
		uk = kevent_socket(s->fd, KEVENT_SOCKET_RECV, s->flags);
		break;
	}
	uk.user[1] = idx;
	return uk;
}

static void stamp(void)
{
	__u64 t = now() - t0;

	printf("%4llu.%03llu s  ", t / NS, t % NS / 1000000);
}

/* Read what is there and print it; returns the bytes read (0 at EOF). */
static long show_data(int fd)
{
	char buf[256];
	long n = read(fd, buf, sizeof(buf)), i;

	if (n <= 0)
		return n;
	printf("          read %ld bytes: \"", n);
	for (i = 0; i < n && i < 60; i++)
		putchar(isprint((unsigned char)buf[i]) ? buf[i] : '.');
	printf("%s\"\n", n > 60 ? "..." : "");
	return n;
}

static int add(int q, struct source *s, int depth);

/*
 * Stop watching @s: REMOVE its event, unless ADD answered it and did not
 * keep it (@at_add); a connection is closed as well.
 */
static void drop(int q, struct source *s, int at_add)
{
	if (!at_add) {
		struct ukevent r = request(s, s - src);

		kevent_ctl(q, KEVENT_CTL_REMOVE, 1, &r);
	}
	if (s->kind == CONN)
		close(s->fd);
	s->active = 0;
}

/* Accept until EAGAIN and watch each connection; returns events printed. */
static int conn_accept(int q, struct source *l)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct source *c;
	int fd, seen = 0;

	while ((fd = accept4(l->fd, (struct sockaddr *)&sin, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		c = new_source(CONN);
		c->fd = fd;
		c->flags = l->flags & ~KEVENT_REQ_WAKEUP_ONE;
		snprintf(c->name, sizeof(c->name), "conn %s:%d",
			 inet_ntoa(sin.sin_addr), ntohs(sin.sin_port));
		printf("          accepted fd %d from %s\n", fd, c->name + 5);
		seen += add(q, c, 0);
		len = sizeof(sin);
	}
	return seen;
}

/*
 * Print one event (@depth > 0: answered by ADD, the depth-th time in a
 * row); returns the number of events printed, with those it led to.
 */
static int report(int q, struct ukevent *uk, int depth)
{
	struct source *s = &src[uk->user[1]];
	int at_add = depth > 0, seen = 1;
	char bits[128];
	long got;

	stamp();
	printf("%-6s %-22s ", uk->type == KEVENT_TIMER ? "TIMER" :
	       uk->type == KEVENT_POLL ? "POLL" : "SOCKET", s->name);
	if (uk->ret_flags & KEVENT_RET_BROKEN) {
		printf("broken: %s%s\n", strerror(-(int)uk->ret_data[1]),
		       at_add ? " (at add)" : "");
		drop(q, s, at_add);
		return 1;
	}
	switch (s->kind) {
	case TIMER:
		printf("fired (%u expiration%s)\n", uk->ret_data[0],
		       uk->ret_data[0] == 1 ? "" : "s");
		break;
	case POLLFD:
		names(bits, sizeof(bits), uk->ret_data[0]);
		printf("%s%s\n", bits, at_add ? " (ready at add)" : "");
		if (!quiet_data && (uk->ret_data[0] & POLLIN) &&
		    show_data(s->fd) > 0 && at_add)
			seen += add(q, s, depth);
		break;
	case LISTEN:
		printf("accept%s\n", at_add ? " (ready at add)" : "");
		seen += conn_accept(q, s);
		if (at_add)
			seen += add(q, s, depth);
		break;
	case CONN:
		printf("recv%s\n", at_add ? " (ready at add)" : "");
		got = show_data(s->fd);
		if (got > 0 && at_add)
			seen += add(q, s, depth);
		if (got == 0) {
			printf("          end of file: closing fd %d\n", s->fd);
			drop(q, s, at_add);
		}
		break;
	}
	if (uk->req_flags & KEVENT_REQ_ONESHOT)
		s->active = 0;
	return seen;
}

static int add(int q, struct source *s, int depth)
{
	struct ukevent uk = request(s, s - src);
	int r = kevent_ctl(q, KEVENT_CTL_ADD, 1, &uk);

	if (r < 0) {
		fprintf(stderr, "kevent-watch: kevent_ctl: %s\n", strerror(errno));
		exit(1);
	}
	s->active = 1;
	if (r == 0)
		return 0;
	if (uk.ret_flags & KEVENT_RET_BROKEN) {
		fprintf(stderr, "kevent-watch: cannot watch %s: %s\n", s->name,
			strerror(-(int)uk.ret_data[1]));
		exit(1);
	}
	s->active = 0;
	if (depth < 64)
		return report(q, &uk, depth + 1);
	return 0;
}

static int active(void)
{
	int i, n = 0;

	for (i = 0; i < nsrc; i++)
		n += src[i].active;
	return n;
}

static int tcp(int port, int listening)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (listening) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(fd, 128))
			return -1;
	} else if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		return -1;
	}
	/* Events say when to read or accept; the calls must not block. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timer", 1, NULL, 't' }, { "fd", 1, NULL, 'd' },
		{ "file", 1, NULL, 'f' }, { "listen", 1, NULL, 'l' },
		{ "connect", 1, NULL, 'c' }, { "events", 1, NULL, 'e' },
		{ "flags", 1, NULL, 'F' }, { "count", 1, NULL, 'n' },
		{ "ring", 1, NULL, 'r' }, { "quiet-data", 0, NULL, 'Q' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	__u32 events = POLLIN, flags = 0;
	unsigned int count = 0, seen = 0, ring_size = 0;
	struct kevent_ring *ring = NULL;
	struct ukevent buf[64];
	struct source *s;
	int q, c, i, n;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			s = new_source(TIMER);
			s->period = parse_duration(optarg);
			s->flags = flags;
			snprintf(s->name, sizeof(s->name), "%s", optarg);
			break;
		case 'd':
		case 'f':
			s = new_source(POLLFD);
			s->events = events;
			s->flags = flags;
			if (c == 'd') {
				s->fd = parse_uint(optarg, "bad fd '%s'");
				snprintf(s->name, sizeof(s->name), "fd %d", s->fd);
			} else {
				s->fd = open(optarg, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
				if (s->fd < 0) {
					fprintf(stderr, "kevent-watch: %s: %s\n",
						optarg, strerror(errno));
					return 1;
				}
				snprintf(s->name, sizeof(s->name), "%s", optarg);
			}
			break;
		case 'l':
		case 'c':
			s = new_source(c == 'l' ? LISTEN : CONN);
			n = parse_uint(optarg, "bad port '%s'");
			if (n < 1 || n > 65535)
				die_usage("bad port '%s'", optarg);
			s->flags = flags;
			s->fd = tcp(n, c == 'l');
			if (s->fd < 0) {
				fprintf(stderr, "kevent-watch: %s port %d: %s\n",
					c == 'l' ? "listen on" : "connect to", n,
					strerror(errno));
				return 1;
			}
			snprintf(s->name, sizeof(s->name), "%s %d",
				 c == 'l' ? "listen" : "conn", n);
			break;
		case 'e':
			events = PARSE_LIST(poll_names, optarg, "unknown event '%s'");
			if (!events)
				die_usage("no events in '%s'", optarg);
			break;
		case 'F':
			flags = PARSE_LIST(flag_names, optarg, "unknown flag '%s'");
			break;
		case 'n':
			count = parse_uint(optarg, "bad count '%s'");
			break;
		case 'r':
			ring_size = parse_uint(optarg, "bad ring size '%s'");
			if (ring_size < 2)
				die_usage("ring size '%s': at least 2", optarg);
			break;
		case 'Q':
			quiet_data = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(short_usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!nsrc)
		die_usage("%s", "nothing to watch: name at least one source");

	setvbuf(stdout, NULL, _IOLBF, 0);
	q = kevent_open(0);
	if (q < 0) {
		fprintf(stderr, "kevent-watch: /dev/kevent: %s\n", strerror(errno));
		return 1;
	}
	if (ring_size) {
		ring = mmap(NULL, sizeof(*ring) + ring_size * sizeof(struct ukevent),
			    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ring == MAP_FAILED || kevent_ring_init(q, ring, ring_size)) {
			fprintf(stderr, "kevent-watch: kevent_ring_init: %s\n",
				strerror(errno));
			return 1;
		}
	}
	t0 = now();
	printf("kevent-watch: queue fd %d, %d source%s, %s\n", q, nsrc,
	       nsrc == 1 ? "" : "s", ring ? "ring + kevent_wait()" :
	       "kevent_get_events()");
	n = nsrc;
	for (i = 0; i < n && (!count || seen < count); i++)
		seen += add(q, &src[i], 0);

	while ((!count || seen < count) && active()) {
		unsigned int kidx = ring ? ring->ring_kidx : 0;
		struct ukevent *ev = buf;

		if (ring)
			n = kevent_wait(q, ring_size - 1, KEVENT_WAIT_FOREVER);
		else
			n = kevent_get_events(q, 1, 64, KEVENT_WAIT_FOREVER, buf, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "kevent-watch: %s: %s\n",
				ring ? "kevent_wait" : "kevent_get_events",
				strerror(errno));
			return 1;
		}
		/* The ring's new entries start at the kernel index of before. */
		for (i = 0; i < n && (!count || seen < count); i++) {
			if (ring)
				ev = &ring->event[(kidx + i) % ring_size];
			seen += report(q, ring ? ev : &buf[i], 0);
		}
	}
	printf("kevent-watch: %u event%s\n", seen, seen == 1 ? "" : "s");
	close(q);
	return 0;
}
