// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the unified kernel event queue, the state machine.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Overview
 * --------
 * A queue (struct kevent_queue, one per open /dev/kevent) holds kevents
 * (struct kevent), each a request "tell me when EVENT happens on the origin
 * (TYPE, ID)".  The queue keeps all of them in an rb-tree keyed by
 * (type, id), and those ready for delivery in a ready list.
 *
 * An origin (a timer, a file, a socket) that can be watched owns a storage
 * (struct kevent_storage): the list of kevents attached to it.  A storage
 * type registers its callbacks with kevent_add_callbacks(): ->enqueue
 * attaches a new kevent to its origin, ->dequeue detaches it, ->callback
 * says whether the origin is ready for the kevent, and the optional
 * ->deliver brings a kevent up to date in the task that collects it.
 *
 * An event travels like this: the origin calls kevent_storage_ready(st,
 * NULL, mask) (or kevent_storage_ready_data(), which also hands the
 * callbacks a word of its own, such as a wake-up's poll mask, in
 * st->data); for each attached kevent whose event bits match, the
 * callback runs; when it says ready (or the kevent is already DONE and not
 * edge-triggered: take23's "sticky DONE" level behaviour), the kevent is put
 * on its queue's ready list, once (an event already there is not queued
 * twice), and the queue's waiters are woken.  A callback that cannot tell
 * in atomic context (a wake-up without a key) answers KEVENT_RECHECK: the
 * kevent is queued marked for a re-check, and ->deliver looks at the
 * origin in the collecting task, as epoll's ep_send_events() does; not
 * ready then, it is not delivered.  kevent_get_events() or kevent_wait()
 * (kevent_deliver.c, kevent_ring.c) take it off the ready list, run
 * ->deliver and copy it to user space: a ONESHOT or a broken kevent is
 * then removed, an ET kevent has its results cleared and waits for a new
 * notification, any other kevent stays DONE and is queued again by every
 * later matching notification.
 *
 * One call, one pass: a collection takes the kevents that were ready
 * when it began, each at most once (each kevent on the ready list carries
 * the number of the pass under way when it was queued; the take stops at
 * the first one queued since its own pass began), and stops taking
 * batches after KEVENT_PASS_NS or at a signal.  A copy that faults gives
 * its kevents back, merged with what arrived meanwhile; a collector
 * killed before it could do so under ctl_mutex leaves its batch on the
 * queue, and the next holder of ctl_mutex settles it.
 *
 * Lifetimes
 * ---------
 * A kevent lives from ADD until it is removed from the tree (REMOVE,
 * delivery of a ONESHOT or broken kevent, a MODIFY that finds its origin
 * gone, or closing the queue) and the last delivery that holds a
 * reference on it has finished: the tree holds one reference, each
 * delivery in progress one more.  Removal calls ->dequeue (under the
 * storage lock, the kevent leaves the storage) before it takes the kevent
 * off the ready list and marks it dead (under the ready lock), so once
 * removal has started no notification can reach it and no delivery can
 * put it back.
 *
 * A storage outlives each kevent attached to it until that kevent's
 * ->dequeue has returned.  An origin that must go while kevents are
 * attached calls kevent_storage_fini(), which breaks them (BROKEN|DONE),
 * detaches and queues them under the storage lock, and marks the storage
 * dead; their ->dequeue still runs later, when they are removed, and the
 * storage frees what is left then.  Fini and removal meet on the storage
 * lock, which fini holds for its whole pass: a removal waits for the pass
 * and the pass never sees a removed kevent.
 *
 * A queue lives as long as its file: every syscall holds the file, so the
 * queue is torn down only after the last syscall using it has returned.
 *
 * Locking
 * -------
 * Outer to inner:
 *
 *   q->ring_lock (mutex)        ring setup and ring writers
 *     q->ctl_mutex (mutex)      the tree, ADD/REMOVE/MODIFY, removal, and
 *                               taking kevents off the ready list
 *       q->orphan_lock          batches killed collectors left (a leaf,
 *                               also taken without ctl_mutex)
 *       kf->mtx (mutex)         a watched file's origin (kevent_file.c)
 *       st->lock (spinlock)     the storage list; callbacks run under it
 *         q->ready_lock         the ready list (k->on_ready, k->dead) and
 *                               the ukevent (flags, results) of each of
 *                               the queue's kevents
 *         q->wait.lock          waking the queue's waiters (after
 *                               q->ready_lock is dropped)
 *
 * One spinlock per queue guards both a kevent's results and the ready
 * list, as epoll's ep->lock does: a notification judges and queues a
 * kevent under one acquisition of it, and a collection takes a batch
 * off the ready list and snapshots it under one.
 *
 * Why each lock is what it is: the two mutexes are taken only by system
 * calls and may be held across work that sleeps (a storage's ->enqueue,
 * ->dequeue, ->deliver, which may call a file's ->poll; the ring's user
 * copies).  They are per queue, so a caller that sleeps under one (a
 * ->poll waiting on a FUSE daemon, a ring on a userfaultfd page) holds up
 * only its own queue, and every wait for them is killable.  The spinlocks
 * are taken from timers (hard interrupts) and wake-ups, so always with
 * interrupts off, and nothing that sleeps runs under them.
 *
 * A notification from a watched file runs under that file's wait-queue
 * lock, outside st->lock; a watched file's release takes kf->mtx, then
 * the core's chain (see kevent_file.c).  Storage-list changes happen only
 * under the storage lock.  kevent_ctl() copies user memory with no lock
 * held; kevent_get_events() and kevent_wait() copy to it under ctl_mutex
 * only with page faults disabled (a copy that needs a fault is made
 * again after dropping ctl_mutex; kevent_wait() writes the ring under
 * ring_lock, whose waiters are killable).
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include "kevent_internal.h"

