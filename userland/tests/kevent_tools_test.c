// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: the tools of the initramfs as a user runs them.
 * kevent-watch: timers, a pipe through --fd, a FIFO through --file, a TCP
 * listener, ring mode, and exit status 2 with a usage line for bad
 * arguments.  man: the pages formatted on the host are shown.
 * kevent-fuzz: it ends cleanly at its time limit under signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common.h"
#include "kselftest_harness.h"

#define WATCH	"/tools/kevent-watch"

/* Run @cmd with sh, its output (stdout and stderr) in @out; exit status. */
static int run(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;
	int st;

	if (!f)
		return -1;
	while (n + 1 < len && fgets(out + n, len - n, f))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int lines_with(const char *out, const char *word)
{
	int n = 0;

	for (; (out = strstr(out, word)); out += strlen(word))
		n++;
	return n;
}

TEST(timer_prints_three_events)
{
	char out[4096];
	__u64 t = now_ns();

	ASSERT_EQ(0, run(WATCH " --timer 100ms --count 3 2>&1", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(3, lines_with(out, "TIMER  100ms"));
	EXPECT_EQ(3, lines_with(out, "fired (1 expiration)"));
	EXPECT_NE(NULL, strstr(out, "kevent-watch: 3 events"));
	EXPECT_LE(300 * MS, now_ns() - t);
}

TEST(oneshot_timer_ends_the_watch)
{
	char out[4096];

	ASSERT_EQ(0, run(WATCH " --flags oneshot --timer 20ms 2>&1", out, sizeof(out)));
	EXPECT_EQ(1, lines_with(out, "fired"));
	EXPECT_NE(NULL, strstr(out, "kevent-watch: 1 event\n"));
}

TEST(ring_mode_delivers_every_event_through_kevent_wait)
{
	char out[4096];

	ASSERT_EQ(0, run(WATCH " --ring 4 --timer 10ms --timer 15ms --count 6 2>&1",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "ring + kevent_wait()"));
	EXPECT_EQ(6, lines_with(out, "TIMER"));
}

TEST(pipe_on_an_inherited_fd)
{
	char out[4096];

	/*
	 * The shell writes into the tool's stdin, a pipe, then closes it
	 * later: the data and the hang-up are two events (written together,
	 * they could come as one, and --count 2 would wait forever).
	 */
	ASSERT_EQ(0, run("{ sleep 0.05; echo hello; sleep 0.25; } | " WATCH
			 " --fd 0 --flags et --count 2 2>&1", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "POLL   fd 0"));
	EXPECT_NE(NULL, strstr(out, "read 6 bytes: \"hello.\""));
	/* Then the writer's end closes. */
	EXPECT_NE(NULL, strstr(out, "hup"));
}

TEST(fifo_by_path)
{
	char out[4096];

	unlink("/tmp/kw.fifo");
	ASSERT_EQ(0, mkfifo("/tmp/kw.fifo", 0600));
	ASSERT_EQ(0, run("(sleep 0.1; echo ping > /tmp/kw.fifo) & " WATCH
			 " --file /tmp/kw.fifo --events in --count 1 2>&1",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "POLL   /tmp/kw.fifo"));
	EXPECT_NE(NULL, strstr(out, "in"));
	unlink("/tmp/kw.fifo");
}

/*
 * A shell loop that waits, 3 s at most, until a socket listens on the TCP
 * port PORT (four hex digits, as /proc/net/tcp shows it).
 */
#define LISTENING(port) \
	"i=0; until grep -qs ':" port " 0*:0000 0A' /proc/net/tcp || [ $i -ge 300 ]; " \
	"do sleep 0.01; i=$((i + 1)); done"

/* kevent-watch on TCP, each side: what it is run with, what it prints. */
FIXTURE(tcp) {};
FIXTURE_SETUP(tcp) {}
FIXTURE_TEARDOWN(tcp) {}
FIXTURE_VARIANT(tcp) {
	const char *cmd;
	const char *want[4];
};

FIXTURE_VARIANT_ADD(tcp, listener_accepts_and_reads) {
	.cmd = "(" LISTENING("1E61") "; echo hi | nc 127.0.0.1 7777) & " WATCH
	       " --listen 7777 --count 2 2>&1",
	.want = { "SOCKET listen 7777", "accept", "accepted fd",
		  "read 3 bytes: \"hi.\"" },
};

FIXTURE_VARIANT_ADD(tcp, client_reads) {
	.cmd = "(echo hello | nc -l -p 7778 &) ; " LISTENING("1E62") "; " WATCH
	       " --connect 7778 --count 1 2>&1",
	.want = { "SOCKET conn 7778", "recv", "read 6 bytes: \"hello.\"" },
};

TEST_F(tcp, watches)
{
	char out[4096];
	unsigned int i;

	ASSERT_EQ(0, run(variant->cmd, out, sizeof(out)));
	TH_LOG("%s", out);
	for (i = 0; i < 4 && variant->want[i]; i++)
		EXPECT_NE(NULL, strstr(out, variant->want[i]))
			TH_LOG("no \"%s\"", variant->want[i]);
}

TEST(bad_arguments_exit_2_with_usage)
{
	static const char *const bad[] = {
		WATCH, WATCH " --timer 0", WATCH " --timer 5parsecs",
		WATCH " --fd x", WATCH " --flags sometimes --timer 1s",
		WATCH " --events loud --fd 0", WATCH " --ring 1 --timer 1s",
		WATCH " --listen 70000", WATCH " --bogus", WATCH " stray",
	};
	char out[4096], cmd[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s 2>&1", bad[i]);
		EXPECT_EQ(2, run(cmd, out, sizeof(out))) TH_LOG("%s", bad[i]);
		EXPECT_NE(NULL, strstr(out, "usage: kevent-watch")) TH_LOG("%s", bad[i]);
	}
	EXPECT_EQ(0, run(WATCH " --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--timer DURATION"));
}

TEST(missing_file_exit_1)
{
	char out[4096];

	EXPECT_EQ(1, run(WATCH " --file /nonexistent 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "No such file"));
}

TEST(man_shows_every_page)
{
	static const char *const pages[][2] = {
		{ "kevent_ctl", "kevent_ctl - add, remove or modify events" },
		{ "kevent_get_events", "kevent_get_events - wait for events" },
		{ "kevent_wait", "kevent_wait - wait for events and copy them" },
		{ "kevent_ring_init", "kevent_ring_init - register a ring" },
		{ "kevent-watch", "kevent-watch - print kevent events" },
	};
	char out[16384], cmd[128];
	unsigned int i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(cmd, sizeof(cmd), "man %s 2>&1", pages[i][0]);
		EXPECT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, pages[i][1])) TH_LOG("%s", cmd);
	}
	/* The ring's limitation is stated where a reader looks. */
	ASSERT_EQ(0, run("man 2 kevent_wait", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "overwritten"));
	EXPECT_NE(NULL, strstr(out, "KEVENT_WAIT(2)"));
}

TEST(man_errors)
{
	char out[1024];

	EXPECT_EQ(16, run("man nosuchpage 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "No manual entry for nosuchpage"));
	EXPECT_EQ(16, run("man 1 kevent_wait 2>&1", out, sizeof(out)));
	EXPECT_EQ(2, run("man 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "usage: man"));
}

/*
 * The fuzzer ends cleanly at its time limit while its workers signal one
 * another: 10 runs of 0.2 s of the signal operation alone, 8 workers.
 * (A worker signalled after the main thread had joined it made
 * kevent-fuzz segfault in pthread_kill(): 19 of 40 such runs did.)
 */
TEST(fuzzer_ends_at_its_time_limit_under_signals)
{
	char cmd[256], out[4096];
	int i;

	for (i = 1; i <= 10; i++) {
		snprintf(cmd, sizeof(cmd), "/fuzz/kevent-fuzz --seed %d --time 0.2 "
			 "--kinds 0x800 --threads 8 --ops 100000000 >/tmp/fuzz-end.log 2>&1; "
			 "st=$?; tail -n 4 /tmp/fuzz-end.log; exit $st", i);
		ASSERT_EQ(0, run(cmd, out, sizeof(out)))
			TH_LOG("run %d: %s", i, out);
		ASSERT_NE(NULL, strstr(out, "result ok"))
			TH_LOG("run %d: %s", i, out);
	}
}

TEST_HARNESS_MAIN
