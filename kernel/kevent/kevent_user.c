// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the queue, its control operations, delivery and the syscalls.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed (see SPEC.md).
 *
 * Objects
 * -------
 * A queue (struct kevent_user) is created by open("/dev/kevent") and lives
 * as long as its file; it owns its kevents (struct kevent), kept in an
 * rb-tree keyed by (type, id).  kevent_ctl() adds, removes and modifies
 * kevents; kevent_get_events() copies ready kevents to a user buffer;
 * kevent_ring_init() registers a user ring that kevent_wait() fills.
 *
 * Delivery takes a kevent off the ready list with a reference, snapshots
 * its ukevent under its ulock (clearing the results of ET kevents and the
 * result data of all), and copies the snapshot with no lock held.  If the
 * copy faults, the snapshot's results go back and the kevent goes back to
 * the head of the ready list: it is not lost.  Otherwise a ONESHOT kevent
 * is removed.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c:
 * ring_lock -> ctl_mutex -> st->lock -> k->ulock -> ready_lock -> wait.lock.
 * Here: the tree and kevent_num are changed only under ctl_mutex; storage
 * ->enqueue/->dequeue run under ctl_mutex (never under a spinlock); the
 * ring's fields are under ring_lock.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/miscdevice.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/cred.h>
#include <linux/hrtimer.h>
#include <linux/sysctl.h>
#include <linux/memblock.h>
#include <linux/overflow.h>
#include <linux/anon_inodes.h>
#include <linux/kevent.h>

static struct kmem_cache *kevent_cache __ro_after_init;

/*
 * Per-user cap on kevents, like epoll's max_user_watches: by default the
 * number of kevents that fit in 4% of low memory.  Past it, ADD fails the
 * entry with -ENOSPC.  fs.kevent.max_user_kevents.
 */
unsigned long kevent_max_user_kevents __read_mostly;

/* The largest entry buffer kevent_ctl() allocated: bounded, whatever num. */
size_t kevent_ctl_alloc_peak;

/* Per-queue counters; printed at close with CONFIG_KEVENT_USER_STAT. */
static void kevent_stat_print(struct kevent_user *u)
{
	if (IS_ENABLED(CONFIG_KEVENT_USER_STAT))
		pr_info("kevent: queue %p: wait %lu, ring %lu, immediately %lu, total %lu\n",
			u, u->wait_num, u->ring_num, u->im_num, u->total);
}

static void kevent_get(struct kevent *k)
{
	refcount_inc(&k->refcnt);
}

static void kevent_put(struct kevent *k)
{
	if (refcount_dec_and_test(&k->refcnt))
		kmem_cache_free(kevent_cache, k);
}

/**
 * kevent_user_ready_num() - how many kevents of a queue are ready
 * @u: the queue
 *
 * Return: the length of the ready list.
 */
unsigned int kevent_user_ready_num(struct kevent_user *u)
{
	return READ_ONCE(u->ready_num);
}

/**
 * kevent_user_create() - create an empty queue
 *
 * Return: the queue, or NULL when out of memory.
 */
struct kevent_user *kevent_user_create(void)
{
	struct kevent_user *u;

	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return NULL;

	u->kevent_root = RB_ROOT;
	INIT_LIST_HEAD(&u->ready_list);
	spin_lock_init(&u->ready_lock);
	mutex_init(&u->ctl_mutex);
	init_waitqueue_head(&u->wait);
	mutex_init(&u->ring_lock);
	u->owner = get_current_user();
	return u;
}

/* Key order: type, then id. */
static int kevent_compare_key(const struct ukevent *a, const struct ukevent *b)
{
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->id.raw_u64 != b->id.raw_u64)
		return a->id.raw_u64 < b->id.raw_u64 ? -1 : 1;
	return 0;
}

static struct kevent *kevent_search(const struct ukevent *uk,
				    struct kevent_user *u)
{
	struct rb_node *n = u->kevent_root.rb_node;

	lockdep_assert_held(&u->ctl_mutex);

