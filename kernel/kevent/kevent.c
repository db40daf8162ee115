// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the unified kernel event queue, the state machine.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed (see SPEC.md).
 *
 * Overview
 * --------
 * A queue (struct kevent_user, one per open /dev/kevent) holds kevents
 * (struct kevent), each a request "tell me when EVENT happens on the origin
 * (TYPE, ID)".  The queue keeps all of them in an rb-tree keyed by
 * (type, id), and those ready for delivery in a ready list.
 *
 * An origin (a timer, a file, a socket) that can be watched owns a storage
 * (struct kevent_storage): the list of kevents attached to it.  A storage
 * type registers three callbacks with kevent_add_callbacks(): ->enqueue
 * attaches a new kevent to its origin, ->dequeue detaches it, ->callback
 * says whether the origin is ready for the kevent.
 *
 * An event travels like this: the origin calls kevent_storage_ready(st,
 * NULL, mask) (or kevent_storage_ready_data(), which also hands the
 * callbacks a word of its own, such as a wake-up's poll mask, in
 * st->data); for each attached kevent whose event bits match, the
 * callback runs; when it says ready (or the kevent is already DONE and not
 * edge-triggered: take23's "sticky DONE" level behaviour), the kevent is put
 * on its queue's ready list, once (an event already there is not queued
 * twice), and the queue's waiters are woken.  kevent_get_events() or
 * kevent_wait() (kevent_user.c) take it off the ready list and copy it to
 * user space: an ONESHOT kevent is then removed, an ET kevent has its
 * results cleared and waits for a new notification, any other kevent stays
 * DONE and is queued again by every later matching notification.
 *
 * Lifetimes
 * ---------
 * A kevent lives from ADD until it is removed from the tree (REMOVE,
 * delivery of a ONESHOT kevent, or closing the queue) and the last
 * delivery that holds a reference on it has finished: the tree holds one
 * reference, each delivery in progress one more.  Removal detaches the
 * kevent from its storage (under the storage lock) before it takes it off
 * the ready list and marks it dead (under the ready lock), so once removal
 * has started no notification can reach it and no delivery can put it back.
 * A queue lives as long as its file: every syscall holds the file, so the
 * queue is torn down only after the last syscall using it has returned.
 * A storage outlives its kevents; an origin that must go while kevents are
 * attached calls kevent_storage_fini(), which breaks and detaches them all.
 *
 * Locking
 * -------
 * Outer to inner:
 *
 *   u->ring_lock (mutex)        ring setup and ring writers
 *     u->ctl_mutex (mutex)      the tree, ADD/REMOVE/MODIFY, removal
 *       st->lock (spinlock)     the storage list; callbacks run under it
 *         k->ulock (spinlock)   the kevent's ukevent (flags, results)
 *           u->ready_lock       the ready list, k->on_ready and k->dead
 *             u->wait.lock      waking the queue's waiters
 *
 * A notification from a watched file (kevent_file.c) runs under that file's
 * wait-queue lock, outside st->lock; the file storages' own mutex sits
 * between ctl_mutex and st->lock (see kevent_file.c).
 * The spinlocks are taken with interrupts disabled where they can be taken
 * from a timer or a wake-up.  Callbacks run in atomic context and must not
 * sleep; ->enqueue and ->dequeue run under ctl_mutex only and may sleep.
 * Storage-list changes happen only under the storage lock.  No lock is held
 * while user memory is copied.
 */

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/kevent.h>

static struct kevent_callbacks kevent_registered_callbacks[KEVENT_NR_TYPES];
static DEFINE_SPINLOCK(kevent_callbacks_lock);

/**
 * kevent_enqueue() - attach a new kevent to its origin
 * @k: the kevent, initialised by kevent_init()
 *
 * Return: <0 error, 0 attached, >0 ready at once.
 */
int kevent_enqueue(struct kevent *k)
{
	return k->callbacks.enqueue(k);
}

/**
 * kevent_dequeue() - detach a kevent from its origin
 * @k: the kevent
 *
 * Nothing is called for a kevent that kevent_storage_fini() already
 * detached from a dying origin.
 *
 * Return: the storage's result, 0 when there was nothing to do.
 */
