// SPDX-License-Identifier: GPL-2.0+
/*
 * Helpers of the poll and socket suites (see kevent_file_test.h).
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/pipe_fs_i.h>
#include <linux/uaccess.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"
#include "kevent_file_test.h"

int kf_init(struct kunit *test)
{
	struct kf_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < KF_QUEUES; i++) {
		c->q[i] = kevent_queue_create();
		if (!c->q[i])
			return -ENOMEM;
	}
	c->buf = (struct ukevent __user *)kt_user_mem(test, PAGE_SIZE);
	if (!c->buf)
		return -ENOMEM;
	test->priv = c;
	return 0;
}

void kf_exit(struct kunit *test)
{
	struct kf_ctx *c = test->priv;
	int i;

	/* The queues first, then the files their kevents watch. */
	for (i = 0; i < KF_QUEUES; i++)
		if (c->q[i])
			kevent_queue_destroy(c->q[i]);
	for (i = 0; i < c->nr_fds; i++)
		if (c->fds[i] >= 0)
			close_fd(c->fds[i]);
	flush_delayed_fput();
}

int kf_fd(struct kunit *test, struct file *file)
{
	struct kf_ctx *c = test->priv;
	int fd;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(file));
	KUNIT_ASSERT_LT(test, c->nr_fds, KF_FDS);
	fd = get_unused_fd_flags(O_CLOEXEC);
	KUNIT_ASSERT_GE(test, fd, 0);
	fd_install(fd, file);
	c->fds[c->nr_fds++] = fd;
	return fd;
}

void kf_close(struct kunit *test, int fd)
{
	struct kf_ctx *c = test->priv;
	int i;

	for (i = 0; i < c->nr_fds; i++)
		if (c->fds[i] == fd)
			c->fds[i] = -1;
	close_fd(fd);
	flush_delayed_fput();
}

void kf_pipe(struct kunit *test, int fds[2])
{
	struct file *files[2];

	KUNIT_ASSERT_EQ(test, create_pipe_files(files, O_NONBLOCK), 0);
	fds[0] = kf_fd(test, files[0]);
	fds[1] = kf_fd(test, files[1]);
}

static ssize_t kf_io(int fd, size_t len, bool write)
{
	static const char out[64] = "kevent";
	struct file *f = fget(fd);
	loff_t pos = 0;
	char in[64];
	ssize_t ret;

	if (!f)
		return -EBADF;
	if (write)
		ret = kernel_write(f, out, min(len, sizeof(out)), &pos);
	else
		ret = kernel_read(f, in, min(len, sizeof(in)), &pos);
	fput(f);
	return ret;
}

ssize_t kf_write(int fd, size_t len)
{
	return kf_io(fd, len, true);
}

ssize_t kf_read(int fd, size_t len)
{
	return kf_io(fd, len, false);
}

struct ukevent kf_uk(u32 type, int fd, u32 event, u32 req_flags)
{
	struct ukevent uk = {
		.type = type,
		.event = event,
		.req_flags = req_flags,
		.id.raw = { fd, 0 },
		.user = { fd, type },
	};
	return uk;
}

/* @op on queue @qi under its ctl_mutex, as kevent_ctl() runs it. */
static int kf_ctl(struct kf_ctx *c, int qi, struct ukevent *uk,
		  int (*op)(struct ukevent *uk, struct kevent_queue *q))
{
	int err;

	mutex_lock(&c->q[qi]->ctl_mutex);
	err = op(uk, c->q[qi]);
	mutex_unlock(&c->q[qi]->ctl_mutex);
	return err;
}

int kf_add(struct kf_ctx *c, int qi, struct ukevent *uk)
{
	return kf_ctl(c, qi, uk, kevent_queue_add_ukevent);
}

int kf_remove(struct kf_ctx *c, int qi, struct ukevent *uk)
{
	return kf_ctl(c, qi, uk, kevent_queue_remove_ukevent);
}

int kf_modify(struct kf_ctx *c, int qi, struct ukevent *uk)
{
	return kf_ctl(c, qi, uk, kevent_queue_modify_ukevent);
}

long kf_get(struct kunit *test, struct kf_ctx *c, int qi, u64 timeout,
	    struct ukevent *out)
{
	long n = kevent_queue_get_events(c->q[qi], 1, 1, timeout, c->buf, false);

	if (n == 1)
		KUNIT_ASSERT_EQ(test, 0UL,
				copy_from_user(out, c->buf, sizeof(*out)));
	return n;
}