	while (n) {
		struct kevent *k = rb_entry(n, struct kevent, kevent_node);
		int cmp = kevent_compare_key(uk, &k->event);

		if (cmp < 0)
			n = n->rb_left;
		else if (cmp > 0)
			n = n->rb_right;
		else
			return k;
	}
	return NULL;
}

static int kevent_tree_insert(struct kevent_user *u, struct kevent *new)
{
	struct rb_node **p = &u->kevent_root.rb_node, *parent = NULL;

	lockdep_assert_held(&u->ctl_mutex);

	while (*p) {
		struct kevent *k = rb_entry(*p, struct kevent, kevent_node);
		int cmp = kevent_compare_key(&new->event, &k->event);

		parent = *p;
		if (cmp < 0)
			p = &parent->rb_left;
		else if (cmp > 0)
			p = &parent->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&new->kevent_node, parent, p);
	rb_insert_color(&new->kevent_node, &u->kevent_root);
	new->in_tree = true;
	u->kevent_num++;
	return 0;
}

/*
 * Remove @k: out of the tree, off its storage (->dequeue when @deq), off
 * the ready list for good, uncharged, and the tree's reference dropped.
 */
static void kevent_remove(struct kevent *k, bool deq)
{
	struct kevent_user *u = k->user;
	unsigned long flags;

	lockdep_assert_held(&u->ctl_mutex);

	rb_erase(&k->kevent_node, &u->kevent_root);
	k->in_tree = false;
	u->kevent_num--;

	if (deq)
		kevent_dequeue(k);

	spin_lock_irqsave(&u->ready_lock, flags);
	k->dead = true;
	if (k->on_ready) {
		list_del_init(&k->ready_entry);
		k->on_ready = false;
		u->ready_num--;
	}
	spin_unlock_irqrestore(&u->ready_lock, flags);

	atomic_long_dec(&u->owner->kevents);
	kevent_put(k);
}

/**
 * kevent_user_destroy() - remove every kevent of a queue and free it
 * @u: the queue; nobody else may use it any more
 */
void kevent_user_destroy(struct kevent_user *u)
{
	struct rb_node *n;

	mutex_lock(&u->ctl_mutex);
	while ((n = rb_first(&u->kevent_root)))
		kevent_remove(rb_entry(n, struct kevent, kevent_node), true);
	mutex_unlock(&u->ctl_mutex);

	kevent_stat_print(u);
	free_uid(u->owner);
	kfree(u);
}

/**
 * kevent_user_add_ukevent() - add one kevent to a queue
 * @uk: the request; on return other than 0 it holds the answer
 * @u: the queue
 *
 * Return: 0 when the kevent is queued; >0 when it was ready at once (it is
 * reported in @uk with KEVENT_RET_DONE and not kept); <0 on error (@uk has
 * KEVENT_RET_BROKEN|KEVENT_RET_DONE and ret_data[1] = the error).
 */
int kevent_user_add_ukevent(struct ukevent *uk, struct kevent_user *u)
{
	struct kevent *k;
	int err;

	lockdep_assert_held(&u->ctl_mutex);

	if (atomic_long_inc_return(&u->owner->kevents) >
	    READ_ONCE(kevent_max_user_kevents)) {
		atomic_long_dec(&u->owner->kevents);
		err = -ENOSPC;
		goto err_out;
	}

	k = kmem_cache_alloc(kevent_cache, KEVENT_GFP);
	if (!k) {
		atomic_long_dec(&u->owner->kevents);
		err = -ENOMEM;
		goto err_out;
	}

	k->event = *uk;
	k->event.ret_flags = 0;
	k->event.ret_data[0] = 0;
	k->event.ret_data[1] = 0;
	k->user = u;
	err = kevent_init(k);
	if (!err)
		err = kevent_tree_insert(u, k);
	if (err) {
		atomic_long_dec(&u->owner->kevents);
		kmem_cache_free(kevent_cache, k);
		goto err_out;
	}
	u->total++;

	err = kevent_enqueue(k);
	if (!err)
		return 0;

	spin_lock_irq(&k->ulock);
	*uk = k->event;
	spin_unlock_irq(&k->ulock);
	/* Ready at once: the storage attached it, so detach it again. */
	kevent_remove(k, err > 0);
	if (err > 0) {
		uk->ret_flags |= KEVENT_RET_DONE;
		return err;
	}
err_out:
	uk->ret_flags |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
	uk->ret_data[1] = err;
	return err;
}

