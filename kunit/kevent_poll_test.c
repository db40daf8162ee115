// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the poll storage (KEVENT_POLL) on pipes created in-kernel: the
 * enqueue/dequeue/callback contract, readiness from the wake-up key,
 * ONESHOT/ET/level behaviour, files not pinned (their last close breaks
 * their kevents), WAKEUP_ONE across queues, key-less wake-ups re-checked
 * at delivery, and POLLFREE.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"
#include "kevent_file_test.h"

#define SEC	NSEC_PER_SEC

/*
 * A pipe whose read end queue 0 watches for POLLIN, edge-triggered; the
 * read end's file (a reference to fput) and its pipe for the tests that
 * wake the pipe's queue by hand.
 */
static struct pipe_inode_info *kp_watched_pipe(struct kunit *test, int p[2],
					       struct ukevent *uk,
					       struct file **f)
{
	kf_pipe(test, p);
	*uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(test->priv, 0, uk), 0);
	*f = fget(p[0]);
	KUNIT_ASSERT_NOT_NULL(test, *f);
	return (*f)->private_data;
}

static void kevent_poll_ready_at_add_reported_not_kept(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), 1);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 0U);
	/* The write end is writable at once, with the bits it asked for. */
	uk = kf_uk(KEVENT_POLL, p[1], POLLOUT | POLLWRNORM, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), 1);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)(POLLOUT | POLLWRNORM));
}

static void kevent_poll_write_makes_reader_ready(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN | POLLRDNORM, 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 3), 3L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 1U);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.type, (u32)KEVENT_POLL);
	KUNIT_EXPECT_EQ(test, uk.id.raw[0], (u32)p[0]);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)(POLLIN | POLLRDNORM));
	KUNIT_EXPECT_EQ(test, uk.ret_data[1], 0U);
	KUNIT_EXPECT_EQ(test, uk.user[0], (u32)p[0]);
}

/*
 * The three request modes on one script: two writes before delivery, a
 * collection, the pipe drained, a new write.  ET coalesces the two
 * wake-ups and reports the new edge; level (take23's sticky DONE) is
 * queued again by the new write's wake-up; ONESHOT leaves at its delivery
 * and frees its key.
 */
struct kevent_poll_mode {
	const char	*name;
	u32		req_flags;
	bool		kept;		/* still attached after its delivery */
};

static const struct kevent_poll_mode kevent_poll_modes[] = {
	{ "et_one_event_per_edge", KEVENT_REQ_ET, true },
	{ "level_keeps_done", 0, true },
	{ "oneshot_removed_on_delivery", KEVENT_REQ_ONESHOT, false },
};

static void kevent_poll_mode_desc(const struct kevent_poll_mode *m, char *desc)
{
	strscpy(desc, m->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(kevent_poll_mode, kevent_poll_modes, kevent_poll_mode_desc);

static void kevent_poll_request_modes(struct kunit *test)
{
	const struct kevent_poll_mode *m = test->param_value;
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, m->req_flags);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	/* Two wake-ups before delivery: one event. */
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, uk.req_flags, m->req_flags);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, m->kept ? 1U : 0U);
	/* Reading wakes the writer side only: nothing for POLLIN. */
	KUNIT_EXPECT_EQ(test, kf_read(p[0], 64), 2L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	/* A new write: a new edge, a matching wake-up, or nobody. */
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), m->kept ? 1U : 0U);
	if (m->kept) {
		KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
		KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
		KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
		KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 1U);
		return;
	}
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	/* The key is free again. */
	uk = kf_uk(KEVENT_POLL, p[0], POLLPRI, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), 0);
}

static void kevent_poll_hangup_reported_unasked(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLPRI, 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	/* Not asked for: data. */
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	/* Not asked for either, but always reported: the writer is gone. */
	kf_close(test, p[1]);
	/*
	 * The pipe's release wakes its readers without a key: the file is
	 * polled from process context, which says POLLIN|POLLHUP.
	 */
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLHUP);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
}

/*
 * Files are not pinned: closing one of several references changes nothing;
 * the last close breaks the kevent (BROKEN|DONE, -EBADF), which is
 * delivered once and then removed, and the pipe has no reader at once.
 */