/*
 * A notification touches two 64-byte lines of a kevent (see struct
 * kevent): ->callback must end in the second.  Lock debugging makes the
 * locks, and so the lines, larger.
 */
#if !defined(CONFIG_DEBUG_SPINLOCK) && !defined(CONFIG_DEBUG_LOCK_ALLOC)
static_assert(offsetofend(struct kevent, callbacks.callback) <= 2 * 64);
static_assert(sizeof(struct kevent) == 3 * 64);
#endif

static struct kevent_callbacks kevent_registered_callbacks[KEVENT_NR_TYPES];
static DEFINE_SPINLOCK(kevent_callbacks_lock);

/**
 * kevent_enqueue() - attach a new kevent to its origin
 * @k: the kevent, initialised by kevent_init()
 *
 * Return: <0 error, 0 attached, >0 answered at once (ready or broken).
 */
int kevent_enqueue(struct kevent *k)
{
	return k->callbacks.enqueue(k);
}

/**
 * kevent_dequeue() - detach a kevent from its origin
 * @k: the kevent, attached by kevent_enqueue()
 *
 * Called exactly once per attached kevent, whether or not
 * kevent_storage_fini() broke it meanwhile, so the storage drops what
 * ->enqueue took.
 *
 * Return: the storage's result.
 */
int kevent_dequeue(struct kevent *k)
{
	return k->callbacks.dequeue(k);
}

/**
 * kevent_deliver() - bring a kevent up to date before it is copied out
 * @k: a kevent taken off the ready list, in the tree, under ctl_mutex
 *
 * Return: >0 to deliver it, 0 when its storage found it not ready.
 */
int kevent_deliver(struct kevent *k)
{
	if (!k->callbacks.deliver)
		return 1;
	return k->callbacks.deliver(k);
}

/**
 * __kevent_take_recheck() - the locked part of kevent_take_recheck()
 * @k: the kevent, whose re-check flag was seen set
 *
 * Return: true (once) when the storage must look at its origin again.
 */
bool __kevent_take_recheck(struct kevent *k)
{
	spinlock_t *lock = &k->queue->ready_lock;
	unsigned long flags;
	bool recheck;

	spin_lock_irqsave(lock, flags);
	recheck = k->recheck;
	WRITE_ONCE(k->recheck, false);
	spin_unlock_irqrestore(lock, flags);
	return recheck;
}

/**
 * kevent_break() - the callback of types that have no storage
 * @k: the kevent
 *
 * Return: -ENOSYS.
 */
int kevent_break(struct kevent *k)
{
	return -ENOSYS;
}