int kevent_dequeue(struct kevent *k)
{
	if (!READ_ONCE(k->st))
		return 0;
	return k->callbacks.dequeue(k);
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
 * @cb: its callbacks; a missing one fails the kevents of the type
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
 * Return: 0, -EINVAL for a type out of range, -ENOSYS for a type whose
 * storage is not built.
 */
int kevent_init(struct kevent *k)
{
	struct kevent_callbacks *cb;
	int err = 0;

	spin_lock_init(&k->ulock);
	refcount_set(&k->refcnt, 1);
	INIT_LIST_HEAD(&k->storage_entry);
	INIT_LIST_HEAD(&k->ready_entry);
	k->on_storage = false;
	k->on_ready = false;
	k->dead = false;
	k->in_tree = false;
	k->st = NULL;
	k->priv = NULL;

	if (k->event.type >= KEVENT_NR_TYPES)
		return -EINVAL;

	spin_lock(&kevent_callbacks_lock);
	cb = &kevent_registered_callbacks[k->event.type];
	if (!cb->callback || cb->callback == kevent_break)
		err = -ENOSYS;
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
 * Called from ->enqueue once the origin's reference is taken.
 *
 * Return: 0.
 */
int kevent_storage_enqueue(struct kevent_storage *st, struct kevent *k)
{
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	k->st = st;
	list_add_tail(&k->storage_entry, &st->list);
	k->on_storage = true;
	spin_unlock_irqrestore(&st->lock, flags);
	return 0;
}

/**
 * kevent_storage_dequeue() - detach a kevent from a storage
 * @st: the storage
 * @k: the kevent
 *
 * Called from ->dequeue before the origin's reference is dropped.  A kevent
 * that already left the storage (ONESHOT and ready, or broken) is left as
 * it is.  Once this returns, no notification of @st reaches @k.
 */
void kevent_storage_dequeue(struct kevent_storage *st, struct kevent *k)
{
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	if (k->on_storage) {
		list_del_init(&k->storage_entry);
		k->on_storage = false;
	}
	spin_unlock_irqrestore(&st->lock, flags);
}

/**
 * kevent_queue_ready() - put a kevent on its queue's ready list
 * @k: the kevent
 *
 * A kevent already on the list, or being removed, is left alone; the
 * queue's waiters are woken either way.
 */
void kevent_queue_ready(struct kevent *k)
{
	struct kevent_user *u = k->user;
	unsigned long flags;

	spin_lock_irqsave(&u->ready_lock, flags);
	if (!k->on_ready && !k->dead) {
		list_add_tail(&k->ready_entry, &u->ready_list);
		k->on_ready = true;
		u->ready_num++;
	}
	spin_unlock_irqrestore(&u->ready_lock, flags);
	wake_up(&u->wait);
}

/*
 * Ask the callback whether @k is ready and queue it if so.  Called with
 * st->lock held and @k on the storage.  A ONESHOT kevent that becomes
 * ready, and a broken one, leave the storage.  Returns true when @k was
 * made ready.
 */
static bool __kevent_requeue(struct kevent_storage *st, struct kevent *k)
{
	bool ready, leave;
	int ret;

	lockdep_assert_held(&st->lock);

	spin_lock(&k->ulock);
	ret = k->callbacks.callback(k);
	if (ret > 0)
		k->event.ret_flags |= KEVENT_RET_DONE;
	else if (ret < 0)
		k->event.ret_flags |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
	ready = k->event.ret_flags & (KEVENT_RET_BROKEN | KEVENT_RET_DONE);
	leave = (k->event.req_flags & KEVENT_REQ_ONESHOT) ||
		(k->event.ret_flags & KEVENT_RET_BROKEN);
	spin_unlock(&k->ulock);

	if (!ready)
		return false;

	if (leave && k->on_storage) {
		list_del_init(&k->storage_entry);
		k->on_storage = false;
	}
	kevent_queue_ready(k);
	return true;
}

/**
 * kevent_requeue() - re-check a kevent's readiness (after MODIFY)
 * @k: the kevent
 *
 * The callback sees &kevent_storage.event == 0: no notification is in
 * progress, the storage looks at its origin by itself.  Does nothing for
 * a kevent that is not attached to its storage.
 */
void kevent_requeue(struct kevent *k)
{
	struct kevent_storage *st = READ_ONCE(k->st);
	unsigned long flags;

	if (!st)
		return;
	spin_lock_irqsave(&st->lock, flags);
	if (k->on_storage && k->st == st) {
		st->event = 0;
		st->data = 0;
		__kevent_requeue(st, k);
	}
	spin_unlock_irqrestore(&st->lock, flags);
}

static void __kevent_storage_ready(struct kevent_storage *st,
				   kevent_callback_t ready_callback, u32 event,
				   unsigned long data)
{
	struct kevent *k, *n;
	unsigned long flags;
	int wake_num = 0;

	spin_lock_irqsave(&st->lock, flags);
	st->event = event;
	st->data = data;
	if (ready_callback)
		list_for_each_entry(k, &st->list, storage_entry)
			ready_callback(k);

	list_for_each_entry_safe(k, n, &st->list, storage_entry) {
		if (!(event & k->event.event))
			continue;
		if ((k->event.req_flags & KEVENT_REQ_WAKEUP_ONE) && wake_num)
			continue;
		if (__kevent_requeue(st, k))
			wake_num++;
	}
	spin_unlock_irqrestore(&st->lock, flags);
}

/**
 * kevent_storage_ready() - an origin reports activity
 * @st: the origin's storage
 * @ready_callback: called first for every attached kevent, or NULL
 * @event: the events that happened; kevents whose event bits do not match
 *         are not looked at
 *
 * Within one pass, a kevent with KEVENT_REQ_WAKEUP_ONE is skipped once any
 * kevent of the storage has been made ready.  Runs in atomic context.
 */
void kevent_storage_ready(struct kevent_storage *st,
			  kevent_callback_t ready_callback, u32 event)
{
	__kevent_storage_ready(st, ready_callback, event, 0);
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
	__kevent_storage_ready(st, NULL, event, data);
}

/**
 * kevent_storage_init() - initialise an origin's storage
 * @origin: the origin
 * @st: its storage
 *
 * Return: 0.
 */
int kevent_storage_init(void *origin, struct kevent_storage *st)
{
	spin_lock_init(&st->lock);
	st->origin = origin;
	INIT_LIST_HEAD(&st->list);
	st->event = 0;
	st->data = 0;
	return 0;
}

/**
 * kevent_storage_fini() - the origin goes away
 * @st: its storage
 *
 * Every attached kevent, whatever its flags and event bits, is marked
 * BROKEN|DONE, detached and queued, so the origin can be freed once this
 * returns.  Such kevents are later removed without calling ->dequeue.
 */
void kevent_storage_fini(struct kevent_storage *st)
{
	struct kevent *k, *n;
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	list_for_each_entry_safe(k, n, &st->list, storage_entry) {
		spin_lock(&k->ulock);
		k->event.ret_flags |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
		spin_unlock(&k->ulock);
		list_del_init(&k->storage_entry);
		k->on_storage = false;
		WRITE_ONCE(k->st, NULL);
		kevent_queue_ready(k);
	}
	spin_unlock_irqrestore(&st->lock, flags);
}
