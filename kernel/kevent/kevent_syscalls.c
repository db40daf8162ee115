// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the four syscalls, /dev/kevent and the queue's file.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * A queue's file (kevent_queue_fops) is opened from /dev/kevent (a misc
 * device) and holds the queue in ->private_data; its ->poll reports the
 * queue readable while a kevent is ready, its fdinfo gives the queue's
 * size and counters.  kevent_get_events(), kevent_ctl(), kevent_wait()
 * and kevent_ring_init() look up the queue behind their fd and call
 * kevent_deliver.c, kevent_ctl.c and kevent_ring.c; kevent_sys_*() are
 * their bodies, callable from the kernel (the KUnit suites).  At boot this
 * file makes kevent_cache, the fs.kevent sysctls and the device.
 *
 * Locking
 * -------
 * None of its own: the file's reference (CLASS(fd)) keeps the queue for
 * the length of a syscall, and ->release destroys the queue.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/miscdevice.h>
#include <linux/syscalls.h>
#include <linux/sysctl.h>
#include <linux/memblock.h>
#include <linux/highmem.h>
#include <linux/anon_inodes.h>
#include <linux/seq_file.h>
#include "kevent_internal.h"

static __poll_t kevent_queue_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kevent_queue *q = file->private_data;

	if (!poll_does_not_wait(wait)) {
		poll_wait(file, &q->wait, wait);
		/*
		 * Pairs with wq_has_sleeper() in kevent_queue_wake(): the entry
		 * is in the queue before ready_num is read, so either this
		 * reads the new count or the notifier sees the entry and wakes
		 * it (as sock_poll_wait() does for sockets).
		 */
		smp_mb();
	}
	return kevent_queue_ready_num(q) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int kevent_queue_open(struct inode *inode, struct file *file)
{
	struct kevent_queue *q = kevent_queue_create();

	if (!q)
		return -ENOMEM;
	file->private_data = q;
	return stream_open(inode, file);
}

static int kevent_queue_release(struct inode *inode, struct file *file)
{
	kevent_queue_destroy(file->private_data);
	file->private_data = NULL;
	return 0;
}

#ifdef CONFIG_PROC_FS
/*
 * /proc/PID/fdinfo/FD of a queue: its size, its ready kevents, what its
 * owner has in all queues, and (CONFIG_KEVENT_USER_STAT) its counters.
 * The kevents themselves are not listed: a queue may hold millions.
 */
static void kevent_queue_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct kevent_queue *q = file->private_data;

	seq_printf(m, "kevents:\t%u\n", READ_ONCE(q->kevent_num));
	seq_printf(m, "ready:\t%u\n", kevent_queue_ready_num(q));
	seq_printf(m, "user_kevents:\t%ld\n",
		   atomic_long_read(&q->owner->kevents));
	if (!IS_ENABLED(CONFIG_KEVENT_USER_STAT))
		return;
	seq_printf(m, "added:\t%ld\n", atomic_long_read(&q->total));
	seq_printf(m, "immediately:\t%ld\n", atomic_long_read(&q->im_num));
	seq_printf(m, "delivered:\t%ld\n", atomic_long_read(&q->wait_num));
	seq_printf(m, "ring:\t%ld\n", atomic_long_read(&q->ring_num));
}
#endif

const struct file_operations kevent_queue_fops = {
	.owner		= THIS_MODULE,
	.open		= kevent_queue_open,
	.release	= kevent_queue_release,
	.poll		= kevent_queue_poll,
#ifdef CONFIG_PROC_FS
	.show_fdinfo	= kevent_queue_show_fdinfo,
#endif
};

static struct miscdevice kevent_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kevent",
	.fops	= &kevent_queue_fops,
	.mode	= 0666,
};

/*
 * The queue behind a queue fd: -EBADF when the fd is not open, -EINVAL
 * when it is not a kevent queue.  The caller's CLASS(fd) holds the file.
 */
static struct kevent_queue *kevent_queue_of(struct fd f)
{
	if (fd_empty(f))
		return ERR_PTR(-EBADF);
	if (!is_kevent_file(fd_file(f)))
		return ERR_PTR(-EINVAL);
	return fd_file(f)->private_data;
}

static bool kevent_nonblock(struct fd f)
{
	return fd_file(f)->f_flags & O_NONBLOCK;
}

/**
 * kevent_sys_get_events() - kevent_get_events(2)
 * @ctl_fd: the queue
 * @min_nr: wait until this many kevents are ready
 * @max_nr: copy at most this many
 * @timeout: relative, in nanoseconds
 * @buf: the user buffer
 * @flags: must be 0
 *
 * Return: as kevent_queue_get_events(); -EBADF for an fd that is not open,
 * -EINVAL for one that is not a queue or for bad arguments.
 */