/**
 * kevent_user_remove_ukevent() - remove the kevent matching (type, id)
 * @uk: the request
 * @u: the queue
 *
 * Return: 0, or -ENOENT when no kevent matches.
 */
int kevent_user_remove_ukevent(struct ukevent *uk, struct kevent_user *u)
{
	struct kevent *k;

	lockdep_assert_held(&u->ctl_mutex);

	k = kevent_search(uk, u);
	if (!k)
		return -ENOENT;
	kevent_remove(k, true);
	return 0;
}

/**
 * kevent_user_modify_ukevent() - replace the event bits and request flags
 * @uk: the request
 * @u: the queue
 *
 * The kevent's results are cleared and its readiness is checked again.
 *
 * Return: 0, or -ENOENT when no kevent matches.
 */
int kevent_user_modify_ukevent(struct ukevent *uk, struct kevent_user *u)
{
	struct kevent_storage *st;
	struct kevent *k;
	unsigned long flags;

	lockdep_assert_held(&u->ctl_mutex);

	k = kevent_search(uk, u);
	if (!k)
		return -ENOENT;

	/*
	 * Event bits are read by notifications under the storage lock; the
	 * event lock is taken from hard interrupts (timers), so interrupts
	 * are off even for an event that has no storage any more.
	 */
	st = READ_ONCE(k->st);
	local_irq_save(flags);
	if (st)
		spin_lock(&st->lock);
	spin_lock(&k->ulock);
	k->event.event = uk->event;
	k->event.req_flags = uk->req_flags;
	k->event.ret_flags = 0;
	spin_unlock(&k->ulock);
	if (st)
		spin_unlock(&st->lock);
	local_irq_restore(flags);

	kevent_requeue(k);
	return 0;
}

/*
 * kevent_ctl(): entries are read in chunks of at most KEVENT_CTL_CHUNK, so
 * no allocation grows with @num.  ADD writes the ready and failed entries,
 * compacted, to the start of @arg (the write index never passes the read
 * index) and returns their number; REMOVE and MODIFY answer every entry in
 * place and return 0.  A copy that faults stops the call with -EFAULT;
 * entries processed before it keep their effect.
 */
static int kevent_ctl_chunk(struct kevent_user *u, unsigned int cmd,
			    struct ukevent *ukev, unsigned int n)
{
	unsigned int i, rnum = 0;
	int err;

	for (i = 0; i < n; i++) {
		struct ukevent *uk = &ukev[i];

		switch (cmd) {
		case KEVENT_CTL_ADD:
			if (uk->type >= KEVENT_MAX) {
				uk->ret_flags |= KEVENT_RET_BROKEN |
						 KEVENT_RET_DONE;
				uk->ret_data[1] = -EINVAL;
				err = -EINVAL;
			} else {
				err = kevent_user_add_ukevent(uk, u);
			}
			if (err) {
				u->im_num++;
				ukev[rnum++] = *uk;
			}
			break;
		case KEVENT_CTL_REMOVE:
		case KEVENT_CTL_MODIFY:
			if (uk->type >= KEVENT_MAX)
				err = -ENOENT;
			else if (cmd == KEVENT_CTL_REMOVE)
				err = kevent_user_remove_ukevent(uk, u);
			else
				err = kevent_user_modify_ukevent(uk, u);
			if (err) {
				uk->ret_flags |= KEVENT_RET_BROKEN;
				uk->ret_data[1] = err;
			}
			uk->ret_flags |= KEVENT_RET_DONE;
			rnum++;
			break;
		}
	}
	return rnum;
}

/**
 * kevent_user_ctl() - the body of kevent_ctl()
 * @u: the queue
 * @cmd: KEVENT_CTL_ADD, KEVENT_CTL_REMOVE or KEVENT_CTL_MODIFY
 * @num: number of entries at @arg
 * @arg: the entries, answered in place
 *
 * Return: for ADD the number of entries written back, for REMOVE and
 * MODIFY 0; -EINVAL for an unknown @cmd, -EFAULT when @arg faults.
 */
