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
 * KEVENT_REQ_WAKEUP_ONE reaches one queue.  The file lists its origins in
 * file->f_kevent (at most one live origin per type).  An origin is created
 * by the first kevent that watches its file, registers one wait entry on
 * each wait queue the file's ->poll names (as epoll does), and is unhooked
 * from the file when its last kevent leaves or when the file is released.
 *
 * Files are not pinned: an origin holds no reference on its file, so
 * closing one of several fds of a file changes nothing, and when the last
 * reference goes, __fput() calls kevent_file_release_file() (as it calls
 * eventpoll_release()), which unhooks every origin of the file and breaks
 * their kevents (kevent_storage_fini(): BROKEN|DONE, ret_data[1] =
 * -EBADF, queued).  A queue can therefore watch a socket that carries the
 * queue's own fd without pinning either.
 *
 * Kevent queues and epoll instances are refused (-EINVAL): their wake-ups
 * could come back into a kevent queue, through each other without bound.
 *
 * Readiness comes from the wake-up key (the poll mask the waker passes),
 * never from calling ->poll inside the wake-up: that can take locks the
 * waker holds.  A wake-up without a key (signalfd, sock_def_wakeup() on a
 * TCP FIN) answers KEVENT_RECHECK: the kevent is queued, and at delivery
 * ->deliver calls ->poll for that kevent alone, in the collecting task
 * (whose signals signalfd reports), as epoll's ep_send_events() does; not
 * ready then, it is not delivered.  MODIFY's re-check goes the same way.
 * POLLERR and POLLHUP reach every kevent of the origin, whatever its event
 * bits, and so does a wake-up without a key: KEVENT_REQ_WAKEUP_ONE limits
 * edges, not states (kevent_storage_broadcast()).  An id's raw[1] must be
 * 0: one fd is one key.  A wait queue that goes away before the file (POLLFREE: signalfd)
 * is dropped as epoll drops it; its origin then takes no new kevents, and
 * a later ADD of the file builds a fresh one.
 *
 * Lifetimes
 * ---------
 * kf->ref counts the file's list (while hooked), each attached kevent
 * (from ->enqueue to ->dequeue) and short-lived lookups; the last put
 * frees the origin.  While an origin is on file->f_kevent its file is
 * alive: the release hook does not return before it has taken each origin
 * off the list under kf->mtx, so whoever holds kf->mtx and finds kf->file
 * set may take a reference on the file (atomic_long_inc_not_zero(): 0 once
 * its release has begun).  Unhooking holds such a reference, or is the
 * release itself: the moment the origin leaves the list the release may
 * go on and free the file, so the unhooker must still own it, as epoll's
 * ep_remove() does with epi_fget().
 *
 * Locking
 * -------
 *   q->ctl_mutex -> kf->mtx -> file->f_lock   an origin's hooks, users,
 *                                             and the file's list
 *   wait-queue head lock -> st->lock ...      a wake-up (then the core's
 *                                             chain)
 *
 * kf->mtx is per origin: a file whose ->poll sleeps holds up only the
 * kevents watching that file.  ->poll is never called under it, nor under
 * any lock shared between queues: at ADD under the adding queue's
 * ctl_mutex, at a re-check under the collecting queue's, holding a
 * reference on the file taken under kf->mtx.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/eventpoll.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include "kevent_internal.h"
#include "kevent_file.h"

/* &kevent_storage.data of a wake-up that carried no poll mask. */
#define KEVENT_FILE_NOKEY	ULONG_MAX

/* A wait entry on the file's second or a later wait queue. */
struct kevent_pwq {
	wait_queue_entry_t	wait;
	struct kevent_file	*kf;
	wait_queue_head_t	*whead;
	struct list_head	link;
};

