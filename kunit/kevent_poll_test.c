// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit: the poll storage (KEVENT_POLL) on pipes created in-kernel: the
 * enqueue/dequeue/callback contract, readiness from the wake-up key,
 * ONESHOT/ET/level behaviour, the file pinned until removal, WAKEUP_ONE
 * across queues, key-less wake-ups and POLLFREE.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/kevent.h>
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
	KUNIT_EXPECT_EQ(test, c->u[0]->kevent_num, 0U);
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
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 0U);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 3), 3L);
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 1U);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.type, (u32)KEVENT_POLL);
	KUNIT_EXPECT_EQ(test, uk.id.raw[0], (u32)p[0]);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)(POLLIN | POLLRDNORM));
	KUNIT_EXPECT_EQ(test, uk.ret_data[1], 0U);
	KUNIT_EXPECT_EQ(test, uk.user[0], (u32)p[0]);
}

static void kevent_poll_et_one_event_per_wakeup(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	/* Two wake-ups before delivery: coalesced into one event. */
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	/* Reading wakes the writer side only: nothing for POLLIN. */
	KUNIT_EXPECT_EQ(test, kf_read(p[0], 64), 2L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	/* A new edge. */
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, c->u[0]->kevent_num, 1U);
}

static void kevent_poll_level_keeps_done(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 0L);
	/*
	 * Sticky DONE: the kevent stays DONE, and the next matching wake-up
	 * queues it again; ret_data[0] counts from the last delivery.
	 */
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_flags, (u32)KEVENT_RET_DONE);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLIN);
}

static void kevent_poll_oneshot_removed_on_delivery(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ONESHOT);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, c->u[0]->kevent_num, 0U);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 0U);
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
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 0U);
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

static void kevent_poll_file_pinned_until_remove(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	/* Closing the watched fd does not end the watch... */
	kf_close(test, p[0]);
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	/* ...REMOVE does, and lets the file go: the pipe has no reader. */
	KUNIT_EXPECT_EQ(test, kf_remove(c, 0, &uk), 0);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), (ssize_t)-EPIPE);
}

static void kevent_poll_queue_close_releases_file(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 0, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_add(c, 1, &uk), 0);
	kf_close(test, p[0]);
	kevent_user_destroy(c->u[0]);
	c->u[0] = NULL;
	flush_delayed_fput();
	/* Queue 1 still pins the reader. */
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[1]), 1U);
	kevent_user_destroy(c->u[1]);
	c->u[1] = NULL;
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), (ssize_t)-EPIPE);
}

static const struct file_operations kevent_poll_nopoll_fops = {
	.owner = THIS_MODULE,
};

static void kevent_poll_bad_files(struct kunit *test)
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
	fd = kevent_user_getfd(O_CLOEXEC);
	KUNIT_ASSERT_GE(test, fd, 0);
	c->fds[c->nr_fds++] = fd;
	uk = kf_uk(KEVENT_POLL, fd, POLLIN, 0);
	KUNIT_EXPECT_EQ(test, kf_add(c, 0, &uk), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->u[0]->kevent_num, 0U);
}

static void kevent_poll_wakeup_one_reaches_one_queue(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	unsigned int q, ready = 0;
	struct ukevent uk;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN,
		   KEVENT_REQ_ET | KEVENT_REQ_WAKEUP_ONE);
	for (q = 0; q < KF_QUEUES; q++)
		KUNIT_ASSERT_EQ(test, kf_add(c, q, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	for (q = 0; q < KF_QUEUES; q++)
		ready += kevent_user_ready_num(c->u[q]);
	KUNIT_EXPECT_EQ(test, ready, 1U);
}

static void kevent_poll_without_wakeup_one_reaches_all(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct ukevent uk;
	unsigned int q;
	int p[2];

	kf_pipe(test, p);
	uk = kf_uk(KEVENT_POLL, p[0], POLLIN, KEVENT_REQ_ET);
	for (q = 0; q < KF_QUEUES; q++)
		KUNIT_ASSERT_EQ(test, kf_add(c, q, &uk), 0);
	KUNIT_ASSERT_EQ(test, kf_write(p[1], 1), 1L);
	for (q = 0; q < KF_QUEUES; q++)
		KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[q]), 1U);
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
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 0U);
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

static void kevent_poll_pollfree_hangs_up_and_detaches(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	struct pipe_inode_info *pipe;
	struct ukevent uk;
	struct file *f;
	int p[2];

	pipe = kp_watched_pipe(test, p, &uk, &f);
	/* As signalfd does when its wait queue goes before the file. */
	wake_up_pollfree(&pipe->rd_wait);
	KUNIT_ASSERT_EQ(test, kf_get(test, c, 0, 0, &uk), 1L);
	KUNIT_EXPECT_EQ(test, uk.ret_data[0], (u32)POLLHUP);
	/* That queue no longer reaches the kevent. */
	KUNIT_EXPECT_EQ(test, kf_write(p[1], 1), 1L);
	KUNIT_EXPECT_EQ(test, kevent_user_ready_num(c->u[0]), 0U);
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

static struct kunit_case kevent_poll_cases[] = {
	KUNIT_CASE(kevent_poll_ready_at_add_reported_not_kept),
	KUNIT_CASE(kevent_poll_write_makes_reader_ready),
	KUNIT_CASE(kevent_poll_et_one_event_per_wakeup),
	KUNIT_CASE(kevent_poll_level_keeps_done),
	KUNIT_CASE(kevent_poll_oneshot_removed_on_delivery),
	KUNIT_CASE(kevent_poll_hangup_reported_unasked),
	KUNIT_CASE(kevent_poll_file_pinned_until_remove),
	KUNIT_CASE(kevent_poll_queue_close_releases_file),
	KUNIT_CASE(kevent_poll_bad_files),
	KUNIT_CASE(kevent_poll_wakeup_one_reaches_one_queue),
	KUNIT_CASE(kevent_poll_without_wakeup_one_reaches_all),
	KUNIT_CASE(kevent_poll_modify_rechecks_the_file),
	KUNIT_CASE(kevent_poll_keyless_wakeup_polls_the_file),
	KUNIT_CASE(kevent_poll_pollfree_hangs_up_and_detaches),
	KUNIT_CASE(kevent_poll_same_file_two_kevents_one_origin),
	{}
};

static struct kunit_suite kevent_poll_suite = {
	.name = "kevent_poll",
	.init = kf_init,
	.exit = kf_exit,
	.test_cases = kevent_poll_cases,
};

kunit_test_suite(kevent_poll_suite);
