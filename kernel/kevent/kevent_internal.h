/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent: the queue and the core's functions, private to kernel/kevent/
 * (and its KUnit suites).  A storage type needs only kevent_storage.h.
 * The objects, their lifetimes and the lock order are described at the
 * top of kevent.c.
 */
#ifndef _KEVENT_INTERNAL_H
#define _KEVENT_INTERNAL_H

#include "kevent_storage.h"
#include <kunit/visibility.h>

/* The seed's threshold between copying entries one by one and in a batch. */
#define KEVENT_MIN_BUFFS_ALLOC	3
/* kevent_ctl() handles its entries in chunks of at most this many. */
#define KEVENT_CTL_CHUNK	64
/* Delivery takes at most this many ready kevents per pass over the locks. */
#define KEVENT_DELIVER_BATCH	16
/*
 * A collection pass takes no further batch once it has run this long (or
 * a signal is pending): with the one-pass rule this bounds every call by
 * its deadline plus a time that grows with nothing the caller sets.
 */
#define KEVENT_PASS_NS		(10 * NSEC_PER_MSEC)

/*
 * Type slots: the KEVENT_* types of the ABI, plus one slot that only kernel
 * callers (the KUnit suites) can reach; kevent_ctl() refuses types past
 * KEVENT_MAX with -EINVAL before they get here.
 */
#define KEVENT_TYPE_KERNEL	KEVENT_MAX

/**
 * struct kevent_queue - a kevent queue (one open /dev/kevent)
 * @kevent_root: all kevents of the queue, keyed by (type, id); ctl_mutex.
 * @kevent_num: number of kevents in @kevent_root; ctl_mutex.
 * @ready_list: kevents ready for delivery, in order; ready_lock.
 * @ready_num: length of @ready_list; ready_lock (read locklessly by waiters).
 * @ready_lock: protects the ready list, and in each kevent of the queue
 *              on_ready, dead, pass, recheck, gen and the ukevent's
 *              results (see the lock order in kevent.c).
 * @pass: the number of the last collection pass begun; ready_lock.
 * @orphans: batches whose collector was killed before it could finish
 *           them (kevent_batch_finish()); finished by the next holder of
 *           ctl_mutex.  Protected by @orphan_lock.
 * @orphan_lock: protects @orphans.
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
struct kevent_queue {
	struct rb_root		kevent_root;
	unsigned int		kevent_num;
	struct list_head	ready_list;
	unsigned int		ready_num;
	spinlock_t		ready_lock;
	u64			pass;
	struct list_head	orphans;
	spinlock_t		orphan_lock;
	struct mutex		ctl_mutex;
	wait_queue_head_t	wait;
	struct mutex		ring_lock;
	unsigned int		kidx, ring_size;
	struct kevent_ring __user *pring;
	struct user_struct	*owner;
	atomic_long_t		im_num, wait_num, ring_num, total;
};

/* The core (kevent.c), for the queue. */
int kevent_init(struct kevent *k);
int kevent_enqueue(struct kevent *k);
int kevent_dequeue(struct kevent *k);
int kevent_deliver(struct kevent *k);
int kevent_modify(struct kevent *k, u32 event, u32 req_flags);

/**
 * kevent_deliver_needed() - whether kevent_deliver() has work for a kevent
 * @k: a kevent taken off the ready list
 *
 * Return: false when its storage has no ->deliver, or has one only for
 * re-checks and @k was not queued for one: delivery then needs no call
 * that may sleep.
 */
static inline bool kevent_deliver_needed(struct kevent *k)
{
	return k->callbacks.deliver &&
	       (!k->callbacks.deliver_on_recheck || READ_ONCE(k->recheck));
}

/* The ready list (kevent.c): the only code that changes its membership. */
bool kevent_ready_return(struct kevent *k, u64 pass);
unsigned int kevent_ready_take(struct kevent_queue *q, struct kevent **ks,
			       unsigned int max, u64 *pass);
void kevent_ready_forget(struct kevent *k);
void kevent_ready_kill(struct kevent *k);

/**
 * kevent_queue_ready_num() - how many kevents of a queue are ready
 * @q: the queue
 *
 * A lockless read, for waiters' conditions, poll() and fdinfo; the count
 * itself is the ready list's (changed under ready_lock only).
 *
 * Return: the length of the ready list.
 */
static inline unsigned int kevent_queue_ready_num(struct kevent_queue *q)
{
	return READ_ONCE(q->ready_num);
}

/*
 * Wake @q's waiters, after a kevent was added to its ready list and the
 * ready lock dropped.
 *
 * Only when someone waits: wake_up() takes the wait-queue lock even for
 * an empty queue, and a collector that does not sleep (a busy queue)
 * finds the kevent anyway.  The barrier of wq_has_sleeper() pairs with
 * the one after adding the waiter and before it reads ready_num:
 * prepare_to_wait_event()'s in kevent_wait_ready(), the smp_mb() after
 * poll_wait() in kevent_queue_poll() (poll, select, epoll).  Either the
 * waiter sees this kevent or we see the waiter.
 */
static __always_inline void kevent_queue_wake(struct kevent_queue *q)
{
	if (wq_has_sleeper(&q->wait))
		wake_up(&q->wait);
}

