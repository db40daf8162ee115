// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the queue object, its tree of kevents, and its ctl_mutex.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * A queue (struct kevent_queue) is created by open("/dev/kevent") and lives
 * as long as its file; it owns its kevents (struct kevent, from
 * kevent_cache), kept in an rb-tree keyed by (type, id).  This file
 * creates and destroys queues, and finds, inserts and removes kevents in
 * the tree.  The other files of the queue build on it:
 * kevent_ctl.c (kevent_ctl()), kevent_deliver.c (kevent_get_events()),
 * kevent_ring.c (kevent_ring_init(), kevent_wait()) and
 * kevent_syscalls.c (the syscalls and the file).
 *
 * It also owns the rule of ctl_mutex: a collector killed while another
 * caller held the mutex leaves its batch (struct kevent_batch) on
 * q->orphans instead of waiting, and whoever takes ctl_mutex settles such
 * batches first thing and again as it unlocks (kevent_queue_unlock()):
 * the snapshots that were not copied go back to the ready list with
 * their results, and the final kevents that were copied are removed.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c:
 * ring_lock -> ctl_mutex -> st->lock -> ready_lock, then wait.lock.
 * Here: the tree and kevent_num are changed only under ctl_mutex;
 * q->orphans is a leaf (orphan_lock).  A kevent lives while it is in the
 * tree, or while a delivery holds a reference (refcnt).
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched/user.h>
#include <linux/cred.h>
#include "kevent_internal.h"

struct kmem_cache *kevent_cache __ro_after_init;

void kevent_put(struct kevent *k)
{
	if (refcount_dec_and_test(&k->refcnt))
		kmem_cache_free(kevent_cache, k);
}

/**
 * kevent_queue_create() - create an empty queue
 *
 * Return: the queue, or NULL when out of memory.
 */
struct kevent_queue *kevent_queue_create(void)
{
	struct kevent_queue *q;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return NULL;

	q->kevent_root = RB_ROOT;
	INIT_LIST_HEAD(&q->ready_list);
	spin_lock_init(&q->ready_lock);
	INIT_LIST_HEAD(&q->orphans);
	spin_lock_init(&q->orphan_lock);
	mutex_init(&q->ctl_mutex);
	init_waitqueue_head(&q->wait);
	mutex_init(&q->ring_lock);
	q->owner = get_current_user();
	return q;
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

struct kevent *kevent_search(const struct ukevent *uk,
			     struct kevent_queue *q)
{
	struct rb_node *n = q->kevent_root.rb_node;

