/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent: the storage API, private to kernel/kevent/.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 *
 * What a storage type (an origin of events: a timer, a watched file)
 * uses to register its callbacks and to notify its kevents: the kevent
 * and the storage objects, the callbacks, and the functions of kevent.c
 * that take them.  The rest of the kernel sees only <linux/kevent.h>,
 * the hook __fput() calls; the queue and the core's own functions are in
 * kevent_internal.h.  The objects, their lifetimes and the lock order are
 * described at the top of kevent.c.
 */
#ifndef _KEVENT_STORAGE_H
#define _KEVENT_STORAGE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/refcount.h>
#include <linux/gfp.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kevent.h>
#include <uapi/linux/ukevent.h>

/**
 * struct kevent_storage - the kevents watching one origin
 * @lock: protects @list and the attachment of each kevent on it; the
 *        readiness callbacks of the kevents run under it.
 * @event: the event bits of the notification being passed to the callbacks
 *         (kevent_storage_ready()); 0 while the core re-checks one kevent
 *         on its own (after MODIFY).  Read by ->callback under @lock.
 * @data: the storage's own word for that notification (e.g. the poll mask
 *        of a wake-up), from kevent_storage_ready_data(); 0 otherwise.
 * @list: the kevents attached to this origin, linked by storage_entry.
 * @origin: the object the events come from (a timer, a file, a socket).
 * @dead: kevent_storage_fini() ran: the origin is gone, no kevent attaches
 *        any more.  Protected by @lock.
 *
 * A notification reads and writes the first 32 bytes (@lock to @list).
 */
struct kevent_storage {
	spinlock_t		lock;
	u32			event;
	unsigned long		data;
	struct list_head	list;
	void			*origin;
	bool			dead;
};

/*
 * Allocations made for user requests: charged to the caller's memory
 * cgroup, and allowed to fail (-ENOMEM for that entry) instead of invoking
 * the OOM killer when the group is at its limit.
 */
#define KEVENT_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Type slots: the KEVENT_* types of the ABI, and one for kernel callers. */
#define KEVENT_NR_TYPES		(KEVENT_MAX + 1)

struct kevent;
struct kevent_queue;
struct file;

/*
 * ->callback: called under the storage lock and the queue's ready lock, in
 *             atomic context; must not sleep, and is brief: the ready
 *             lock is the whole queue's.  Returns KEVENT_READY,
 *             KEVENT_NOT_READY, KEVENT_RECHECK (it cannot tell in atomic
 *             context: the core queues the kevent and ->deliver looks
 *             again in the collecting task) or -errno when broken
 *             (ret_data[1] is then the storage's to set).
 * ->enqueue:  attaches the kevent to its origin (kevent_storage_enqueue())
 *             and takes what it needs to hold on the origin.  Returns <0
 *             error (nothing attached, nothing held), 0 queued, >0
 *             answered at once (attached; ready or broken, see the
 *             kevent's ret_flags; the core detaches it).  May sleep.
 * ->dequeue:  detaches the kevent and drops what ->enqueue took.  Called
 *             exactly once for every kevent ->enqueue attached, also after
 *             kevent_storage_fini() broke it.  May sleep.
 * ->deliver:  optional; called in the task that collects the kevent, after
 *             it left the ready list and before its ukevent is copied,
 *             under the queue's ctl_mutex and no spinlock; may sleep.
 *             Brings the results up to date (the timer counts missed
 *             periods and re-arms; the file storages re-check their
 *             origin after a key-less wake-up).  Returns >0 to deliver the
 *             kevent, 0 when it turned out not to be ready.
 * @events:    the event bits the storage can report; ADD and MODIFY refuse
 *             a mask with none of them (-EINVAL): such a kevent could never
 *             be delivered.
 * @deliver_on_recheck: ->deliver has nothing to do unless the kevent was
 *             queued for a re-check (kevent_take_recheck() would say
 *             true): the core calls it only then.
 * @counts:    ret_data[0] is a count (the timer's expirations), not a
 *             mask: a delivery given back after a fault adds it to what
 *             arrived meanwhile, saturating at U32_MAX, instead of OR-ing.
 */
typedef int (*kevent_callback_t)(struct kevent *k);

enum {
	KEVENT_NOT_READY	= 0,
	KEVENT_READY		= 1,
	KEVENT_RECHECK		= 2,
};

struct kevent_callbacks {
	kevent_callback_t	callback, enqueue, dequeue, deliver;
	u32			events;
	bool			deliver_on_recheck;
	bool			counts;
};