/**
 * kevent_add_callbacks() - register a storage type
 * @cb: its callbacks (a missing ->callback, ->enqueue or ->dequeue fails
 *      the kevents of the type) and the event bits it reports
 * @pos: the type, below KEVENT_NR_TYPES
 *
 * Return: 0, or -EINVAL for a type out of range.
 */
int kevent_add_callbacks(const struct kevent_callbacks *cb, int pos)
{
	struct kevent_callbacks *p;

	if (pos < 0 || pos >= KEVENT_NR_TYPES)
		return -EINVAL;

	spin_lock(&kevent_callbacks_lock);
	p = &kevent_registered_callbacks[pos];
	p->enqueue = cb->enqueue ? cb->enqueue : kevent_break;
	p->dequeue = cb->dequeue ? cb->dequeue : kevent_break;
	p->callback = cb->callback ? cb->callback : kevent_break;
	p->deliver = cb->deliver;
	p->deliver_on_recheck = cb->deliver_on_recheck;
	p->counts = cb->counts;
	p->events = cb->events;
	spin_unlock(&kevent_callbacks_lock);
	return 0;
}

/**
 * kevent_remove_callbacks() - unregister a storage type
 * @pos: the type
 *
 * Kevents added later fail with -ENOSYS; existing ones keep the callbacks
 * they were created with, so the caller removes them first.
 */
void kevent_remove_callbacks(int pos)
{
	if (pos < 0 || pos >= KEVENT_NR_TYPES)
		return;
	spin_lock(&kevent_callbacks_lock);
	memset(&kevent_registered_callbacks[pos], 0,
	       sizeof(kevent_registered_callbacks[pos]));
	spin_unlock(&kevent_callbacks_lock);
}

/**
 * kevent_init() - prepare a kevent for kevent_enqueue()
 * @k: the kevent, whose ->event is filled in
 *
 * Return: 0, -EINVAL for a type out of range or an event mask with no bit
 * the type's storage can report, -ENOSYS for a type whose storage is not
 * built.
 */
int kevent_init(struct kevent *k)
{
	struct kevent_callbacks *cb;
	int err = 0;

	refcount_set(&k->refcnt, 1);
	INIT_LIST_HEAD(&k->storage_entry);
	INIT_LIST_HEAD(&k->ready_entry);
	k->on_storage = false;
	k->on_ready = false;
	k->dead = false;
	k->in_tree = false;
	WRITE_ONCE(k->recheck, false);
	k->gen = 0;
	k->pass = 0;
	k->st = NULL;
	k->priv = NULL;

	if (k->event.type >= KEVENT_NR_TYPES)
		return -EINVAL;

	spin_lock(&kevent_callbacks_lock);
	cb = &kevent_registered_callbacks[k->event.type];
	if (!cb->callback || cb->callback == kevent_break)
		err = -ENOSYS;
	else if (!(k->event.event & cb->events))
		err = -EINVAL;
	else
		k->callbacks = *cb;
	spin_unlock(&kevent_callbacks_lock);
	return err;
}

/**
 * kevent_storage_enqueue() - attach a kevent to a storage
 * @st: the storage
 * @k: the kevent
 *
 * Called from ->enqueue once the origin is held, with everything the
 * callbacks need already in @k (k->priv): a notification may run them as
 * soon as @k is attached, at the very unlock that attaches it.
 *
 * Return: 0, or -EBADF when the origin is gone (kevent_storage_fini()).
 */
int kevent_storage_enqueue(struct kevent_storage *st, struct kevent *k)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&st->lock, flags);
	if (st->dead) {
		err = -EBADF;
	} else {
		k->st = st;
		list_add_tail(&k->storage_entry, &st->list);
		k->on_storage = true;
	}
	spin_unlock_irqrestore(&st->lock, flags);
	return err;
}

/* Take @k off its storage's list.  Called with st->lock held. */
static void kevent_storage_detach(struct kevent_storage *st, struct kevent *k)
{
	lockdep_assert_held(&st->lock);
	if (k->on_storage) {
		list_del_init(&k->storage_entry);
		k->on_storage = false;
	}
}