/**
 * struct kevent_file - a file watched as one type
 * @wait: the wait entry on the file's first wait queue (most files have
 *        one; the entries on the others are allocated, @pwqs); its
 *        ->private holds the storage's ops (see below); its ->func is
 *        NULL while it is not on a queue
 * @st: the storage the kevents attach to
 * @whead: the wait queue of @wait; NULL when it went away (POLLFREE)
 * @file: the file, not pinned; NULL once unhooked; @mtx
 * @stale: a wait queue went away (POLLFREE): no new kevents attach
 * @type: KEVENT_POLL or KEVENT_SOCKET
 * @ref: see "Lifetimes" above
 * @users: kevents attached by ->enqueue, not yet dequeued; @mtx
 * @node: on @file->f_kevent, under @file->f_lock, while hooked
 * @mtx: serialises hooking, unhooking and @users
 * @pt: the poll table that registers the wait entries
 * @pwqs: the allocated wait entries
 * @pt_err: -ENOMEM when a wait entry could not be allocated
 *
 * A wake-up on the first wait queue reads one cache line of the origin
 * (without lock debugging): @wait, which the waker reads first, the
 * storage's ops (the storage's file check, event mapping and readiness)
 * in @wait.private, and the storage's lock, event, data and list head,
 * 64 bytes from the start of the kmalloc-256 object.  The rest is for
 * hooking, lookups and lifetimes.
 */
struct kevent_file {
	wait_queue_entry_t		wait;
	struct kevent_storage		st;
	wait_queue_head_t		*whead;
	struct file			*file;
	bool				stale;
	u32				type;
	refcount_t			ref;
	unsigned int			users;
	struct hlist_node		node;
	struct mutex			mtx;
	poll_table			pt;
	struct list_head		pwqs;
	int				pt_err;
};

static const struct kevent_file_ops *kevent_file_ops(struct kevent_file *kf)
{
	return kf->wait.private;
}

static void kevent_file_put(struct kevent_file *kf)
{
	if (refcount_dec_and_test(&kf->ref))
		kfree(kf);
}

/* Pass @mask to the origin's kevents.  Atomic context. */
static __always_inline void kevent_file_notify(struct kevent_file *kf,
					       __poll_t mask)
{
	const struct kevent_file_ops *ops = kevent_file_ops(kf);
	u32 event = ops->event ? ops->event(mask) : (__force u32)mask;

	if (mask & (EPOLLERR | EPOLLHUP)) {
		/* A state, not an edge: past WAKEUP_ONE, to every kevent. */
		kevent_storage_broadcast(&kf->st, KEVENT_MASK_ALL,
					 (__force unsigned long)mask);
		return;
	}
	if (event)
		kevent_storage_ready_data(&kf->st, event,
					  (__force unsigned long)mask);
}

/*
 * A wake-up of @wait, an entry of @kf on the wait queue *@whead.  Inline
 * in both wake functions: it is the whole of a wake-up's way to the core.
 */
static __always_inline int
kevent_file_woken(struct kevent_file *kf, wait_queue_entry_t *wait,
		  wait_queue_head_t **whead, void *key)
{
	__poll_t mask = key_to_poll(key);

	if (!mask) {
		/*
		 * No key: every kevent is re-checked where it is collected,
		 * WAKEUP_ONE ones too, since this may be a hang-up
		 * (sock_def_wakeup()) that nothing will report again.
		 */
		kevent_storage_broadcast(&kf->st, KEVENT_MASK_ALL,
					 KEVENT_FILE_NOKEY);
		return 0;
	}
	kevent_file_notify(kf, mask & ~POLLFREE);
	if (mask & POLLFREE) {
		/* The head is being freed (its hang-up is passed on above). */
		WRITE_ONCE(kf->stale, true);
		list_del_init(&wait->entry);
		/* Pairs with the acquire in kevent_file_unhook_wait(). */
		smp_store_release(whead, NULL);
	}
	return 0;
}

/* The wake function of the embedded entry. */
static int kevent_file_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct kevent_file *kf = container_of(wait, struct kevent_file, wait);

	return kevent_file_woken(kf, wait, &kf->whead, key);
}

/* The wake function of an allocated entry. */
static int kevent_file_wake_pwq(wait_queue_entry_t *wait, unsigned int mode,
				int sync, void *key)
{
	struct kevent_pwq *pwq = container_of(wait, struct kevent_pwq, wait);

	return kevent_file_woken(pwq->kf, wait, &pwq->whead, key);
}