static void kevent_poll_last_close_breaks_unpinned_file(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	struct file *f;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 1, &uk), 0);
	f = fget(p[0]);
	KUNIT_ASSERT_NOT_NULL(test, f);
	kf_close(test, p[0]);
	/* Another reference holds the file: still watched. */
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 1, 0, &uk), 1L);
	/* The last reference: both queues' kevents break, nothing is held. */
	fput(f);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), (ssize_t)-EPIPE);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -EBADF);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 0U);
	KUNIT_ASSERT_EQ(test, kevent_queue_ready_num(c->q[1]), 1U);
	/* MODIFY finds the origin gone: -EBADF, and the kevent goes. */
	KUNIT_EXPECT_EQ(test, kf_modify(c, 1, &uk), -EBADF);
	KUNIT_EXPECT_EQ(test, c->q[1]->kevent_num, 0U);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[1]), 0U);
}

static const struct file_operations kevent_poll_nopoll_fops = {
	.owner = THIS_MODULE,
};

static void kevent_poll_refuses_closed_pollless_and_queue_fds(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	struct file *f;
	int fd;

	uk = kf_uk(KEVENT_POLL, 1000, POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EBADF);
	KUNIT_EXPECT_EQ(test, uk.ret_flags,
			(u32)(KEVENT_RET_BROKEN | KEVENT_RET_DONE));
	KUNIT_EXPECT_EQ(test, (int)uk.ret_data[1], -EBADF);

	f = anon_inode_getfile("[kevent-nopoll]", &kevent_poll_nopoll_fops,
			       NULL, O_RDWR);
	fd = kf_fd(test, f);
	uk = kf_uk(KEVENT_POLL, fd, POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EPERM);

	/* A queue cannot watch a queue. */
	fd = kevent_queue_getfd(O_CLOEXEC);
	KUNIT_ASSERT_GE(test, fd, 0);
	c->fds[c->nr_fds++] = fd;
	uk = kf_uk(KEVENT_POLL, fd, POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 0U);
}

static void kevent_poll_wakeup_one_reaches_one_queue(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	unsigned int qi, ready = 0;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN,
		   KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_ASSERT_EQ(test, kf_add(c, qi, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	for (qi = 0; qi < KF_QUEUES; qi++)
		ready += kevent_queue_ready_num(c->q[qi]);
	KUNIT_EXPECT_EQ(test, ready, 1U);
}

static void kevent_poll_without_wakeup_one_reaches_all(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	unsigned int qi;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_ASSERT_EQ(test, kf_add(c, qi, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	for (qi = 0; qi < KF_QUEUES; qi++)
		KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[qi]), 1U);
}

static void kevent_poll_modify_rechecks_the_file(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLPRI, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	/* Now asking for POLLIN: ->poll is asked from process context. */
	uk.event = POLLIN;
	KUNIT_ASSERT_EQ(test, kf_modify(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.event, (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
}

static void kevent_poll_keyless_wakeup_polls_the_file(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct pipe_inode_info *pipe;
	struct ukevent uk;
	struct file *f;
	int p[2];

	pipe = kp_watched_pipe(test, p, &uk, &f);
	/* Nothing to read: a key-less wake-up finds nothing. */
	wake_up_interruptible(&pipe->rd_wait);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 20 * NSEC_PER_MSEC, &uk), 0L);
	/* Data, delivered once; a bare wake-up then finds it again. */
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	wake_up_interruptible(&pipe->rd_wait);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, SEC, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	fput(f);
}

/*
 * POLLFREE (signalfd's wait queue going before its file): the kevent hears
 * the hang-up and is detached from that queue; its origin takes no new
 * kevents, so a later ADD of the file builds a fresh one that hears the
 * file again.
 */
static void kevent_poll_pollfree_hangs_up_and_detaches(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct pipe_inode_info *pipe;
	struct ukevent uk, fresh;
	struct file *f;
	int p[2];

	pipe = kp_watched_pipe(test, p, &uk, &f);
	/* As signalfd does when its wait queue goes before the file. */
	wake_up_pollfree(&pipe->rd_wait);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLHUP);
	/* That queue no longer reaches the kevent. */
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[0]), 0U);
	KUNIT_EXPECT_EQ(test, kf_read(p[0], 64), 1L);
	/* A new ADD of the same file hears it. */
	fresh = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 1, &fresh), 0);
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_queue_ready_num(c->q[1]), 1U);
	/* Removal copes with the head that is gone. */
	KUNIT_EXPECT_EQ(test, kf_remove(c, 0, &uk), 0);
	fput(f);
}