/**
 * kevent_storage_dequeue() - detach a kevent from a storage
 * @st: the storage
 * @k: the kevent
 *
 * Called from ->dequeue before the storage lets go of the origin.  A
 * kevent that already left the storage (ONESHOT and ready, or broken) is
 * left as it is.  Once this returns, no notification of @st reaches @k and
 * kevent_storage_fini() is not touching it.
 */
void kevent_storage_dequeue(struct kevent_storage *st, struct kevent *k)
{
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	kevent_storage_detach(st, k);
	spin_unlock_irqrestore(&st->lock, flags);
}

/*
 * The ready list.  __kevent_ready_add(), __kevent_ready_del() and
 * kevent_ready_kill(), under q->ready_lock, are the only code that
 * changes a kevent's membership (k->on_ready, k->dead, q->ready_num).
 */

/*
 * Put @k on its queue's ready list.  Called with q->ready_lock held; the
 * caller wakes the queue's waiters (kevent_queue_wake()) after dropping
 * it, when @k was added.
 */
static __always_inline bool __kevent_ready_add(struct kevent *k, bool head,
					       u64 pass)
{
	struct kevent_queue *q = k->queue;
	bool added = false;

	lockdep_assert_held(&q->ready_lock);
	if (!k->on_ready && !k->dead) {
		/*
		 * A new kevent goes last, with the pass now under way, so
		 * that pass stops at it.  A kevent given back goes first,
		 * with the pass that took it: that pass, and any older one,
		 * stops at it too (another collector's pass may have
		 * delivered it before its own copy faulted: one call, one
		 * delivery), a newer one takes it first.
		 */
		if (head) {
			k->pass = pass;
			list_add(&k->ready_entry, &q->ready_list);
		} else {
			k->pass = q->pass;
			list_add_tail(&k->ready_entry, &q->ready_list);
		}
		k->on_ready = true;
		WRITE_ONCE(q->ready_num, q->ready_num + 1);
		added = true;
	}
	return added;
}

/**
 * kevent_ready_return() - give a kevent back to the head of the ready list
 * @k: the kevent, whose delivery's copy faulted, its results just given
 *     back under its queue's ready lock, which is held
 * @pass: the collection pass that took it
 *
 * A kevent already on the list (a notification queued it meanwhile), or
 * removed, is left alone.
 *
 * Return: true when @k was added: the caller wakes the queue's waiters
 * (kevent_queue_wake()) once it has dropped the ready lock.
 */
bool kevent_ready_return(struct kevent *k, u64 pass)
{
	return __kevent_ready_add(k, true, pass);
}

/* Take @k off the ready list.  Called with q->ready_lock held. */
static void __kevent_ready_del(struct kevent *k)
{
	struct kevent_queue *q = k->queue;

	lockdep_assert_held(&q->ready_lock);
	if (k->on_ready) {
		list_del_init(&k->ready_entry);
		k->on_ready = false;
		WRITE_ONCE(q->ready_num, q->ready_num - 1);
	}
}

/**
 * kevent_ready_take() - take the first ready kevents of a collection pass
 * @q: the queue
 * @ks: where to put them
 * @max: at most this many
 * @pass: the collection's pass number; 0 begins a new pass (the number is
 *        stored here for the pass's next takes)
 *
 * One call, one pass: a collection takes the kevents that were ready when
 * it began, each at most once.  A kevent queued after that (a periodic
 * timer re-armed by its own delivery, a new wake-up, even of a kevent
 * this pass delivered) carries a later pass number and waits for the
 * next collection, as epoll's ep_send_events() takes its ready list once.
 * The list is sorted by pass (see __kevent_ready_add()), so the take
 * stops at the first kevent queued since its pass began.
 *
 * Called in process context with the queue's ready lock held (the caller
 * snapshots the kevents taken under the same acquisition) and its
 * ctl_mutex, which keeps the kevents taken alive (their removal needs
 * it): a caller that drops it before it is done with them takes
 * references first.
 *
 * Return: how many were taken.
 */
unsigned int kevent_ready_take(struct kevent_queue *q, struct kevent **ks,
			       unsigned int max, u64 *pass)
{
	unsigned int n = 0;
	struct kevent *k;

	lockdep_assert_held(&q->ready_lock);
	lockdep_assert_held(&q->ctl_mutex);
	if (!*pass)
		*pass = ++q->pass;
	while (n < max &&
	       (k = list_first_entry_or_null(&q->ready_list, struct kevent,
					     ready_entry)) &&
	       k->pass < *pass) {
		__kevent_ready_del(k);
		ks[n++] = k;
	}
	return n;
}

