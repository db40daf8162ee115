// SPDX-License-Identifier: GPL-2.0+
/*
 * init for the kevent test initramfs.
 *
 * Mounts /proc, /sys, /dev (devtmpfs), /tmp and debugfs (when the kernel
 * has it), brings loopback up, then runs every program in /tests in name
 * order.  Each program prints KTAP (kselftest_harness); init nests it
 * under one KTAP document, one subtest per program, and writes it to a
 * file on the host through hostfs (UML) or to a serial port of its own
 * (QEMU), a channel kernel messages cannot garble.  A program that crashes, prints no result or outlives its
 * timeout is "not ok".  Then init powers the machine off cleanly, so gcov
 * data is written.
 *
 * Kernel command line: init's parameters are the INIT_* words (unknown
 * name=value pairs reach init's environment, and so every program's; the
 * harness's own knobs on the host are KEVENT_*, kevent-harness.rst):
 *   INIT_RESULTS=/host/dir  where the KTAP goes (hostfs); default: console
 *   INIT_RESULTS=/dev/ttyS1 ... or to this serial port, raw (QEMU's
 *                           -serial file:HOSTFILE for the second port)
 *   INIT_TIMEOUT=seconds    per program, default 300
 *   INIT_KMEMLEAK=1         scan for leaks after the tests (debug kernels)
 *   INIT_ONLY=program       run only /tests/program ...
 *   INIT_TEST=name          ... and only its test of that name (-t), or
 *                           FIXTURE.VARIANT.TEST, that one case (-r)
 *   INIT_PART=i/n           run only the i-th of n runs of consecutive
 *                           programs (0 <= i < n), for n boots side by
 *                           side; their documents are joined on the host
 *   INIT_PROGRAMS=a,b,...   run only these programs (in name order): the
 *                           host's choice of a boot's share, by the
 *                           times of an earlier run (INIT_ONLY wins)
 *   INIT_SHELL=1            start a shell instead of the tests
 *   INIT_HOST=/host/dir     mounted on /host in that shell (hostfs)
 *   INIT_CMD="cmd args"     with INIT_SHELL: run this, then power off
 *   INIT_REBOOT=1           end with a reboot, not a power-off
 *   INIT_FUZZ="args"        run /fuzz/kevent-fuzz with these arguments on
 *                           the console instead of the tests, then the
 *                           kmemleak scan (with INIT_KMEMLEAK)
 *   INIT_TOLERANCE_SCALE=n  read by the test programs (common.h) and the
 *                           fuzzer: their timing bounds, x n (slow kernels)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define TESTS_DIR	"/tests"
#define RESULTS_MNT	"/results"

static FILE *out;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kevent-init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void mount_one(const char *src, const char *dst, const char *type,
		      const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, data) && errno != EBUSY)
		note("mount %s on %s: %s", type, dst, strerror(errno));
}

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		note("lo: %s", strerror(errno));
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			note("lo up: %s", strerror(errno));
	}
	if (s >= 0)
		close(s);
}

static int filter(const struct dirent *d)
{
	const char *only = getenv("INIT_ONLY");
	const char *list = getenv("INIT_PROGRAMS");
	size_t len = strlen(d->d_name);
	const char *p;

	if (only)
		return !strcmp(d->d_name, only);
	if (d->d_name[0] == '.')
		return 0;
	if (!list)
		return 1;
	/* INIT_PROGRAMS=a,b,c: the names, whole, between commas. */
	for (p = list; (p = strstr(p, d->d_name)); p += len)
		if ((p == list || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

/*
 * INIT_PART=i/n: keep the i-th of n runs of consecutive programs of
 * @names (freeing the others); returns how many are kept.
 */
static int keep_part(struct dirent **names, int n)
{
	const char *part = getenv("INIT_PART");
	int i, k, lo = 0, hi = n;

	if (part && sscanf(part, "%d/%d", &i, &k) == 2 && k > 0 &&
	    i >= 0 && i < k) {
		lo = n * i / k;
		hi = n * (i + 1) / k;
	} else if (part) {
		note("INIT_PART=%s is not i/n with 0 <= i < n: all programs",
		     part);
	}
	for (i = 0; i < n; i++)
		if (i < lo || i >= hi)
			free(names[i]);
	memmove(names, names + lo, (hi - lo) * sizeof(*names));
	return hi - lo;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Run one program (only its test @test, if set), copy its output
 * indented; true when it passed.
 */
static int run_one(const char *name, const char *test, int timeout)
{
	char path[512], buf[4096], line[8192];
	size_t len = 0;
	int pipefd[2], status = 0, timed_out = 0, plan = 0;
	double deadline = now() + timeout;
	pid_t pid;

	snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
	if (pipe2(pipefd, O_CLOEXEC))
		return 0;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		/* FIXTURE.VARIANT.TEST names one case of a fixture: -r. */
		if (test)
			execl(path, path, strchr(test, '.') ? "-r" : "-t", test,
			      (char *)NULL);
		else
			execl(path, path, (char *)NULL);
		printf("# exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	fprintf(out, "    KTAP version 1\n    # Subtest: %s\n", name);

	for (;;) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		double left = deadline - now();
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = read(pipefd[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && len < sizeof(line) - 1) {
				line[len++] = buf[i];
				continue;
			}
			if (buf[i] != '\n')
				continue;
			line[len] = 0;
			len = 0;
			/* Our header names the subtest; drop the program's. */
			if (!strncmp(line, "TAP version", 11) ||
			    !strncmp(line, "KTAP version", 12))
				continue;
			if (!strncmp(line, "1..", 3))
				plan = 1;
			fprintf(out, "    %s\n", line);
		}
	}
	if (len) {
		line[len] = 0;
		fprintf(out, "    %s\n", line);
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (timed_out)
		fprintf(out, "    # %s: killed after %d s\n", name, timeout);
	else if (WIFSIGNALED(status))
		fprintf(out, "    # %s: killed by signal %d\n", name,
			WTERMSIG(status));
	else if (!plan)
		fprintf(out, "    # %s: printed no KTAP plan\n", name);
	fflush(out);
	return !timed_out && plan && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/*
 * kmemleak reports only objects older than 5 s, after a scan; scan twice,
 * past that age and an RCU grace period, and put what it found in the
 * kernel log, where the harness looks for "unreferenced object".
 */
static void kmemleak_scan(void)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char buf[4096];
	int fd, i;
	ssize_t n;

	if (access(path, F_OK))
		return;
	note("kmemleak: waiting past the minimum object age, then scanning");
	sleep(6);
	for (i = 0; i < 2; i++) {
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "scan", 4) != 4)
			note("kmemleak scan: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		sleep(1);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		write(2, buf, n);
	close(fd);
	note("kmemleak: scan done");
}

/*
 * INIT_REBOOT=1 (the x86_64 SMP kernel's boot): reboot instead, which
 * QEMU's -no-reboot turns into its exit, as kunit_shutdown=reboot does
 * for the KUnit boot.
 */
static void power_off(void)
{
	sync();
	reboot(getenv("INIT_REBOOT") ? RB_AUTOBOOT : RB_POWER_OFF);
	for (;;)
		pause();
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = sig;
}

/*
 * Interactive mode: a shell on the console, the project folder on /host;
 * with INIT_CMD, that command instead of an interactive shell.
 * busybox poweroff/halt/reboot signal PID 1 (SIGUSR2/SIGUSR1/SIGTERM);
 * those, or leaving the shell, power the machine off cleanly.
 */
static void run_shell(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	const char *host = getenv("INIT_HOST");
	const char *cmd = getenv("INIT_CMD");
	pid_t pid;

	if (host)
		mount_one("none", "/host", "hostfs", host);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pid = fork();
	if (pid == 0) {
		int fd;

		setsid();
		fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			ioctl(fd, TIOCSCTTY, 0);
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		chdir("/root");
		if (cmd)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execl("/bin/sh", "-sh", (char *)NULL);
		note("no shell: %s", strerror(errno));
		_exit(127);
	}
	while (!stop) {
		pid_t w = waitpid(-1, NULL, 0);

		if (w == pid || (w < 0 && errno == ECHILD))
			break;
	}
	kill(-1, SIGKILL);
	note("powering off");
	power_off();
}

/*
 * Fuzzing mode: the fuzzer on the console (the host reads its FINDING and
 * result lines beside the kernel's), killed at the timeout; then the leak
 * scan, so kmemleak sees what the run left.
 */
static void run_fuzz(const char *args, int timeout)
{
	char *copy = strdup(args), *argv[32] = { "/fuzz/kevent-fuzz" };
	double deadline = now() + timeout;
	int argc = 1, status = 0;
	pid_t pid, w = 0;

	for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execv(argv[0], argv);
		note("exec %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	while (pid > 0 && now() < deadline) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		usleep(100000);
	}
	if (w != pid) {
		note("fuzz: killed after %d s", timeout);
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (getenv("INIT_KMEMLEAK"))
		kmemleak_scan();
	note("fuzz: exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	power_off();
}

int main(void)
{
	const char *results = getenv("INIT_RESULTS");
	const char *t = getenv("INIT_TIMEOUT");
	int timeout = t ? atoi(t) : 300;
	struct dirent **names;
	int n, i, fd = -1;

	mount_one("proc", "/proc", "proc", NULL);
	mount_one("sysfs", "/sys", "sysfs", NULL);
	mount_one("devtmpfs", "/dev", "devtmpfs", NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", NULL);
	/* debugfs is in the debug kernel only (configs/debug.config). */
	if (access("/sys/kernel/debug", F_OK) == 0)
		mount_one("debugfs", "/sys/kernel/debug", "debugfs", NULL);
	loopback_up();
	setenv("PATH", "/bin:/sbin:/tests:/tools", 1);

	if (getenv("INIT_SHELL"))
		run_shell();
	if (getenv("INIT_FUZZ"))
		run_fuzz(getenv("INIT_FUZZ"), timeout);

	out = stdout;
	if (results && !strncmp(results, "/dev/", 5)) {
		/* A serial port: raw, so the KTAP arrives byte for byte. */
		struct termios tio;

		fd = open(results, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 && !tcgetattr(fd, &tio)) {
			cfmakeraw(&tio);
			cfsetospeed(&tio, B115200);
			tcsetattr(fd, TCSANOW, &tio);
		}
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			note("cannot write %s: %s", results, strerror(errno));
			power_off();
		}
	} else if (results) {
		mount_one("none", RESULTS_MNT, "hostfs", results);
		fd = open(RESULTS_MNT "/userland.ktap",
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			note("cannot write %s/userland.ktap: %s", results,
			     strerror(errno));
			power_off();
		}
	}

	n = scandir(TESTS_DIR, &names, filter, alphasort);
	n = n > 0 ? keep_part(names, n) : 0;
	fprintf(out, "KTAP version 1\n1..%d\n", n);
	fflush(out);
	for (i = 0; i < n; i++) {
		double start = now();
		int ok;

		note("running %s", names[i]->d_name);
		ok = run_one(names[i]->d_name, getenv("INIT_TEST"), timeout);
		note("%s took %.1f s", names[i]->d_name, now() - start);
		fprintf(out, "%sok %d %s\n", ok ? "" : "not ", i + 1,
			names[i]->d_name);
		fflush(out);
	}
	fflush(out);
	if (getenv("INIT_KMEMLEAK"))
		kmemleak_scan();
	if (fd >= 0 && isatty(fd)) {
		/* Everything written has left the port before power-off. */
		fflush(out);
		tcdrain(fd);
		fclose(out);
	} else if (fd >= 0) {
		fsync(fd);
		fclose(out);
		umount(RESULTS_MNT);
	}
	note("done, powering off");
	power_off();
	return 0;
}