int kevent_user_ctl(struct kevent_user *u, unsigned int cmd, unsigned int num,
		    struct ukevent __user *arg)
{
	struct ukevent onstack[KEVENT_MIN_BUFFS_ALLOC];
	struct ukevent __user *out = arg;
	struct ukevent *ukev = onstack;
	unsigned int chunk = KEVENT_MIN_BUFFS_ALLOC, done = 0;
	int ret = 0;

	if (cmd != KEVENT_CTL_ADD && cmd != KEVENT_CTL_REMOVE &&
	    cmd != KEVENT_CTL_MODIFY)
		return -EINVAL;
	if (!num)
		return 0;

	if (num > KEVENT_MIN_BUFFS_ALLOC) {
		unsigned int want = min_t(unsigned int, num, KEVENT_CTL_CHUNK);

		/* Without memory, go on with the small buffer: nothing fails. */
		ukev = kmalloc_array(want, sizeof(*ukev), GFP_KERNEL);
		if (ukev) {
			chunk = want;
			if (want * sizeof(*ukev) > READ_ONCE(kevent_ctl_alloc_peak))
				WRITE_ONCE(kevent_ctl_alloc_peak, want * sizeof(*ukev));
		} else {
			ukev = onstack;
		}
	}

	mutex_lock(&u->ctl_mutex);
	while (done < num) {
		unsigned int n = min(chunk, num - done), r;

		if (copy_from_user(ukev, arg + done, n * sizeof(*ukev))) {
			ret = -EFAULT;
			break;
		}
		r = kevent_ctl_chunk(u, cmd, ukev, n);
		if (cmd != KEVENT_CTL_ADD)
			out = arg + done;
		if (r && copy_to_user(out, ukev, r * sizeof(*ukev))) {
			ret = -EFAULT;
			break;
		}
		if (cmd == KEVENT_CTL_ADD) {
			out += r;
			ret += r;
		}
		done += n;
	}
	mutex_unlock(&u->ctl_mutex);

	if (ukev != onstack)
		kfree(ukev);
	return ret;
}

/*
 * Take the first ready kevent, with a reference, or NULL.
 */
static struct kevent *kevent_take_ready(struct kevent_user *u)
{
	struct kevent *k;
	unsigned long flags;

	spin_lock_irqsave(&u->ready_lock, flags);
	k = list_first_entry_or_null(&u->ready_list, struct kevent, ready_entry);
	if (k) {
		list_del_init(&k->ready_entry);
		k->on_ready = false;
		u->ready_num--;
		kevent_get(k);
	}
	spin_unlock_irqrestore(&u->ready_lock, flags);
	return k;
}

/* The copy faulted: give the results back and requeue @k at the head. */
static void kevent_undo_delivery(struct kevent *k, const struct ukevent *uk)
{
	struct kevent_user *u = k->user;
	unsigned long flags;

	spin_lock_irqsave(&k->ulock, flags);
	k->event.ret_flags |= uk->ret_flags;
	if (!k->event.ret_data[0] && !k->event.ret_data[1]) {
		k->event.ret_data[0] = uk->ret_data[0];
		k->event.ret_data[1] = uk->ret_data[1];
	}
	spin_unlock_irqrestore(&k->ulock, flags);

	spin_lock_irqsave(&u->ready_lock, flags);
	if (!k->on_ready && !k->dead) {
		list_add(&k->ready_entry, &u->ready_list);
		k->on_ready = true;
		u->ready_num++;
	}
	spin_unlock_irqrestore(&u->ready_lock, flags);
}

/*
 * Deliver the first ready kevent to @dst.  Returns 1 when one was copied,
 * 0 when none is ready, -EFAULT when the copy faulted (the kevent stays
 * ready).
 */