/*
 * The queue's files call only down: kevent_syscalls.c (the syscalls and
 * the file) calls kevent_ctl.c, kevent_ring.c and kevent_deliver.c; the
 * ring calls delivery; those three call kevent_queue.c; everything calls
 * the core (kevent.c).  The storages call the core only: kevent_timer.c,
 * and kevent_file.c with the file types built on it (kevent_poll.c and
 * kevent_socket.c, which also call kevent_file.c).  kevent_file.c refuses
 * to watch a queue with is_kevent_file() below, which compares a file's
 * f_op with kevent_queue_fops: a reference to the top file's data, not a
 * call.  scripts/check_layers.py checks these rules on the objects.
 */
extern struct kmem_cache *kevent_cache;

/* The queue (kevent_queue.c). */
struct kevent_queue *kevent_queue_create(void);
void kevent_queue_unlock(struct kevent_queue *q);
void kevent_queue_destroy(struct kevent_queue *q);

/* Control (kevent_ctl.c). */
int kevent_queue_add_ukevent(struct ukevent *uk, struct kevent_queue *q);
int kevent_queue_remove_ukevent(struct ukevent *uk, struct kevent_queue *q);
int kevent_queue_modify_ukevent(struct ukevent *uk, struct kevent_queue *q);
long kevent_queue_ctl(struct kevent_queue *q, unsigned int cmd, unsigned int num,
		      struct ukevent __user *arg);

/* Delivery (kevent_deliver.c) and the ring (kevent_ring.c). */
long kevent_queue_get_events(struct kevent_queue *q, unsigned int min_nr,
			     unsigned int max_nr, u64 timeout,
			     struct ukevent __user *buf, bool nonblock);
long kevent_queue_ring_init(struct kevent_queue *q,
			    struct kevent_ring __user *ring, unsigned int num);
long kevent_queue_wait(struct kevent_queue *q, unsigned int num, u64 timeout,
		       bool nonblock);

/*
 * Ready kevents taken for one copy, with their snapshots; on
 * q->orphans (@orphan, @copied) when a killed collector left it to the
 * next holder of ctl_mutex.
 *
 * A collector keeps its batch on its stack, not zeroed
 * (__uninitialized: with CONFIG_INIT_STACK_ALL_ZERO, zeroing its 872
 * bytes was most of a collection's fixed cost): kevent_batch_take()
 * sets @n, @pass and @more and fills the first @n slots, the only ones
 * read or copied to user space; @copied is set before the batch is
 * settled, @orphan before it is queued.
 */
struct kevent_batch {
	struct list_head orphan;
	u64		pass;
	unsigned int	copied;
	unsigned int	n;
	bool		more;	/* gave up early: the pass may have more */
	struct kevent	*k[KEVENT_DELIVER_BATCH];
	unsigned int	gen[KEVENT_DELIVER_BATCH];
	struct ukevent	uk[KEVENT_DELIVER_BATCH];
};

/* Whether the snapshot @i of @b was the kevent's last word. */
static inline bool kevent_batch_final(struct kevent_batch *b, unsigned int i)
{
	return b->uk[i].req_flags & KEVENT_REQ_ONESHOT ||
	       b->uk[i].ret_flags & KEVENT_RET_BROKEN;
}

/*
 * One collection pass: the kevents ready when it began (@pass, see
 * kevent_ready_take()), taken batch by batch for at most KEVENT_PASS_NS
 * (@end, set after the first batch: a pass that ends with its first batch,
 * max_nr or num reached or nothing left, reads no clock).
 */
struct kevent_pass {
	u64	pass;
	u64	end;
};

/* Between the queue's files: kevent_queue.c. */
void kevent_put(struct kevent *k);
struct kevent *kevent_search(const struct ukevent *uk,
			     struct kevent_queue *q);
int kevent_tree_insert(struct kevent_queue *q, struct kevent *new);
void kevent_remove(struct kevent *k, bool deq);
void kevent_batch_settle(struct kevent_queue *q, struct kevent_batch *b);
void kevent_orphans_finish(struct kevent_queue *q);

/* Between the queue's files: kevent_deliver.c. */
int kevent_collect_lock(struct mutex *lock);
unsigned int kevent_batch_take(struct kevent_queue *q,
			       struct kevent_batch *b, unsigned int max,
			       u64 *pass);
void kevent_batch_hold(struct kevent_batch *b);
void kevent_batch_done(struct kevent_queue *q, struct kevent_batch *b);
void kevent_batch_finish(struct kevent_queue *q, struct kevent_batch *b,
			 unsigned int copied);
void kevent_pass_init(struct kevent_pass *p);
bool kevent_pass_goes_on(struct kevent_pass *p);
int kevent_wait_ready(struct kevent_queue *q, unsigned int min_nr,
		      u64 timeout, ktime_t *deadline);

/* The file of a queue (kevent_syscalls.c), as eventpoll's is_file_epoll(). */
extern const struct file_operations kevent_queue_fops;

static inline bool is_kevent_file(const struct file *file)
{
	return file->f_op == &kevent_queue_fops;
}

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

/*
 * For the KUnit suites only: static without CONFIG_KUNIT, or not built
 * without the suites.
 */
#if IS_ENABLED(CONFIG_KUNIT)
extern size_t kevent_ctl_alloc_peak;
#endif
#if IS_ENABLED(CONFIG_KEVENT_KUNIT_TEST)
int kevent_queue_getfd(int flags);
bool kevent_timer_armed(struct kevent *k);
extern void (*kevent_timer_counted_hook)(struct kevent_storage *st);
extern void (*kevent_timer_deliver_hook)(struct kevent *k);
void kevent_timer_expire(struct kevent *k);
#endif

#endif /* _KEVENT_INTERNAL_H */