static void kevent_file_queue_proc(struct file *file, wait_queue_head_t *whead,
				   poll_table *pt)
{
	struct kevent_file *kf = container_of(pt, struct kevent_file, pt);
	const struct kevent_file_ops *ops = kevent_file_ops(kf);
	struct kevent_pwq *pwq;

	/* The first wait queue gets the embedded entry. */
	if (!kf->wait.func) {
		init_waitqueue_func_entry(&kf->wait, kevent_file_wake);
		kf->wait.private = (void *)ops;
		kf->whead = whead;
		add_wait_queue(whead, &kf->wait);
		return;
	}
	pwq = kzalloc(sizeof(*pwq), KEVENT_GFP);
	if (!pwq) {
		kf->pt_err = -ENOMEM;
		return;
	}
	init_waitqueue_func_entry(&pwq->wait, kevent_file_wake_pwq);
	pwq->whead = whead;
	pwq->kf = kf;
	list_add_tail(&pwq->link, &kf->pwqs);
	add_wait_queue(whead, &pwq->wait);
}

/* Take @wait off its wait queue *@whead, unless POLLFREE took it off. */
static void kevent_file_unhook_wait(wait_queue_entry_t *wait,
				    wait_queue_head_t **whead)
{
	wait_queue_head_t *head;

	/* A POLLFREE head may be going: RCU keeps it until we look. */
	rcu_read_lock();
	/* Pairs with the release in kevent_file_woken(). */
	head = smp_load_acquire(whead);
	if (head)
		remove_wait_queue(head, wait);
	rcu_read_unlock();
}

/*
 * Remove the wait entries; the file is alive.  No wake-up runs after.
 * The embedded entry goes with @kf, the others are freed here.
 */
static void kevent_file_unhook_waits(struct kevent_file *kf)
{
	struct kevent_pwq *pwq, *n;

	if (kf->wait.func)
		kevent_file_unhook_wait(&kf->wait, &kf->whead);
	list_for_each_entry_safe(pwq, n, &kf->pwqs, link) {
		kevent_file_unhook_wait(&pwq->wait, &pwq->whead);
		list_del(&pwq->link);
		kfree(pwq);
	}
}

/*
 * Unhook a hooked origin from its file: no wake-up reaches it any more and
 * the file forgets it.  Called with kf->mtx held and kf->file set, and the
 * file held by the caller (a reference, or its own release in progress).
 */
static void kevent_file_unhook(struct kevent_file *kf)
{
	struct file *file = kf->file;

	lockdep_assert_held(&kf->mtx);
	kevent_file_unhook_waits(kf);
	spin_lock(&file->f_lock);
	hlist_del_init(&kf->node);
	spin_unlock(&file->f_lock);
	WRITE_ONCE(kf->file, NULL);
	/* The list's reference; the caller holds another. */
	refcount_dec(&kf->ref);
}

/* A new origin for @file (held by the caller), hooked, not yet listed. */
static struct kevent_file *kevent_file_create(struct file *file, u32 type,
					      const struct kevent_file_ops *ops)
{
	struct kevent_file *kf;

	kf = kzalloc(sizeof(*kf), KEVENT_GFP);
	if (!kf)
		return ERR_PTR(-ENOMEM);
	kevent_storage_init(file, &kf->st);
	INIT_HLIST_NODE(&kf->node);
	kf->file = file;
	kf->type = type;
	refcount_set(&kf->ref, 1);
	mutex_init(&kf->mtx);
	/* Also for a file with no wait queue: the callbacks read them. */
	kf->wait.private = (void *)ops;
	INIT_LIST_HEAD(&kf->pwqs);

	init_poll_funcptr(&kf->pt, kevent_file_queue_proc);
	vfs_poll(file, &kf->pt);
	if (kf->pt_err) {
		int err = kf->pt_err;

		kevent_file_unhook_waits(kf);
		kfree(kf);
		return ERR_PTR(err);
	}
	return kf;
}

/* The live origin of (@file, @type), with a reference, or NULL. */
static struct kevent_file *kevent_file_find(struct file *file, u32 type)
{
	struct kevent_file *kf;

	lockdep_assert_held(&file->f_lock);
	hlist_for_each_entry(kf, &file->f_kevent, node)
		if (kf->type == type && !READ_ONCE(kf->stale)) {
			refcount_inc(&kf->ref);
			return kf;
		}
	return NULL;
}

/*
 * The origin of (@file, @type), created when there is none, returned with
 * a reference and kf->mtx held, hooked.  The caller holds @file.
 */