/**
 * kevent_ready_forget() - a re-queue that a delivery already answers
 * @k: a kevent being delivered, its snapshot just taken under its queue's
 *     ready lock, which is held
 *
 * A notification that queued @k again after its delivery took it off the
 * ready list put its results into @k->event, which the delivery's
 * snapshot has just taken: the kevent leaves the ready list again, or the
 * next collection would deliver it a second time, empty.  Not for a
 * kevent whose storage has work in ->deliver (a timer counts expirations
 * there, not in @k->event).
 */
void kevent_ready_forget(struct kevent *k)
{
	lockdep_assert_held(&k->queue->ready_lock);
	__kevent_ready_del(k);
}

/**
 * kevent_ready_kill() - a removed kevent leaves the ready list for good
 * @k: the kevent
 */
void kevent_ready_kill(struct kevent *k)
{
	unsigned long flags;

	spin_lock_irqsave(&k->queue->ready_lock, flags);
	k->dead = true;
	__kevent_ready_del(k);
	spin_unlock_irqrestore(&k->queue->ready_lock, flags);
}

/*
 * Judge @ret, what ->callback said about @k, under st->lock and its
 * queue's ready lock: set the return flags, and say whether @k is to be
 * queued and whether it leaves the storage (ONESHOT once ready, broken).
 * A re-check keeps @k attached: whether it was ready is decided at
 * delivery.
 */
static __always_inline bool kevent_judge(struct kevent *k, int ret,
					 bool *leave)
{
	u32 *rf = &k->event.ret_flags;

	lockdep_assert_held(&k->queue->ready_lock);
	*leave = false;
	if (ret == KEVENT_RECHECK) {
		WRITE_ONCE(k->recheck, true);
		return true;
	}
	if (ret > 0)
		*rf |= KEVENT_RET_DONE;
	else if (ret < 0)
		*rf |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
	if (!(*rf & (KEVENT_RET_BROKEN | KEVENT_RET_DONE)))
		return false;
	/* A verdict: a re-check asked for before is answered. */
	WRITE_ONCE(k->recheck, false);
	*leave = (k->event.req_flags & KEVENT_REQ_ONESHOT) ||
		 (*rf & KEVENT_RET_BROKEN);
	return true;
}

/*
 * Ask the callback whether @k is ready and queue it if so.  Called with
 * st->lock held and @k on the storage.  A ONESHOT kevent that becomes
 * ready, and a broken one, leave the storage.  Returns true when @k was
 * made newly ready (it was not on the ready list yet).
 */
static __always_inline bool __kevent_requeue(struct kevent_storage *st,
					     struct kevent *k)
{
	struct kevent_queue *q = k->queue;
	bool ready, leave, added;

	lockdep_assert_held(&st->lock);

	/*
	 * Judged and queued under one lock, the queue's, with the results
	 * it brings, so a delivery's snapshot (under that lock) that took
	 * those results also sees the kevent queued again
	 * (kevent_ready_forget()).
	 */
	spin_lock(&q->ready_lock);
	ready = kevent_judge(k, k->callbacks.callback(k), &leave);
	added = ready && __kevent_ready_add(k, false, 0);
	spin_unlock(&q->ready_lock);
	if (added)
		kevent_queue_wake(q);

	if (ready && leave)
		kevent_storage_detach(st, k);
	return added;
}

/* One notification pass over @st's kevents.  Called with st->lock held. */
static __always_inline void
kevent_storage_pass(struct kevent_storage *st, kevent_callback_t ready_callback,
		    u32 event, unsigned long data, bool all)
{
	struct kevent *k, *n;
	int wake_num = 0;

	lockdep_assert_held(&st->lock);
	st->event = event;
	st->data = data;
	if (ready_callback)
		list_for_each_entry(k, &st->list, storage_entry)
			ready_callback(k);

	list_for_each_entry_safe(k, n, &st->list, storage_entry) {
		if (!(event & k->event.event))
			continue;
		if ((k->event.req_flags & KEVENT_REQ_WAKEUP_ONE) && wake_num &&
		    !all)
			continue;
		if (__kevent_requeue(st, k))
			wake_num++;
	}
}

