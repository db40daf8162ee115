/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent: the unified kernel event queue, kernel side.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 *
 * The objects, their lifetimes and the lock order are described at the top
 * of kernel/kevent/kevent.c.
 */
#ifndef _LINUX_KEVENT_H
#define _LINUX_KEVENT_H

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
#include <linux/kevent_storage.h>
#include <uapi/linux/ukevent.h>

/*
 * Allocations made for user requests: charged to the caller's memory
 * cgroup, and allowed to fail (-ENOMEM for that entry) instead of invoking
 * the OOM killer when the group is at its limit.
 */
#define KEVENT_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* The seed's threshold between copying entries one by one and in a batch. */
#define KEVENT_MIN_BUFFS_ALLOC	3
/* kevent_ctl() handles its entries in chunks of at most this many. */
#define KEVENT_CTL_CHUNK	64
/* Delivery takes at most this many ready kevents per pass over the locks. */
#define KEVENT_DELIVER_BATCH	16

/*
 * Type slots: the KEVENT_* types of the ABI, plus one slot that only kernel
 * callers (the KUnit suites) can reach; kevent_ctl() refuses types past
 * KEVENT_MAX with -EINVAL before they get here.
 */
#define KEVENT_TYPE_KERNEL	KEVENT_MAX
#define KEVENT_NR_TYPES		(KEVENT_MAX + 1)

struct kevent;
struct kevent_user;
struct file;

/*
 * ->callback: called under the storage lock and the kevent's ulock, in
 *             atomic context; must not sleep.  Returns KEVENT_READY,
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
};

/**
 * struct kevent - one event of interest in one queue
 * @event: the request and its results, protected by @ulock.
 * @ulock: protects @event; nests inside the storage lock.
 * @refcnt: one for the queue's tree, one per delivery in progress.
 * @kevent_node: entry in the queue's tree, keyed by (type, id).
 * @storage_entry: entry in @st->list while @on_storage.
 * @ready_entry: entry in the queue's ready list while @on_ready.
 * @on_storage: attached to @st; protected by @st->lock.
 * @on_ready: on the ready list; protected by the queue's ready_lock.
 * @dead: removed from the queue, never to be readied again; ready_lock.
 * @in_tree: in the queue's tree; protected by the queue's ctl_mutex.
 * @recheck: queued by a notification that could not tell readiness
 *           (KEVENT_RECHECK); ->deliver looks again.  Protected by @ulock.
 * @gen: bumped by MODIFY, so a delivery in flight knows its snapshot is
 *       stale; protected by @ulock (and changed under ctl_mutex).
 * @user: the queue.
 * @st: the storage, set by kevent_storage_enqueue(); valid until
 *      ->dequeue returns, even after kevent_storage_fini().
 * @callbacks: the type's callbacks.
 * @priv: the storage's private data.
 */
struct kevent {
	struct ukevent		event;
	spinlock_t		ulock;
	refcount_t		refcnt;
	struct rb_node		kevent_node;
	struct list_head	storage_entry;
	struct list_head	ready_entry;
	bool			on_storage;
	bool			on_ready;
	bool			dead;
	bool			in_tree;
	bool			recheck;
	unsigned int		gen;
	struct kevent_user	*user;
	struct kevent_storage	*st;
	struct kevent_callbacks	callbacks;
	void			*priv;
};

/**
 * struct kevent_user - a kevent queue (one open /dev/kevent)
 * @kevent_root: all kevents of the queue, keyed by (type, id); ctl_mutex.
 * @kevent_num: number of kevents in @kevent_root; ctl_mutex.
 * @ready_list: kevents ready for delivery, in order; ready_lock.
 * @ready_num: length of @ready_list; ready_lock (read locklessly by waiters).
 * @ready_lock: protects the ready list and each kevent's on_ready/dead.
 * @ctl_mutex: serialises ADD/REMOVE/MODIFY, ONESHOT removal and release.
 * @wait: waiters in kevent_get_events()/kevent_wait() and poll().
 * @ring_lock: serialises kevent_ring_init() and ring writers.
 * @kidx: the ring slot the kernel fills next; ring_lock.
 * @ring_size: number of events in the ring; ring_lock.
 * @pring: the user's ring, NULL until kevent_ring_init(); ring_lock.
 * @owner: the user charged for the kevents of this queue.
 * @im_num: entries answered at once by ADD (ready or failed).
 * @wait_num: kevents delivered by kevent_get_events().
 * @ring_num: kevents delivered into the ring.
 * @total: kevents added.
 * The four counters are shown in the queue's fdinfo.
 */