/**
 * struct kevent - one event of interest in one queue
 * @event: the request and its results, protected by the queue's
 *         ready_lock, which nests inside the storage lock.  The request
 *         (@event.event, @event.req_flags) is changed under both locks,
 *         so a notification reads it under the storage lock alone.
 * @refcnt: one for the queue's tree, one per delivery in progress that
 *          dropped the queue's ctl_mutex or removes the kevent.
 * @kevent_node: entry in the queue's tree, keyed by (type, id).
 * @storage_entry: entry in @st->list while @on_storage.
 * @ready_entry: entry in the queue's ready list while @on_ready.
 * @on_storage: attached to @st; protected by @st->lock.
 * @on_ready: on the ready list; protected by the queue's ready_lock.
 * @dead: removed from the queue, never to be readied again; ready_lock.
 * @in_tree: in the queue's tree; protected by the queue's ctl_mutex.
 * @recheck: queued by a notification that could not tell readiness
 *           (KEVENT_RECHECK); ->deliver looks again.  ready_lock.
 * @pass: the queue's pass number when the kevent was last put on the
 *        ready list, or, when a faulted delivery gave it back, the pass
 *        that took it; ready_lock.  A collection takes only the kevents
 *        queued before it began (one call, one pass).
 * @gen: bumped by MODIFY, so a delivery in flight knows its snapshot is
 *       stale; ready_lock (and changed under ctl_mutex).
 * @queue: the queue.
 * @st: the storage, set by kevent_storage_enqueue(); valid until
 *      ->dequeue returns, even after kevent_storage_fini().
 * @callbacks: the type's callbacks.
 * @priv: the storage's private data.
 *
 * Laid out for the notification, which touches two cache lines of a
 * kevent, as epoll's touches two of its own (an eppoll_entry and an
 * epitem): the first holds @event and the state bits, the second what
 * the storage walk and the ready list use (@storage_entry, @ready_entry,
 * @pass, @queue, @priv and, first in @callbacks, ->callback).  The tree
 * node and the rest of the callbacks, and @st, for system calls, are in
 * the third.  The objects are aligned
 * to 64 bytes (the lines of the machines this is tuned for; on wider
 * lines two of them share one), 192 bytes without lock debugging
 * (asserted in kevent.c).  @pass comes before @queue so that a freed
 * kevent's allocator free pointer, in the middle of the object, lands on
 * it rather than on the queue pointer: a use after free then queues on
 * the right queue (which a test sees) instead of following garbage.
 */
struct kevent {
	struct ukevent		event;
	bool			on_storage;
	bool			on_ready;
	bool			dead;
	bool			recheck;
	unsigned int		gen;
	refcount_t		refcnt;
	bool			in_tree;

	struct list_head	storage_entry __aligned(64);
	struct list_head	ready_entry;
	u64			pass;
	struct kevent_queue	*queue;
	void			*priv;
	struct kevent_callbacks	callbacks;

	struct rb_node		kevent_node;
	struct kevent_storage	*st;
};

/* The storage API (kevent.c): what a storage type uses. */
int kevent_add_callbacks(const struct kevent_callbacks *cb, int pos);
void kevent_remove_callbacks(int pos);
int kevent_break(struct kevent *k);
bool __kevent_take_recheck(struct kevent *k);
void kevent_storage_ready(struct kevent_storage *st,
			  kevent_callback_t ready_callback, u32 event);
void kevent_storage_ready_data(struct kevent_storage *st, u32 event,
			       unsigned long data);
void kevent_storage_broadcast(struct kevent_storage *st, u32 event,
			      unsigned long data);
int kevent_storage_check(struct kevent_storage *st, struct kevent *k,
			 u32 event, unsigned long data);
void kevent_storage_init(void *origin, struct kevent_storage *st);
void kevent_storage_fini(struct kevent_storage *st, int err);
int kevent_storage_enqueue(struct kevent_storage *st, struct kevent *k);
void kevent_storage_dequeue(struct kevent_storage *st, struct kevent *k);

/**
 * kevent_take_recheck() - whether a kevent was queued for a re-check
 * @k: the kevent
 *
 * For ->deliver: true (once) when a notification answered KEVENT_RECHECK
 * since the kevent was last delivered, or MODIFY asked for a re-check.
 * Inline, without a lock, for the common answer: most deliveries have
 * nothing to re-check.  A notification that sets the flag after this
 * read also queues the kevent again, so the re-check comes with that
 * delivery.
 *
 * Return: true when the storage must look at its origin again.
 */
static inline bool kevent_take_recheck(struct kevent *k)
{
	if (!READ_ONCE(k->recheck))
		return false;
	return __kevent_take_recheck(k);
}

#endif /* _KEVENT_STORAGE_H */