static int kevent_deliver_one(struct kevent_user *u, struct ukevent __user *dst)
{
	struct ukevent uk;
	struct kevent *k;
	unsigned long flags;

	k = kevent_take_ready(u);
	if (!k)
		return 0;

	spin_lock_irqsave(&k->ulock, flags);
	uk = k->event;
	if (k->event.req_flags & KEVENT_REQ_ET)
		k->event.ret_flags = 0;
	k->event.ret_data[0] = 0;
	k->event.ret_data[1] = 0;
	spin_unlock_irqrestore(&k->ulock, flags);

	if (copy_to_user(dst, &uk, sizeof(uk))) {
		kevent_undo_delivery(k, &uk);
		kevent_put(k);
		return -EFAULT;
	}

	if (uk.req_flags & KEVENT_REQ_ONESHOT) {
		mutex_lock(&u->ctl_mutex);
		if (k->in_tree)
			kevent_remove(k, true);
		mutex_unlock(&u->ctl_mutex);
	}
	kevent_put(k);
	return 1;
}

/*
 * Wait until at least @min_nr kevents are ready, @deadline passes or a
 * signal comes.  Returns 0 (ready or not, the caller looks), -ETIME at the
 * deadline, -EINTR on a signal.
 */
static int kevent_wait_ready(struct kevent_user *u, unsigned int min_nr,
			     u64 timeout, ktime_t deadline)
{
	long ret;

	if (timeout == KEVENT_WAIT_FOREVER) {
		ret = wait_event_interruptible(u->wait,
				READ_ONCE(u->ready_num) >= min_nr);
	} else {
		ktime_t left = ktime_sub(deadline, ktime_get());

		if (ktime_compare(left, 0) <= 0)
			return -ETIME;
		ret = wait_event_interruptible_hrtimeout(u->wait,
				READ_ONCE(u->ready_num) >= min_nr, left);
	}
	if (ret == -ERESTARTSYS)
		return -EINTR;
	return ret;
}

static ktime_t kevent_deadline(u64 timeout)
{
	if (timeout > KTIME_MAX)
		return KTIME_MAX;
	return ktime_add_safe(ktime_get(), ns_to_ktime(timeout));
}

/**
 * kevent_user_get_events() - the body of kevent_get_events()
 * @u: the queue
 * @min_nr: wait until this many kevents are ready
 * @max_nr: copy at most this many
 * @timeout: relative, in nanoseconds; 0 does not wait, KEVENT_WAIT_FOREVER
 *           waits without limit
 * @buf: the user buffer
 * @nonblock: never wait (O_NONBLOCK)
 *
 * A waiter woken when others took the events keeps waiting until its
 * timeout.  The ring is not touched.
 *
 * Return: the number of kevents copied (0 at the timeout), -EINTR when a
 * signal came before any was copied, -EFAULT when the first copy faulted.
 */
long kevent_user_get_events(struct kevent_user *u, unsigned int min_nr,
			    unsigned int max_nr, u64 timeout,
			    struct ukevent __user *buf, bool nonblock)
{
	ktime_t deadline = kevent_deadline(timeout);
	bool wait = timeout && !nonblock;
	unsigned int num;
	int err, ret;

	for (;;) {
		err = wait ? kevent_wait_ready(u, min_nr, timeout, deadline) : 0;
		if (err == -EINTR)
			return err;

		for (num = 0; num < max_nr; num++) {
			ret = kevent_deliver_one(u, buf + num);
			if (ret < 0 && !num)
				return ret;
			if (ret <= 0)
				break;
			u->wait_num++;
		}
		if (num || !wait || err || !min_nr)
			return num;
	}
}

/**
 * kevent_user_ring_init() - register the user's ring
 * @u: the queue
 * @ring: the ring, @num events after its header
 * @num: ring size
 *
 * Return: 0; -EINVAL for @num 0 or a size that overflows, -EFAULT when the
 * ring is not writable user memory, -EBUSY when the queue has a ring.
 */
long kevent_user_ring_init(struct kevent_user *u,
			   struct kevent_ring __user *ring, unsigned int num)
{
	size_t size;
	long err = 0;

	if (!num)
		return -EINVAL;
	size = struct_size_t(struct kevent_ring, event, num);
	if (size == SIZE_MAX || size > MAX_RW_COUNT)
		return -EINVAL;
	if (!access_ok(ring, size) ||
	    fault_in_safe_writeable((const char __user *)ring, size))
		return -EFAULT;