struct kevent_user {
	struct rb_root		kevent_root;
	unsigned int		kevent_num;
	struct list_head	ready_list;
	unsigned int		ready_num;
	spinlock_t		ready_lock;
	struct mutex		ctl_mutex;
	wait_queue_head_t	wait;
	struct mutex		ring_lock;
	unsigned int		kidx, ring_size;
	struct kevent_ring __user *pring;
	struct user_struct	*owner;
	atomic_long_t		im_num, wait_num, ring_num, total;
};

/* Storage side (kevent.c). */
int kevent_add_callbacks(const struct kevent_callbacks *cb, int pos);
void kevent_remove_callbacks(int pos);
int kevent_init(struct kevent *k);
int kevent_enqueue(struct kevent *k);
int kevent_dequeue(struct kevent *k);
int kevent_deliver(struct kevent *k);
int kevent_break(struct kevent *k);
int kevent_modify(struct kevent *k, u32 event, u32 req_flags);
bool kevent_take_recheck(struct kevent *k);
void kevent_storage_ready(struct kevent_storage *st,
			  kevent_callback_t ready_callback, u32 event);
void kevent_storage_ready_data(struct kevent_storage *st, u32 event,
			       unsigned long data);
int kevent_storage_check(struct kevent_storage *st, struct kevent *k,
			 u32 event, unsigned long data);
void kevent_storage_init(void *origin, struct kevent_storage *st);
void kevent_storage_fini(struct kevent_storage *st, int err);
int kevent_storage_enqueue(struct kevent_storage *st, struct kevent *k);
void kevent_storage_dequeue(struct kevent_storage *st, struct kevent *k);

/* The ready list (kevent.c): the only code that changes its membership. */
bool kevent_ready_add(struct kevent *k, bool head);
struct kevent *kevent_ready_take(struct kevent_user *u);
void kevent_ready_kill(struct kevent *k);

/* Queue side (kevent_user.c). */
struct kevent_user *kevent_user_create(void);
void kevent_user_destroy(struct kevent_user *u);
int kevent_user_add_ukevent(struct ukevent *uk, struct kevent_user *u);
int kevent_user_remove_ukevent(struct ukevent *uk, struct kevent_user *u);
int kevent_user_modify_ukevent(struct ukevent *uk, struct kevent_user *u);
long kevent_user_ctl(struct kevent_user *u, unsigned int cmd, unsigned int num,
		     struct ukevent __user *arg);
long kevent_user_get_events(struct kevent_user *u, unsigned int min_nr,
			    unsigned int max_nr, u64 timeout,
			    struct ukevent __user *buf, bool nonblock);
long kevent_user_ring_init(struct kevent_user *u,
			   struct kevent_ring __user *ring, unsigned int num);
long kevent_user_wait(struct kevent_user *u, unsigned int num, u64 timeout,
		      bool nonblock);
unsigned int kevent_user_ready_num(struct kevent_user *u);
int kevent_user_getfd(int flags);
bool is_kevent_file(const struct file *file);

/* The syscalls, callable from the kernel with an fd of the caller. */
long kevent_sys_get_events(int ctl_fd, unsigned int min_nr, unsigned int max_nr,
			   u64 timeout, struct ukevent __user *buf,
			   unsigned int flags);
long kevent_sys_ctl(int ctl_fd, unsigned int cmd, unsigned int num,
		    struct ukevent __user *arg);
long kevent_sys_wait(int ctl_fd, unsigned int num, u64 timeout);
long kevent_sys_ring_init(int ctl_fd, struct kevent_ring __user *ring,
			  unsigned int num);

extern unsigned long kevent_max_user_kevents;
extern size_t kevent_ctl_alloc_peak;

#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
bool kevent_timer_armed(struct kevent *k);
#endif

/*
 * The file storages do not pin the files they watch: __fput() calls this,
 * as it calls eventpoll_release(), and the kevents watching the file are
 * broken (BROKEN|DONE, ret_data[1] = -EBADF) and queued before it goes.
 */
#ifdef CONFIG_KEVENT_FILE
void kevent_file_release_file(struct file *file);

static inline void kevent_file_release(struct file *file)
{
	/*
	 * Nobody else holds @file any more, so nobody can add an origin:
	 * an empty list stays empty.
	 */
	if (likely(!READ_ONCE(file->f_kevent.first)))
		return;
	kevent_file_release_file(file);
}
#else
static inline void kevent_file_release(struct file *file) { }
#endif

#endif /* _LINUX_KEVENT_H */