/*
 * Inline in each entry point below, which it specialises: the POLL and
 * SOCKET wake-ups (kevent_storage_ready_data()) make one call into the
 * core, and test neither a ready callback nor @all.
 */
static __always_inline void
__kevent_storage_ready(struct kevent_storage *st,
		       kevent_callback_t ready_callback, u32 event,
		       unsigned long data, bool all)
{
	bool irqs_on = !irqs_disabled();
	unsigned long flags = 0;

	/*
	 * A wake function called by __wake_up() runs with interrupts off
	 * (under its wait queue's lock, taken with irqsave), and so does a
	 * hard hrtimer callback: the storage lock is then taken without
	 * saving and restoring them a second time, which costs two calls on
	 * some architectures (UML).  Other callers (a test, a waker that
	 * holds its wait queue's lock with interrupts on) save them.
	 */
	if (irqs_on)
		local_irq_save(flags);
	spin_lock(&st->lock);
	kevent_storage_pass(st, ready_callback, event, data, all);
	spin_unlock(&st->lock);
	if (irqs_on)
		local_irq_restore(flags);
}

/**
 * kevent_storage_ready() - an origin reports activity
 * @st: the origin's storage
 * @ready_callback: called first for every attached kevent, or NULL
 * @event: the events that happened; kevents whose event bits do not match
 *         are not looked at
 *
 * Within one pass, a kevent with KEVENT_REQ_WAKEUP_ONE is skipped once the
 * pass has made any kevent of the storage newly ready (one already on its
 * ready list does not count, so a busy queue cannot take every
 * notification from the others).  Runs in atomic context.
 */
void kevent_storage_ready(struct kevent_storage *st,
			  kevent_callback_t ready_callback, u32 event)
{
	__kevent_storage_ready(st, ready_callback, event, 0, false);
}

/**
 * kevent_storage_ready_data() - an origin reports activity, with data
 * @st: the origin's storage
 * @event: the events that happened, as for kevent_storage_ready()
 * @data: a word the callbacks read in &kevent_storage.data during the pass
 *        (the poll storages pass the wake-up's poll mask)
 *
 * Runs in atomic context.
 */
void kevent_storage_ready_data(struct kevent_storage *st, u32 event,
			       unsigned long data)
{
	__kevent_storage_ready(st, NULL, event, data, false);
}

/**
 * kevent_storage_broadcast() - an origin reports a state, not an edge
 * @st: the origin's storage
 * @event: the events that happened, as for kevent_storage_ready()
 * @data: as for kevent_storage_ready_data()
 *
 * For a hang-up, an error, or a wake-up that does not say what happened:
 * every matching kevent is looked at, KEVENT_REQ_WAKEUP_ONE ones included,
 * as a wake-all reaches every EPOLLEXCLUSIVE waiter.  WAKEUP_ONE limits
 * edges; a state nobody would report again must reach every queue.
 * Runs in atomic context.
 */
void kevent_storage_broadcast(struct kevent_storage *st, u32 event,
			      unsigned long data)
{
	__kevent_storage_ready(st, NULL, event, data, true);
}

/**
 * kevent_storage_check() - judge one kevent outside a notification
 * @st: its storage
 * @k: the kevent
 * @event: what the callback sees in &kevent_storage.event
 * @data: what it sees in &kevent_storage.data (e.g. a mask that ->poll
 *        returned in process context)
 *
 * For a storage that looked at its origin itself: when @k was just
 * attached (ADD), and when ->deliver re-checks a kevent queued with
 * KEVENT_RECHECK.  The callback runs for @k alone, under the same locks as
 * in a notification, so it never races one.  @k is not queued: a ready
 * ONESHOT or broken kevent leaves the storage, and the caller reports it.
 * A kevent that a notification has queued again meanwhile (that one will
 * be delivered) is not looked at; for one that left its storage (broken
 * by a notification meanwhile), its flags say.
 *
 * Return: >0 ready, 0 not ready (or not looked at), <0 broken.
 */
