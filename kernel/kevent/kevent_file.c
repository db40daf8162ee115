// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: origins that are open files (the POLL and SOCKET storages).
 *
 * Objects
 * -------
 * A struct kevent_file is the origin "this open file, watched as this
 * type": it owns the kevent storage that every kevent of that (file, type)
 * attaches to, whichever queue the kevent belongs to, so that one wake-up
 * is one kevent_storage_ready() pass over all of them and
 * KEVENT_REQ_WAKEUP_ONE reaches one queue.  The origins live in a hash
 * table keyed by (file, type).  An origin is created by the first kevent
 * that watches its file, registers one wait entry on each wait queue the
 * file's ->poll names (as epoll does), and is destroyed when its last
 * kevent leaves.
 *
 * Each kevent holds a reference on its file from ADD to removal, and the
 * origin holds one more: closing the watched fd does not end the watch;
 * REMOVE, ONESHOT delivery or closing the queue do.
 *
 * Readiness comes from the wake-up key (the poll mask the waker passes),
 * never from calling ->poll inside the wake-up: that can take locks the
 * waker holds.  A wake-up without a key (sock_def_wakeup() on a TCP FIN or
 * an AF_UNIX peer's close, for instance), and the re-check after MODIFY,
 * schedule the origin's work item instead, which calls ->poll in process
 * context and passes the mask it returns as if a wake-up had brought it.
 * POLLERR and POLLHUP reach every kevent of the origin, whatever its event
 * bits.  A wait queue that goes away before the file (POLLFREE, signalfd)
 * is dropped, as epoll does.
 *
 * Locking
 * -------
 *   u->ctl_mutex -> kevent_files_mutex    the hash table, each origin's
 *                                         users count, creation and
 *                                         destruction
 *   wait queue head lock -> st->lock ...  a wake-up (then the core's chain)
 *
 * ->enqueue and ->dequeue run under the queue's ctl_mutex and take
 * kevent_files_mutex; ->poll is called with that mutex held (never from a
 * wake-up).  The work item takes no mutex, so destruction may wait for it.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/kevent.h>
#include "kevent_file.h"

#define KEVENT_FILE_HASH_BITS	10

struct kevent_file {
	struct kevent_storage		st;
	struct hlist_node		hnode;
	struct file			*file;
	u32				type;
	unsigned int			users;
	const struct kevent_file_ops	*ops;
	poll_table			pt;
	struct list_head		pwqs;
	int				pt_err;
	struct work_struct		work;
};

/* One wait entry on one of the file's wait queues. */
struct kevent_pwq {
	wait_queue_entry_t	wait;
	wait_queue_head_t	*whead;
	struct kevent_file	*kf;
	struct list_head	link;
};

static DEFINE_MUTEX(kevent_files_mutex);
static DEFINE_HASHTABLE(kevent_files, KEVENT_FILE_HASH_BITS);

static unsigned long kevent_file_key(struct file *file, u32 type)
{
	return (unsigned long)file ^ type;
}

/* Pass @mask to the origin's kevents.  Atomic context. */
static void kevent_file_notify(struct kevent_file *kf, __poll_t mask)
{
	u32 event = kf->ops->event(mask);

	if (mask & (EPOLLERR | EPOLLHUP))
		event = KEVENT_MASK_ALL;
	if (event)
		kevent_storage_ready_data(&kf->st, event,
					  (__force unsigned long)mask);
}

static void kevent_file_work(struct work_struct *work)
{
	struct kevent_file *kf = container_of(work, struct kevent_file, work);

	kevent_file_notify(kf, vfs_poll(kf->file, NULL));
}

static int kevent_file_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct kevent_pwq *pwq = container_of(wait, struct kevent_pwq, wait);
	__poll_t mask = key_to_poll(key);

	if (!mask) {
		queue_work(system_wq, &pwq->kf->work);
		return 0;
	}
	kevent_file_notify(pwq->kf, mask & ~POLLFREE);
	if (mask & POLLFREE) {
		/* The head is being freed (its hang-up is passed on above). */
		list_del_init(&wait->entry);
		/* Pairs with the acquire in kevent_file_destroy(). */
		smp_store_release(&pwq->whead, NULL);
	}
	return 0;
}

static void kevent_file_queue_proc(struct file *file, wait_queue_head_t *whead,
				   poll_table *pt)
{
	struct kevent_file *kf = container_of(pt, struct kevent_file, pt);
	struct kevent_pwq *pwq;

	pwq = kzalloc(sizeof(*pwq), KEVENT_GFP);
	if (!pwq) {
		kf->pt_err = -ENOMEM;
		return;
	}
	init_waitqueue_func_entry(&pwq->wait, kevent_file_wake);
	pwq->whead = whead;
	pwq->kf = kf;
	list_add_tail(&pwq->link, &kf->pwqs);
	add_wait_queue(whead, &pwq->wait);
}

/* Called with kevent_files_mutex held and no kevent attached. */
static void kevent_file_destroy(struct kevent_file *kf)
{
	struct kevent_pwq *pwq, *n;

	lockdep_assert_held(&kevent_files_mutex);
	hash_del(&kf->hnode);
	list_for_each_entry_safe(pwq, n, &kf->pwqs, link) {
		wait_queue_head_t *whead;

		/* A POLLFREE head may be going: RCU keeps it until we look. */
		rcu_read_lock();
		/* Pairs with the release in kevent_file_wake(). */
		whead = smp_load_acquire(&pwq->whead);
		if (whead)
			remove_wait_queue(whead, &pwq->wait);
		rcu_read_unlock();
		list_del(&pwq->link);
		kfree(pwq);
	}
	/* No wake-up and no kevent can queue the work any more. */
	cancel_work_sync(&kf->work);
	fput(kf->file);
	kfree(kf);
}

static struct kevent_file *kevent_file_get(struct file *file, u32 type,
					   const struct kevent_file_ops *ops)
{
	unsigned long key = kevent_file_key(file, type);
	struct kevent_file *kf;

	lockdep_assert_held(&kevent_files_mutex);
	hash_for_each_possible(kevent_files, kf, hnode, key)
		if (kf->file == file && kf->type == type)
			return kf;

	kf = kzalloc(sizeof(*kf), KEVENT_GFP);
	if (!kf)
		return ERR_PTR(-ENOMEM);
	kevent_storage_init(file, &kf->st);
	kf->file = get_file(file);
	kf->type = type;
	kf->ops = ops;
	INIT_LIST_HEAD(&kf->pwqs);
	INIT_WORK(&kf->work, kevent_file_work);
	hash_add(kevent_files, &kf->hnode, key);

	init_poll_funcptr(&kf->pt, kevent_file_queue_proc);
	vfs_poll(file, &kf->pt);
	if (kf->pt_err) {
		int err = kf->pt_err;

		kevent_file_destroy(kf);
		return ERR_PTR(err);
	}
	return kf;
}

/**
 * kevent_file_enqueue() - the ->enqueue of a file storage
 * @k: the kevent (type KEVENT_POLL or KEVENT_SOCKET); id.raw[0] is the fd
 * @ops: the storage's file check, event mapping and readiness
 *
 * @k pins the file until kevent_file_dequeue().  Once @k is attached, the
 * file's ->poll says whether it is ready at once (the core then detaches
 * it) or already broken (detached here: the entry fails with the error).
 *
 * Return: 0 attached, 1 ready at once; -EBADF for an fd that is not open,
 * -EPERM for a file without ->poll, -EINVAL for a kevent queue, the check's
 * or ->ready's error, or -ENOMEM.
 */
int kevent_file_enqueue(struct kevent *k, const struct kevent_file_ops *ops)
{
	struct kevent_file *kf;
	struct file *file;
	int err;

	file = fget(k->event.id.raw[0]);
	if (!file)
		return -EBADF;
	err = -EPERM;
	if (!file_can_poll(file))
		goto out_fput;
	/* A queue watching a queue would wake itself under its own lock. */
	err = -EINVAL;
	if (is_kevent_file(file))
		goto out_fput;
	if (ops->check) {
		err = ops->check(file);
		if (err)
			goto out_fput;
	}

	mutex_lock(&kevent_files_mutex);
	kf = kevent_file_get(file, k->event.type, ops);
	if (IS_ERR(kf)) {
		mutex_unlock(&kevent_files_mutex);
		err = PTR_ERR(kf);
		goto out_fput;
	}
	kf->users++;
	k->priv = kf;
	kevent_storage_enqueue(&kf->st, k);
	mutex_unlock(&kevent_files_mutex);

	/* Attached first, so a wake-up from now on is not missed. */
	err = ops->ready(k, file, vfs_poll(file, NULL));
	if (err < 0) {
		err = (s32)k->event.ret_data[1];
		kevent_file_dequeue(k);
	}
	return err;

out_fput:
	fput(file);
	return err;
}

/**
 * kevent_file_dequeue() - detach a kevent and unpin its file
 * @k: the kevent
 *
 * The origin goes with its last kevent.  May sleep.
 *
 * Return: 0.
 */
int kevent_file_dequeue(struct kevent *k)
{
	struct kevent_file *kf = k->priv;
	struct file *file = kf->file;

	mutex_lock(&kevent_files_mutex);
	kevent_storage_dequeue(&kf->st, k);
	if (!--kf->users)
		kevent_file_destroy(kf);
	mutex_unlock(&kevent_files_mutex);
	fput(file);
	return 0;
}

/**
 * kevent_file_callback() - the ->callback of a file storage
 * @k: a kevent attached to its origin; called under the storage lock
 *
 * During a notification, the storage's ->ready judges the wake-up's mask.
 * For the core's re-check after MODIFY (no notification in progress),
 * ->poll runs from the origin's work item instead, and the mask it
 * returns is passed to every kevent of the origin, as a wake-up would be.
 *
 * Return: as ->ready; 0 for a re-check.
 */
int kevent_file_callback(struct kevent *k)
{
	struct kevent_file *kf = k->priv;

	if (!kf->st.event) {
		queue_work(system_wq, &kf->work);
		return 0;
	}
	return kf->ops->ready(k, kf->file, (__force __poll_t)kf->st.data);
}