static void kevent_poll_same_file_two_kevents_one_origin(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent in, pri;
	int p[2];

	kf_pipe(test, p);
	in = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	pri = kf_uk(KEVENT_POLL, p[0], POLLPRI, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &in), 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &pri), -EEXIST);
	KUNIT_ASSERT_EQ(test, kf_add(c, 1, &pri), 0);
	KUNIT_EXPECT_EQ(test, kf_remove(c, 0, &in), 0);
	/* The origin stays for the other queue's kevent. */
	kf_close(test, p[1]);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 1, SEC, &pri), 1L);
	KUNIT_EXPECT_EQ(test, pri.ret_data[0], (u32)POLLHUP);
}

/*
 * Test files with a ->poll of their own: "sleepy" sleeps when its wait
 * queue is registered (as a FUSE file waits on its daemon), "racy" is
 * woken by a writer while ADD looks at it.
 */
struct kp_file {
	wait_queue_head_t	wq;
	struct completion	entered, release;
	bool			sleepy;
	int			checks;
};

static __poll_t kp_file_poll(struct file *file, poll_table *pt)
{
	struct kp_file *p = file->private_data;

	poll_wait(file, &p->wq, pt);
	if (p->sleepy && pt && pt->_qproc) {
		complete(&p->entered);
		wait_for_completion_timeout(&p->release, 2 * HZ);
	}
	if (!p->sleepy && !pt && !p->checks++)
		wake_up_poll(&p->wq, EPOLLIN);
	return p->sleepy ? 0 : EPOLLIN;
}

static const struct file_operations kp_file_fops = {
	.owner	= THIS_MODULE,
	.poll	= kp_file_poll,
};

static int kp_file(struct kunit *test, bool sleepy)
{
	struct kp_file *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_waitqueue_head(&p->wq);
	init_completion(&p->entered);
	init_completion(&p->release);
	p->sleepy = sleepy;
	return kf_fd(test, anon_inode_getfile("[kevent-test-poll]", &kp_file_fops,
					      p, O_RDWR));
}

static struct kp_file *kp_file_of(int fd)
{
	struct file *f = fget(fd);
	struct kp_file *p = f->private_data;

	fput(f);
	return p;
}

struct kp_adder {
	struct kf_ctx		*c;
	struct ukevent		uk;
	int			ret;
	struct completion	done;
};

static int kp_add_thread(void *arg)
{
	struct kp_adder *a = arg;

	a->ret = kf_add(a->c, 1, &a->uk);
	complete(&a->done);
	return 0;
}

/*
 * A file whose ->poll sleeps holds up only the kevents of that file: ADD
 * of another file on another queue does not wait for it.
 */
static void kevent_poll_sleeping_poll_holds_up_only_its_file(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct kp_adder a = { .c = c };
	struct task_struct *t;
	struct kp_file *p;
	struct ukevent uk;
	ktime_t t0;
	int fd, pp[2];

	fd = kp_file(test, true);
	p = kp_file_of(fd);
	kf_pipe(test, pp);
	a.uk = kf_uk(KEVENT_POLL, fd, POLLIN, 0);
	init_completion(&a.done);
	t = kthread_run(kp_add_thread, &a, "kevent-sleepy-add");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&p->entered);
	t0 = ktime_get();
	uk = kf_uk(KEVENT_POLL, pp[0], POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 200LL);
	complete(&p->release);
	wait_for_completion(&a.done);
	KUNIT_EXPECT_EQ(test, a.ret, 0);
}

/*
 * A wake-up while ADD looks at the file: the kevent is reported once,
 * through the queue (ADD keeps it), never by both.
 */