int kevent_storage_check(struct kevent_storage *st, struct kevent *k,
			 u32 event, unsigned long data)
{
	spinlock_t *lock = &k->queue->ready_lock;
	bool ready = false, leave = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&st->lock, flags);
	spin_lock(lock);
	if (k->on_ready)
		goto out;
	if (!k->on_storage) {
		/* It left: its flags are the verdict. */
		ret = k->event.ret_flags & KEVENT_RET_BROKEN ? -1 :
		      k->event.ret_flags & KEVENT_RET_DONE ? 1 : 0;
		goto out;
	}
	st->event = event;
	st->data = data;
	ret = k->callbacks.callback(k);
	if (ret == KEVENT_RECHECK)
		ret = KEVENT_NOT_READY;
	ready = kevent_judge(k, ret, &leave);
	ret = !ready ? 0 :
	      (k->event.ret_flags & KEVENT_RET_BROKEN) ? -1 : 1;
out:
	spin_unlock(lock);
	if (ready && leave)
		kevent_storage_detach(st, k);
	spin_unlock_irqrestore(&st->lock, flags);
	return ret;
}

/**
 * kevent_modify() - MODIFY: new event bits and flags, readiness checked anew
 * @k: the kevent, in its queue's tree (ctl_mutex held)
 * @event: the new event bits
 * @req_flags: the new request flags
 *
 * The kevent's results are cleared and it leaves the ready list; a kevent
 * that had left its storage (a ready ONESHOT not yet delivered, a broken
 * one) is attached again, unless its origin is gone; then the callback
 * says whether it is ready now (KEVENT_RECHECK: ->deliver will look).
 *
 * Return: 0, or -EBADF when the origin is gone (the caller removes @k).
 */
int kevent_modify(struct kevent *k, u32 event, u32 req_flags)
{
	struct kevent_storage *st = k->st;
	unsigned long flags;

	if (WARN_ON_ONCE(!st))
		return -EBADF;
	spin_lock_irqsave(&st->lock, flags);
	if (!k->on_storage && st->dead) {
		spin_unlock_irqrestore(&st->lock, flags);
		return -EBADF;
	}
	spin_lock(&k->queue->ready_lock);
	k->event.event = event;
	k->event.req_flags = req_flags;
	k->event.ret_flags = 0;
	k->event.ret_data[0] = 0;
	k->event.ret_data[1] = 0;
	WRITE_ONCE(k->recheck, false);
	k->gen++;
	__kevent_ready_del(k);
	spin_unlock(&k->queue->ready_lock);
	if (!k->on_storage) {
		list_add_tail(&k->storage_entry, &st->list);
		k->on_storage = true;
	}
	st->event = 0;
	st->data = 0;
	__kevent_requeue(st, k);
	spin_unlock_irqrestore(&st->lock, flags);
	return 0;
}

/**
 * kevent_storage_init() - initialise an origin's storage
 * @origin: the origin
 * @st: its storage
 */
void kevent_storage_init(void *origin, struct kevent_storage *st)
{
	spin_lock_init(&st->lock);
	st->origin = origin;
	INIT_LIST_HEAD(&st->list);
	st->event = 0;
	st->data = 0;
	st->dead = false;
}

/**
 * kevent_storage_fini() - the origin goes away
 * @st: its storage
 * @err: the error the broken kevents report in ret_data[1], or 0
 *
 * Every attached kevent, whatever its flags and event bits, is marked
 * BROKEN|DONE, detached and queued, and no kevent attaches afterwards.
 * The storage itself must stay until the ->dequeue of each of those
 * kevents, which still comes when it is removed.
 */
void kevent_storage_fini(struct kevent_storage *st, int err)
{
	struct kevent *k, *n;
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	st->dead = true;
	list_for_each_entry_safe(k, n, &st->list, storage_entry) {
		struct kevent_queue *q = k->queue;
		bool added;

		spin_lock(&q->ready_lock);
		k->event.ret_flags |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
		if (err)
			k->event.ret_data[1] = err;
		WRITE_ONCE(k->recheck, false);
		added = __kevent_ready_add(k, false, 0);
		spin_unlock(&q->ready_lock);
		if (added)
			kevent_queue_wake(q);
		kevent_storage_detach(st, k);
	}
	spin_unlock_irqrestore(&st->lock, flags);
}