	mutex_lock(&u->ring_lock);
	if (u->pring) {
		err = -EBUSY;
	} else if (put_user(0, &ring->ring_kidx)) {
		err = -EFAULT;
	} else {
		u->pring = ring;
		u->ring_size = num;
		u->kidx = 0;
	}
	mutex_unlock(&u->ring_lock);
	return err;
}

/**
 * kevent_user_wait() - the body of kevent_wait()
 * @u: the queue
 * @num: copy at most this many kevents into the ring; below the ring size
 * @timeout: as for kevent_user_get_events()
 * @nonblock: never wait
 *
 * Events go to the ring at the kernel index, wrapping at the ring size;
 * afterwards ring_kidx is the slot the kernel fills next.  Entries the
 * application has not read yet are overwritten.
 *
 * Return: the number of kevents written, -EINVAL without a ring or with
 * @num not below its size, -EINTR on a signal, -EFAULT when the first
 * write faulted (the kevent stays ready).
 */
long kevent_user_wait(struct kevent_user *u, unsigned int num, u64 timeout,
		      bool nonblock)
{
	ktime_t deadline = kevent_deadline(timeout);
	bool wait = timeout && !nonblock;
	struct kevent_ring __user *ring;
	unsigned int i;
	long ret = 0;
	int err;

	mutex_lock(&u->ring_lock);
	ring = u->pring;
	if (!ring || num >= u->ring_size)
		ret = -EINVAL;
	mutex_unlock(&u->ring_lock);
	if (ret)
		return ret;

	for (;;) {
		err = wait ? kevent_wait_ready(u, 1, timeout, deadline) : 0;
		if (err == -EINTR)
			return err;

		mutex_lock(&u->ring_lock);
		for (i = 0; i < num; i++) {
			int r = kevent_deliver_one(u, &ring->event[u->kidx]);

			if (r < 0 && !i)
				ret = r;
			if (r <= 0)
				break;
			if (++u->kidx >= u->ring_size)
				u->kidx = 0;
			u->ring_num++;
		}
		if (i && put_user(u->kidx, &ring->ring_kidx))
			ret = -EFAULT;
		mutex_unlock(&u->ring_lock);

		if (ret < 0 && !i)
			return ret;
		if (i || !wait || err)
			return i;
	}
}

static __poll_t kevent_user_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kevent_user *u = file->private_data;

	poll_wait(file, &u->wait, wait);
	return READ_ONCE(u->ready_num) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int kevent_user_open(struct inode *inode, struct file *file)
{
	struct kevent_user *u = kevent_user_create();

	if (!u)
		return -ENOMEM;
	file->private_data = u;
	return stream_open(inode, file);
}

static int kevent_user_release(struct inode *inode, struct file *file)
{
	kevent_user_destroy(file->private_data);
	file->private_data = NULL;
	return 0;
}

static const struct file_operations kevent_user_fops = {
	.owner		= THIS_MODULE,
	.open		= kevent_user_open,
	.release	= kevent_user_release,
	.poll		= kevent_user_poll,
};

/**
 * is_kevent_file() - whether a file is a kevent queue
 * @file: the file
 *
 * Return: true for an open /dev/kevent (or kevent_user_getfd()) file.
 */
bool is_kevent_file(const struct file *file)
{
	return file->f_op == &kevent_user_fops;
}

static struct miscdevice kevent_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kevent",
	.fops	= &kevent_user_fops,
	.mode	= 0666,
};

/*
 * Resolve a queue fd: -EBADF when it is not open, -EINVAL when it is not a
 * kevent queue.  On success the caller does fdput(*f).
 */