static struct kevent_file *kevent_file_get(struct file *file, u32 type,
					   const struct kevent_file_ops *ops)
{
	struct kevent_file *kf, *new = NULL;

	for (;;) {
		spin_lock(&file->f_lock);
		kf = kevent_file_find(file, type);
		if (!kf && new) {
			hlist_add_head(&new->node, &file->f_kevent);
			kf = new;
			refcount_inc(&kf->ref);
			new = NULL;
		}
		spin_unlock(&file->f_lock);
		if (new) {
			/* Another ADD listed an origin first: use that one. */
			kevent_file_unhook_waits(new);
			kfree(new);
			new = NULL;
		}
		if (kf) {
			mutex_lock(&kf->mtx);
			if (kf->file)
				return kf;
			/* Its last kevent unhooked it meanwhile. */
			mutex_unlock(&kf->mtx);
			kevent_file_put(kf);
			continue;
		}
		new = kevent_file_create(file, type, ops);
		if (IS_ERR(new))
			return new;
	}
}

/* The ops of each file storage type, set once at its registration. */
static const struct kevent_file_ops *kevent_file_types[KEVENT_NR_TYPES] __ro_after_init;

/**
 * kevent_file_enqueue() - the ->enqueue of a file storage
 * @k: the kevent (type KEVENT_POLL or KEVENT_SOCKET); id.raw[0] is the fd
 *
 * The file is not pinned.  Once @k is attached, the file's ->poll says
 * whether it is ready at once or already broken; the core then reports it
 * from kevent_ctl() and detaches it.
 *
 * Return: 0 attached, 1 answered at once (ready or broken); -EBADF for an
 * fd that is not open, -EPERM for a file without ->poll, -EINVAL for an
 * id.raw[1] other than 0, a kevent queue or an epoll instance, the
 * check's error, or -ENOMEM.
 */
int kevent_file_enqueue(struct kevent *k)
{
	const struct kevent_file_ops *ops = kevent_file_types[k->event.type];
	struct kevent_file *kf;
	struct file *file;
	__poll_t mask;
	int err;

	/*
	 * One fd, one key: a queue cannot hang kevents without number on
	 * one file (a world-readable FIFO) that every user's wake-up walks.
	 */
	if (k->event.id.raw[1])
		return -EINVAL;
	file = fget(k->event.id.raw[0]);
	if (!file)
		return -EBADF;
	err = -EPERM;
	if (!file_can_poll(file))
		goto out;
	/* Their wake-ups could come back into this queue. */
	err = -EINVAL;
	if (is_kevent_file(file) || file_is_epoll(file))
		goto out;
	if (ops->check) {
		err = ops->check(file);
		if (err)
			goto out;
	}

	kf = kevent_file_get(file, k->event.type, ops);
	if (IS_ERR(kf)) {
		err = PTR_ERR(kf);
		goto out;
	}
	/*
	 * The callbacks find the origin in k->priv as soon as @k is on the
	 * storage: a wake-up may come at the unlock that attaches it.  Not
	 * dead: its file is alive, held here.
	 */
	k->priv = kf;
	err = kevent_storage_enqueue(&kf->st, k);
	if (!err)
		kf->users++;
	mutex_unlock(&kf->mtx);
	if (err) {
		kevent_file_put(kf);
		goto out;
	}

	/* Attached first, so a wake-up from now on is not missed. */
	mask = vfs_poll(file, NULL);
	err = kevent_storage_check(&kf->st, k, KEVENT_MASK_ALL,
				   (__force unsigned long)mask) ? 1 : 0;
out:
	fput(file);
	return err;
}

/**
 * kevent_file_dequeue() - the ->dequeue of a file storage
 * @k: the kevent
 *
 * The origin is unhooked with its last kevent.  May sleep.
 *
 * Return: 0.
 */
int kevent_file_dequeue(struct kevent *k)
{
	struct kevent_file *kf = k->priv;
	struct file *file = NULL;

	kevent_storage_dequeue(&kf->st, k);
	mutex_lock(&kf->mtx);
	/*
	 * The last kevent unhooks the origin, holding the file meanwhile: once
	 * the origin leaves file->f_kevent, the file's release no longer
	 * waits for us, and may free the file under our spin_unlock().  A
	 * file whose release has begun is left to that release.
	 */
	if (!--kf->users && kf->file &&
	    atomic_long_inc_not_zero(&kf->file->f_count)) {
		file = kf->file;
		kevent_file_unhook(kf);
	}
	mutex_unlock(&kf->mtx);
	if (file)
		fput(file);
	kevent_file_put(kf);
	return 0;
}