	lockdep_assert_held(&q->ctl_mutex);

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

int kevent_tree_insert(struct kevent_queue *q, struct kevent *new)
{
	struct rb_node **p = &q->kevent_root.rb_node, *parent = NULL;

	lockdep_assert_held(&q->ctl_mutex);

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
	rb_insert_color(&new->kevent_node, &q->kevent_root);
	new->in_tree = true;
	WRITE_ONCE(q->kevent_num, q->kevent_num + 1);
	return 0;
}

/*
 * Remove @k: out of the tree, off its storage (->dequeue when @deq: the
 * storage attached it), off the ready list for good, uncharged, and the
 * tree's reference dropped.
 */
void kevent_remove(struct kevent *k, bool deq)
{
	struct kevent_queue *q = k->queue;

	lockdep_assert_held(&q->ctl_mutex);

	rb_erase(&k->kevent_node, &q->kevent_root);
	k->in_tree = false;
	WRITE_ONCE(q->kevent_num, q->kevent_num - 1);

	if (deq)
		kevent_dequeue(k);
	kevent_ready_kill(k);

	atomic_long_dec(&q->owner->kevents);
	kevent_put(k);
}

/**
 * kevent_queue_destroy() - remove every kevent of a queue and free it
 * @q: the queue; nobody else may use it any more
 */
void kevent_queue_destroy(struct kevent_queue *q)
{
	struct rb_node *n;

	mutex_lock(&q->ctl_mutex);
	kevent_orphans_finish(q);
	while ((n = rb_first(&q->kevent_root))) {
		kevent_remove(rb_entry(n, struct kevent, kevent_node), true);
		cond_resched();
	}
	mutex_unlock(&q->ctl_mutex);

	free_uid(q->owner);
	kfree(q);
}

/*
 * The copy of @uk faulted: give its results back and requeue @k first
 * (marked with @pass, the pass that took it), unless MODIFY changed @k
 * since (@gen): its old results are void.  What
 * a notification brought meanwhile is kept and merged with them: flags
 * and masks are OR-ed, a count (a timer's expirations) is added,
 * saturating, and an error that came meanwhile wins.
 */
static void kevent_undo_delivery(struct kevent *k, const struct ukevent *uk,
				 unsigned int gen, u64 pass)
{
	struct kevent_queue *q = k->queue;
	struct ukevent *e = &k->event;
	bool added = false;
	unsigned long flags;

	spin_lock_irqsave(&q->ready_lock, flags);
	if (k->gen == gen) {
		e->ret_flags |= uk->ret_flags;
		if (k->callbacks.counts)
			e->ret_data[0] = min_t(u64, (u64)e->ret_data[0] +
						    uk->ret_data[0], U32_MAX);
		else
			e->ret_data[0] |= uk->ret_data[0];
		if (!e->ret_data[1])
			e->ret_data[1] = uk->ret_data[1];
		added = kevent_ready_return(k, pass);
	}
	spin_unlock_irqrestore(&q->ready_lock, flags);
	if (added)
		kevent_queue_wake(q);
}

/*
 * The end of a batch whose copy faulted, under ctl_mutex: the snapshots
 * past b->copied go back (so no other delivery of the same kevent is
 * between its take and its snapshot meanwhile), the copied final ones
 * (ONESHOT, broken) are removed unless MODIFY changed them since.  Drops
 * the batch's references.
 */
void kevent_batch_settle(struct kevent_queue *q, struct kevent_batch *b)
{
	unsigned int i;

	lockdep_assert_held(&q->ctl_mutex);
	for (i = b->n; i-- > b->copied;)
		kevent_undo_delivery(b->k[i], &b->uk[i], b->gen[i], b->pass);
	for (i = 0; i < b->copied; i++) {
		struct kevent *k = b->k[i];

		if (kevent_batch_final(b, i) && k->in_tree &&
		    READ_ONCE(k->gen) == b->gen[i])
			kevent_remove(k, true);
	}
	for (i = 0; i < b->n; i++)
		kevent_put(b->k[i]);
}

/*
 * Settle the batches killed collectors left on the queue: whoever takes
 * ctl_mutex does, first thing, and again as it unlocks
 * (kevent_queue_unlock()).  Called with ctl_mutex held.
 */
void kevent_orphans_finish(struct kevent_queue *q)
{
	struct kevent_batch *b, *tmp;
	LIST_HEAD(list);

	lockdep_assert_held(&q->ctl_mutex);
	if (list_empty_careful(&q->orphans))
		return;
	spin_lock(&q->orphan_lock);
	list_splice_init(&q->orphans, &list);
	spin_unlock(&q->orphan_lock);
	list_for_each_entry_safe(b, tmp, &list, orphan) {
		kevent_batch_settle(q, b);
		kfree(b);
	}
}

/**
 * kevent_queue_unlock() - drop a queue's ctl_mutex
 * @q: the queue, whose ctl_mutex the caller holds
 *
 * First settles what killed collectors left (kevent_batch_finish()).  A
 * batch left after our look is settled by its collector, whose trylock
 * then succeeds, or by the holder that made that trylock fail: whoever
 * unlocks last looks again.
 */
void kevent_queue_unlock(struct kevent_queue *q)
{
	for (;;) {
		kevent_orphans_finish(q);
		mutex_unlock(&q->ctl_mutex);
		/*
		 * Pairs with the smp_mb() in kevent_batch_finish(): either
		 * we see its batch, or its trylock sees the mutex free.
		 */
		smp_mb();
		if (list_empty_careful(&q->orphans) ||
		    !mutex_trylock(&q->ctl_mutex))
			return;
	}
}