static void kevent_poll_wakeup_during_add_reported_once(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int fd = kp_file(test, false);

	uk = kf_uk(KEVENT_POLL, fd, POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 1U);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
}

/*
 * A file with two wait queues (as a FIFO open for reading and writing):
 * the origin's entry on the first is embedded in it, the one on the
 * second allocated.  A wake-up on either reaches the kevent; when the
 * second goes (POLLFREE) the first still does; removal takes the entries
 * off (the debug build's kmemleak sees one left behind).
 */
struct kp_two {
	wait_queue_head_t	wq[2];
};

static __poll_t kp_two_poll(struct file *file, poll_table *pt)
{
	struct kp_two *t = file->private_data;

	poll_wait(file, &t->wq[0], pt);
	poll_wait(file, &t->wq[1], pt);
	return 0;
}

static const struct file_operations kp_two_fops = {
	.owner	= THIS_MODULE,
	.poll	= kp_two_poll,
};

static void kevent_poll_second_wait_queue_heard(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct kp_two *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ukevent uk;
	int fd;

	KUNIT_ASSERT_NOT_NULL(test, t);
	init_waitqueue_head(&t->wq[0]);
	init_waitqueue_head(&t->wq[1]);
	fd = kf_fd(test, anon_inode_getfile("[kevent-test-two]", &kp_two_fops,
					    t, O_RDWR));
	uk = kf_uk(KEVENT_POLL, fd, POLLIN | POLLOUT, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	wake_up_poll(&t->wq[1], EPOLLOUT);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLOUT);
	wake_up_poll(&t->wq[0], EPOLLIN);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	wake_up_pollfree(&t->wq[1]);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLHUP);
	wake_up_poll(&t->wq[0], EPOLLIN);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, kf_remove(c, 0, &uk), 0);
	/* No waker runs: the removal's unlock orders the read after it. */
	KUNIT_EXPECT_FALSE(test, waitqueue_active(&t->wq[0]));
}

/* An event mask with none of the storage's bits is refused. */
static void kevent_poll_mask_matching_nothing_einval(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], 0, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EINVAL);
	uk = kf_uk(KEVENT_POLL, p[0], POLLNVAL, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EINVAL);
	if (IS_ENABLED(CONFIG_KEVENT_SOCKET)) {
		uk = kf_uk(KEVENT_SOCKET, p[0], 0x8, 0);
		KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EINVAL);
	}
	KUNIT_EXPECT_EQ(test, c->q[0]->kevent_num, 0U);
}

static struct kunit_case kevent_poll_cases[] = {
	KUNIT_CASE(kevent_poll_ready_at_add_reported_not_kept),
	KUNIT_CASE(kevent_poll_write_makes_reader_ready),
	KUNIT_CASE_PARAM(kevent_poll_request_modes, kevent_poll_mode_gen_params),
	KUNIT_CASE(kevent_poll_hangup_reported_unasked),
	KUNIT_CASE(kevent_poll_last_close_breaks_unpinned_file),
	KUNIT_CASE(kevent_poll_refuses_closed_pollless_and_queue_fds),
	KUNIT_CASE(kevent_poll_wakeup_one_reaches_one_queue),
	KUNIT_CASE(kevent_poll_without_wakeup_one_reaches_all),
	KUNIT_CASE(kevent_poll_modify_rechecks_the_file),
	KUNIT_CASE(kevent_poll_keyless_wakeup_polls_the_file),
	KUNIT_CASE(kevent_poll_pollfree_hangs_up_and_detaches),
	KUNIT_CASE(kevent_poll_same_file_two_kevents_one_origin),
	KUNIT_CASE(kevent_poll_sleeping_poll_holds_up_only_its_file),
	KUNIT_CASE(kevent_poll_wakeup_during_add_reported_once),
	KUNIT_CASE(kevent_poll_mask_matching_nothing_einval),
	KUNIT_CASE(kevent_poll_second_wait_queue_heard),
	{}
};

static struct kunit_suite kevent_poll_suite = {
	.name = "kevent_poll",
	.init = kf_init,
	.exit = kf_exit,
	.test_cases = kevent_poll_cases,
};

kunit_test_suite(kevent_poll_suite);