/**
 * kevent_file_callback() - the ->callback of a file storage
 * @k: a kevent attached to its origin; called under the storage lock
 *
 * A notification with a poll mask is judged by the storage's ->ready.
 * One without (a key-less wake-up, MODIFY's re-check) cannot call ->poll
 * here: the kevent is queued for kevent_file_deliver() to look.
 *
 * Return: as ->ready, or KEVENT_RECHECK.
 */
int kevent_file_callback(struct kevent *k)
{
	struct kevent_file *kf = k->priv;

	if (!kf->st.event || kf->st.data == KEVENT_FILE_NOKEY)
		return KEVENT_RECHECK;
	return kevent_file_ops(kf)->ready(k, (__force __poll_t)kf->st.data);
}

/**
 * kevent_file_of() - the file a kevent of a file storage watches
 * @k: the kevent, in its storage's ->ready (the file is hooked, so alive)
 *
 * Return: the file.
 */
struct file *kevent_file_of(struct kevent *k)
{
	struct kevent_file *kf = k->priv;

	return kf->file;
}

/**
 * kevent_file_deliver() - the ->deliver of a file storage
 * @k: a kevent taken off the ready list, under its queue's ctl_mutex
 *
 * A kevent queued for a re-check is judged now, by ->poll in the
 * collecting task, for it alone.
 *
 * Return: 1 to deliver, 0 when it is not ready (or its file is closing:
 * the release breaks and queues it).
 */
int kevent_file_deliver(struct kevent *k)
{
	struct kevent_file *kf = k->priv;
	struct file *file;
	__poll_t mask;
	int ret;

	if (!kevent_take_recheck(k))
		return 1;
	mutex_lock(&kf->mtx);
	file = kf->file;
	/* Alive while listed; its count is 0 once its release has begun. */
	if (file && !atomic_long_inc_not_zero(&file->f_count))
		file = NULL;
	mutex_unlock(&kf->mtx);
	if (!file)
		return 0;
	mask = vfs_poll(file, NULL);
	ret = kevent_storage_check(&kf->st, k, KEVENT_MASK_ALL,
				   (__force unsigned long)mask);
	fput(file);
	return ret != 0;
}

/**
 * kevent_file_release_file() - a watched file's last reference is gone
 * @file: the file, in __fput()
 *
 * Every origin of @file is unhooked and its kevents are broken
 * (BROKEN|DONE, ret_data[1] = -EBADF) and queued; they are removed as
 * usual (delivery, REMOVE, close).
 */
void kevent_file_release_file(struct file *file)
{
	struct kevent_file *kf;

	for (;;) {
		spin_lock(&file->f_lock);
		kf = hlist_entry_safe(file->f_kevent.first, struct kevent_file,
				      node);
		if (kf)
			refcount_inc(&kf->ref);
		spin_unlock(&file->f_lock);
		if (!kf)
			break;
		mutex_lock(&kf->mtx);
		if (kf->file) {
			kevent_file_unhook(kf);
			kevent_storage_fini(&kf->st, -EBADF);
		}
		mutex_unlock(&kf->mtx);
		kevent_file_put(kf);
	}
}

/**
 * kevent_file_register() - register a storage whose origins are files
 * @type: the kevent type, below KEVENT_NR_TYPES
 * @ops: its file check, event mapping, readiness and event bits
 *
 * The storage shares this file's callbacks; only @ops tell it apart.
 * Called from initcalls only: the table of ops is read-only after boot.
 *
 * Return: 0, or -EINVAL for a type out of range.
 */
int __init kevent_file_register(int type, const struct kevent_file_ops *ops)
{
	struct kevent_callbacks cb = {
		.callback	= kevent_file_callback,
		.enqueue	= kevent_file_enqueue,
		.dequeue	= kevent_file_dequeue,
		.deliver	= kevent_file_deliver,
		.events		= ops->events,
		.deliver_on_recheck = true,
	};

	if (type < 0 || type >= KEVENT_NR_TYPES)
		return -EINVAL;
	kevent_file_types[type] = ops;
	return kevent_add_callbacks(&cb, type);
}