long kevent_sys_get_events(int ctl_fd, unsigned int min_nr, unsigned int max_nr,
			   u64 timeout, struct ukevent __user *buf,
			   unsigned int flags)
{
	CLASS(fd, f)(ctl_fd);
	struct kevent_queue *q = kevent_queue_of(f);

	if (IS_ERR(q))
		return PTR_ERR(q);
	if (flags || !max_nr || min_nr > max_nr)
		return -EINVAL;
	return kevent_queue_get_events(q, min_nr, max_nr, timeout, buf,
				      kevent_nonblock(f));
}

/**
 * kevent_sys_ctl() - kevent_ctl(2)
 * @ctl_fd: the queue
 * @cmd: KEVENT_CTL_*
 * @num: number of entries
 * @arg: the entries
 *
 * Return: as kevent_queue_ctl(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_ctl(int ctl_fd, unsigned int cmd, unsigned int num,
		    struct ukevent __user *arg)
{
	CLASS(fd, f)(ctl_fd);
	struct kevent_queue *q = kevent_queue_of(f);

	if (IS_ERR(q))
		return PTR_ERR(q);
	return kevent_queue_ctl(q, cmd, num, arg);
}

/**
 * kevent_sys_wait() - kevent_wait(2)
 * @ctl_fd: the queue
 * @num: at most this many kevents into the ring
 * @timeout: relative, in nanoseconds
 *
 * Return: as kevent_queue_wait(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_wait(int ctl_fd, unsigned int num, u64 timeout)
{
	CLASS(fd, f)(ctl_fd);
	struct kevent_queue *q = kevent_queue_of(f);

	if (IS_ERR(q))
		return PTR_ERR(q);
	return kevent_queue_wait(q, num, timeout, kevent_nonblock(f));
}

/**
 * kevent_sys_ring_init() - kevent_ring_init(2)
 * @ctl_fd: the queue
 * @ring: the user's ring
 * @num: its size
 *
 * Return: as kevent_queue_ring_init(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_ring_init(int ctl_fd, struct kevent_ring __user *ring,
			  unsigned int num)
{
	CLASS(fd, f)(ctl_fd);
	struct kevent_queue *q = kevent_queue_of(f);

	if (IS_ERR(q))
		return PTR_ERR(q);
	return kevent_queue_ring_init(q, ring, num);
}

SYSCALL_DEFINE6(kevent_get_events, int, ctl_fd, unsigned int, min_nr,
		unsigned int, max_nr, __u64, timeout,
		struct ukevent __user *, buf, unsigned int, flags)
{
	return kevent_sys_get_events(ctl_fd, min_nr, max_nr, timeout, buf, flags);
}

SYSCALL_DEFINE4(kevent_ctl, int, ctl_fd, unsigned int, cmd, unsigned int, num,
		struct ukevent __user *, arg)
{
	return kevent_sys_ctl(ctl_fd, cmd, num, arg);
}

SYSCALL_DEFINE3(kevent_wait, int, ctl_fd, unsigned int, num, __u64, timeout)
{
	return kevent_sys_wait(ctl_fd, num, timeout);
}

SYSCALL_DEFINE3(kevent_ring_init, int, ctl_fd, struct kevent_ring __user *, ring,
		unsigned int, num)
{
	return kevent_sys_ring_init(ctl_fd, ring, num);
}

#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
/**
 * kevent_queue_getfd() - a new queue as an fd, as open("/dev/kevent") gives
 * @flags: O_NONBLOCK and O_CLOEXEC are honoured
 *
 * For kernel callers (the KUnit suites), which have no /dev.
 *
 * Return: the fd, or a negative error.
 */
int kevent_queue_getfd(int flags)
{
	struct kevent_queue *q = kevent_queue_create();
	int fd;

	if (!q)
		return -ENOMEM;
	fd = anon_inode_getfd("[kevent]", &kevent_queue_fops, q,
			      O_RDWR | (flags & (O_NONBLOCK | O_CLOEXEC)));
	if (fd < 0)
		kevent_queue_destroy(q);
	return fd;
}
#endif

static unsigned long kevent_zero;
static unsigned long kevent_long_max = LONG_MAX;

static struct ctl_table kevent_sysctls[] = {
	{
		.procname	= "max_user_kevents",
		.data		= &kevent_max_user_kevents,
		.maxlen		= sizeof(kevent_max_user_kevents),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &kevent_zero,
		.extra2		= &kevent_long_max,
	},
};

static int __init kevent_queue_init(void)
{
	int err;

	/* 4% of low memory, as epoll's max_user_watches. */
	kevent_max_user_kevents = (((totalram_pages() - totalhigh_pages()) / 25)
				   << PAGE_SHIFT) / sizeof(struct kevent);

	kevent_cache = KMEM_CACHE(kevent, SLAB_PANIC | SLAB_ACCOUNT);
	register_sysctl("fs/kevent", kevent_sysctls);

	err = misc_register(&kevent_miscdev);
	if (err) {
		pr_err("cannot register /dev/kevent: %d\n", err);
		kmem_cache_destroy(kevent_cache);
		return err;
	}
	return 0;
}
fs_initcall(kevent_queue_init);