static struct kevent_user *kevent_fdget(int fd, struct fd *f, long *err)
{
	*f = fdget(fd);
	if (!fd_file(*f)) {
		*err = -EBADF;
		return NULL;
	}
	if (!is_kevent_file(fd_file(*f))) {
		fdput(*f);
		*err = -EINVAL;
		return NULL;
	}
	return fd_file(*f)->private_data;
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
 * Return: as kevent_user_get_events(); -EBADF for an fd that is not open,
 * -EINVAL for one that is not a queue or for bad arguments.
 */
long kevent_sys_get_events(int ctl_fd, unsigned int min_nr, unsigned int max_nr,
			   u64 timeout, struct ukevent __user *buf,
			   unsigned int flags)
{
	struct kevent_user *u;
	struct fd f;
	long err;

	u = kevent_fdget(ctl_fd, &f, &err);
	if (!u)
		return err;
	if (flags || !max_nr || min_nr > max_nr)
		err = -EINVAL;
	else
		err = kevent_user_get_events(u, min_nr, max_nr, timeout, buf,
					     kevent_nonblock(f));
	fdput(f);
	return err;
}

/**
 * kevent_sys_ctl() - kevent_ctl(2)
 * @ctl_fd: the queue
 * @cmd: KEVENT_CTL_*
 * @num: number of entries
 * @arg: the entries
 *
 * Return: as kevent_user_ctl(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_ctl(int ctl_fd, unsigned int cmd, unsigned int num,
		    struct ukevent __user *arg)
{
	struct kevent_user *u;
	struct fd f;
	long err;

	u = kevent_fdget(ctl_fd, &f, &err);
	if (!u)
		return err;
	err = kevent_user_ctl(u, cmd, num, arg);
	fdput(f);
	return err;
}

/**
 * kevent_sys_wait() - kevent_wait(2)
 * @ctl_fd: the queue
 * @num: at most this many kevents into the ring
 * @timeout: relative, in nanoseconds
 *
 * Return: as kevent_user_wait(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_wait(int ctl_fd, unsigned int num, u64 timeout)
{
	struct kevent_user *u;
	struct fd f;
	long err;

	u = kevent_fdget(ctl_fd, &f, &err);
	if (!u)
		return err;
	err = kevent_user_wait(u, num, timeout, kevent_nonblock(f));
	fdput(f);
	return err;
}

/**
 * kevent_sys_ring_init() - kevent_ring_init(2)
 * @ctl_fd: the queue
 * @ring: the user's ring
 * @num: its size
 *
 * Return: as kevent_user_ring_init(), or -EBADF/-EINVAL for a bad @ctl_fd.
 */
long kevent_sys_ring_init(int ctl_fd, struct kevent_ring __user *ring,
			  unsigned int num)
{
	struct kevent_user *u;
	struct fd f;
	long err;

	u = kevent_fdget(ctl_fd, &f, &err);
	if (!u)
		return err;
	err = kevent_user_ring_init(u, ring, num);
	fdput(f);
	return err;
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

/**
 * kevent_user_getfd() - a new queue as an fd, as open("/dev/kevent") gives
 * @flags: O_NONBLOCK and O_CLOEXEC are honoured
 *
 * For kernel callers (the KUnit suites), which have no /dev.
 *
 * Return: the fd, or a negative error.
 */
int kevent_user_getfd(int flags)
{
	struct kevent_user *u = kevent_user_create();
	int fd;

	if (!u)
		return -ENOMEM;
	fd = anon_inode_getfd("[kevent]", &kevent_user_fops, u,
			      O_RDWR | (flags & (O_NONBLOCK | O_CLOEXEC)));
	if (fd < 0)
		kevent_user_destroy(u);
	return fd;
}

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

static int __init kevent_user_init(void)
{
	int err;

	/* 4% of low memory, as epoll's max_user_watches. */
	kevent_max_user_kevents = (((totalram_pages() - totalhigh_pages()) / 25)
				   << PAGE_SHIFT) / sizeof(struct kevent);

	kevent_cache = KMEM_CACHE(kevent, SLAB_PANIC | SLAB_ACCOUNT);
	register_sysctl("fs/kevent", kevent_sysctls);

	err = misc_register(&kevent_miscdev);
	if (err) {
		pr_err("kevent: cannot register /dev/kevent: %d\n", err);
		kmem_cache_destroy(kevent_cache);
		return err;
	}
	return 0;
}
fs_initcall(kevent_user_init);
