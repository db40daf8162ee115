// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: the queue, its control operations, delivery and the syscalls.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * A queue (struct kevent_queue) is created by open("/dev/kevent") and lives
 * as long as its file; it owns its kevents (struct kevent), kept in an
 * rb-tree keyed by (type, id).  kevent_ctl() adds, removes and modifies
 * kevents; kevent_get_events() copies ready kevents to a user buffer;
 * kevent_ring_init() registers a user ring that kevent_wait() fills.
 *
 * Delivery works in batches of at most KEVENT_DELIVER_BATCH kevents.
 * Under ctl_mutex it takes the kevents off the ready list (the whole
 * batch under one acquisition of the ready lock), lets each one's storage
 * bring it up to date (->deliver: a timer's missed periods, a file's
 * re-check; a kevent found not ready is dropped there), and snapshots its
 * ukevent under its ulock (clearing the results of ET kevents and the
 * result data of all).  Then it copies the snapshots in one
 * copy_to_user() (kevent_get_events()), or in at most two, up to the
 * ring's end and after the wrap (kevent_wait(), which then writes
 * ring_kidx), still under ctl_mutex but with page faults disabled, so
 * that no fault sleeps under it; ctl_mutex keeps the kevents alive.  Only
 * a copy that needs a fault takes a reference on each kevent, drops
 * ctl_mutex and copies again (the ring under ring_lock).  A snapshot that
 * could not be copied then goes back: its results are restored and its
 * kevent returns to the head of the ready list, so no event is lost to a
 * fault.
 * A delivered ONESHOT or broken kevent is then removed: neither can be
 * reported again.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c:
 * ring_lock -> ctl_mutex -> st->lock -> k->ulock -> ready_lock -> wait.lock.
 * Here: the tree and kevent_num are changed only under ctl_mutex; storage
 * ->enqueue/->dequeue/->deliver run under ctl_mutex (never under a
 * spinlock); the ring's fields are under ring_lock.  Every wait for the
 * two mutexes and for events is killable, and the loops whose length the
 * caller chooses (ctl entries, delivery, teardown) reschedule.
 */

#define pr_fmt(fmt) "kevent: " fmt

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
#include <linux/seq_file.h>
#include "kevent_internal.h"

static struct kmem_cache *kevent_cache __ro_after_init;

/*
 * Per-user cap on kevents, like epoll's max_user_watches: by default the
 * number of kevents that fit in 4% of low memory.  Past it, ADD fails the
 * entry with -ENOSPC.  fs.kevent.max_user_kevents.
 */
unsigned long kevent_max_user_kevents __read_mostly;

/*
 * The largest entry buffer kevent_ctl() allocated: bounded, whatever num
 * (a KUnit case checks it).
 */
VISIBLE_IF_KUNIT size_t kevent_ctl_alloc_peak;

static void kevent_orphans_finish(struct kevent_queue *q);

static void kevent_put(struct kevent *k)
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

static struct kevent *kevent_search(const struct ukevent *uk,
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

static int kevent_tree_insert(struct kevent_queue *q, struct kevent *new)
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
static void kevent_remove(struct kevent *k, bool deq)
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

/**
 * kevent_queue_add_ukevent() - add one kevent to a queue
 * @uk: the request; on return other than 0 it holds the answer
 * @q: the queue
 *
 * Return: 0 when the kevent is queued; >0 when it was ready at once (it is
 * reported in @uk with KEVENT_RET_DONE and not kept); <0 on error, or when
 * it was broken at once (@uk has KEVENT_RET_BROKEN|KEVENT_RET_DONE and
 * ret_data[1] = the error).
 */
int kevent_queue_add_ukevent(struct ukevent *uk, struct kevent_queue *q)
{
	struct kevent *k;
	int err;

	lockdep_assert_held(&q->ctl_mutex);

	if (atomic_long_inc_return(&q->owner->kevents) >
	    READ_ONCE(kevent_max_user_kevents)) {
		atomic_long_dec(&q->owner->kevents);
		err = -ENOSPC;
		goto err_out;
	}

	k = kmem_cache_alloc(kevent_cache, KEVENT_GFP);
	if (!k) {
		atomic_long_dec(&q->owner->kevents);
		err = -ENOMEM;
		goto err_out;
	}

	k->event = *uk;
	k->event.ret_flags = 0;
	k->event.ret_data[0] = 0;
	k->event.ret_data[1] = 0;
	k->queue = q;
	err = kevent_init(k);
	if (!err)
		err = kevent_tree_insert(q, k);
	if (err) {
		atomic_long_dec(&q->owner->kevents);
		kmem_cache_free(kevent_cache, k);
		goto err_out;
	}
	atomic_long_inc(&q->total);

	err = kevent_enqueue(k);
	if (!err)
		return 0;
	if (err < 0) {
		kevent_remove(k, false);
		goto err_out;
	}

	/* Answered at once: the storage attached it, so detach it again. */
	spin_lock_irq(&k->ulock);
	*uk = k->event;
	spin_unlock_irq(&k->ulock);
	kevent_remove(k, true);
	uk->ret_flags |= KEVENT_RET_DONE;
	if (!(uk->ret_flags & KEVENT_RET_BROKEN))
		return 1;
	return (s32)uk->ret_data[1] < 0 ? (s32)uk->ret_data[1] : -EIO;
err_out:
	uk->ret_flags |= KEVENT_RET_BROKEN | KEVENT_RET_DONE;
	uk->ret_data[1] = err;
	return err;
}

/**
 * kevent_queue_remove_ukevent() - remove the kevent matching (type, id)
 * @uk: the request
 * @q: the queue
 *
 * Return: 0, or -ENOENT when no kevent matches.
 */
int kevent_queue_remove_ukevent(struct ukevent *uk, struct kevent_queue *q)
{
	struct kevent *k;

	lockdep_assert_held(&q->ctl_mutex);

	k = kevent_search(uk, q);
	if (!k)
		return -ENOENT;
	kevent_remove(k, true);
	return 0;
}

/**
 * kevent_queue_modify_ukevent() - replace the event bits and request flags
 * @uk: the request
 * @q: the queue
 *
 * The kevent's results are cleared, it leaves the ready list, it is
 * attached to its origin again if it had left it, and its readiness is
 * checked anew (kevent_modify()).  When its origin is gone (a watched
 * file's last close broke it) the kevent is removed.
 *
 * Return: 0; -ENOENT when no kevent matches; -EINVAL for event bits the
 * storage cannot report (nothing changes); -EBADF when the origin is gone
 * (the kevent was removed).
 */
int kevent_queue_modify_ukevent(struct ukevent *uk, struct kevent_queue *q)
{
	struct kevent *k;
	int err;

	lockdep_assert_held(&q->ctl_mutex);

	k = kevent_search(uk, q);
	if (!k)
		return -ENOENT;
	if (!(uk->event & k->callbacks.events))
		return -EINVAL;
	err = kevent_modify(k, uk->event, uk->req_flags);
	if (err)
		kevent_remove(k, true);
	return err;
}

/*
 * kevent_ctl(): entries are read in chunks of at most KEVENT_CTL_CHUNK, so
 * no allocation grows with @num, and each chunk is copied in and out with
 * no lock held.  ADD writes the ready and failed entries, compacted, to
 * the start of @arg (the write index never passes the read index) and
 * returns their number; REMOVE and MODIFY answer every entry in place and
 * return 0.  A copy that faults stops the call with -EFAULT, a fatal
 * signal with -EINTR; entries processed before keep their effect.
 */
static int kevent_ctl_chunk(struct kevent_queue *q, unsigned int cmd,
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
				err = kevent_queue_add_ukevent(uk, q);
			}
			if (err) {
				atomic_long_inc(&q->im_num);
				ukev[rnum++] = *uk;
			}
			break;
		case KEVENT_CTL_REMOVE:
		case KEVENT_CTL_MODIFY:
			if (uk->type >= KEVENT_MAX)
				err = -ENOENT;
			else if (cmd == KEVENT_CTL_REMOVE)
				err = kevent_queue_remove_ukevent(uk, q);
			else
				err = kevent_queue_modify_ukevent(uk, q);
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
 * kevent_queue_ctl() - the body of kevent_ctl()
 * @q: the queue
 * @cmd: KEVENT_CTL_ADD, KEVENT_CTL_REMOVE or KEVENT_CTL_MODIFY
 * @num: number of entries at @arg
 * @arg: the entries, answered in place
 *
 * Return: for ADD the number of entries written back, for REMOVE and
 * MODIFY 0; -EINVAL for an unknown @cmd, -EFAULT when @arg faults, -EINTR
 * on a fatal signal.
 */
long kevent_queue_ctl(struct kevent_queue *q, unsigned int cmd, unsigned int num,
		     struct ukevent __user *arg)
{
	struct ukevent onstack[KEVENT_MIN_BUFFS_ALLOC];
	struct ukevent __user *out = arg;
	struct ukevent *ukev = onstack;
	unsigned int chunk = KEVENT_MIN_BUFFS_ALLOC, done = 0;
	long ret = 0;

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

	while (done < num) {
		unsigned int n = min(chunk, num - done), r;

		if (copy_from_user(ukev, arg + done, n * sizeof(*ukev))) {
			ret = -EFAULT;
			break;
		}
		if (mutex_lock_killable(&q->ctl_mutex)) {
			ret = -EINTR;
			break;
		}
		kevent_orphans_finish(q);
		r = kevent_ctl_chunk(q, cmd, ukev, n);
		kevent_queue_unlock(q);
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
		if (done < num) {
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			cond_resched();
		}
	}

	if (ukev != onstack)
		kfree(ukev);
	return ret;
}

/*
 * Ready kevents taken for one copy, with their snapshots; on
 * q->orphans (@orphan, @copied) when a killed collector left it to the
 * next holder of ctl_mutex.
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
static bool kevent_batch_final(struct kevent_batch *b, unsigned int i)
{
	return b->uk[i].req_flags & KEVENT_REQ_ONESHOT ||
	       b->uk[i].ret_flags & KEVENT_RET_BROKEN;
}

/*
 * Wait for @lock as a collector may: until a signal.  Another caller of
 * the same queue may hold ctl_mutex inside a file's ->poll that sleeps (a
 * FUSE file); a signal ends that wait, the caller's timeout does not
 * (epoll's ep->mtx waits the same way, and not even for signals).
 */
static int kevent_collect_lock(struct mutex *lock)
{
	return mutex_lock_interruptible(lock) ? -EINTR : 0;
}

/*
 * Snapshot @k into slot @i of @b for the copy, under its ulock (interrupts
 * are off): clear the results of an ET kevent and the result data of all.
 * Returns false when there is nothing to report: a notification queued it
 * again after a delivery that took its results (between the take and the
 * snapshot of that delivery).
 */
static bool kevent_snapshot(struct kevent_batch *b, unsigned int i,
			    struct kevent *k)
{
	bool empty;

	lockdep_assert_irqs_disabled();
	spin_lock(&k->ulock);
	empty = !(k->event.ret_flags & (KEVENT_RET_DONE | KEVENT_RET_BROKEN));
	if (!empty) {
		b->uk[i] = k->event;
		b->gen[i] = k->gen;
		if (k->event.req_flags & KEVENT_REQ_ET)
			k->event.ret_flags = 0;
		k->event.ret_data[0] = 0;
		k->event.ret_data[1] = 0;
		/*
		 * Queued again since the take (during ->deliver, say): this
		 * snapshot carries what that notification brought, so the
		 * kevent is not delivered a second time, empty.  A kevent
		 * whose ->deliver has work to do (a timer's count, a
		 * re-check) keeps its place: its news is not in @k->event.
		 */
		if (READ_ONCE(k->on_ready) && !kevent_deliver_needed(k))
			kevent_ready_forget(k);
	}
	spin_unlock(&k->ulock);
	return !empty;
}

/*
 * Take up to @max ready kevents (at most KEVENT_DELIVER_BATCH) of the
 * collection pass *@pass (0: a new one, see kevent_ready_take()) into @b:
 * each brought up to date by its storage and snapshotted for the copy.
 * Called with ctl_mutex held, which keeps them alive as long as it is
 * held; the final ones (ONESHOT, broken), which the caller removes, get a
 * reference each.  Returns how many, 0 when none is ready.  A batch
 * gives up after taking 2 * KEVENT_DELIVER_BATCH kevents, at least half
 * of them dropped as not ready at delivery (a re-check that ->poll
 * answered "no"), with @b->more set: the pass may still hold ready ones
 * behind them, for the next batch.
 *
 * A pass takes kevents off the ready list and snapshots them under one
 * irq-off section.  Only a kevent whose storage has work in ->deliver (a
 * timer, a file's re-check), which may sleep, waits for the end of that
 * section; it is snapshotted after its ->deliver, in a second section.
 * A notification may add results between a kevent's ->deliver and its
 * snapshot, as at any time before it: the snapshot takes what is there.
 * The kevents keep the ready list's order.
 */
static unsigned int kevent_batch_take(struct kevent_queue *q,
				      struct kevent_batch *b, unsigned int max,
				      u64 *pass)
{
	/*
	 * Kevents taken, kept or dropped as not ready by ->deliver: at most
	 * this many per batch.
	 */
	unsigned int tries = 2 * KEVENT_DELIVER_BATCH;
	unsigned int i, got, base;
	unsigned long late;
	struct kevent *k;

	BUILD_BUG_ON(KEVENT_DELIVER_BATCH > BITS_PER_LONG);
	lockdep_assert_held(&q->ctl_mutex);
	max = min_t(unsigned int, max, KEVENT_DELIVER_BATCH);
	b->n = 0;
	while (b->n < max && tries) {
		/* The kevents of this pass land in b->k[base...]. */
		base = b->n;
		late = 0;
		local_irq_disable();
		got = kevent_ready_take(q, b->k + base,
					min(max - base, tries), pass);
		for (i = 0; i < got; i++) {
			k = b->k[base + i];
			if (kevent_deliver_needed(k))
				late |= BIT(i);
			else if (!kevent_snapshot(b, base + i, k))
				b->k[base + i] = NULL;
		}
		local_irq_enable();
		if (!got)
			break;
		tries -= got;
		if (late) {
			for_each_set_bit(i, &late, got)
				if (kevent_deliver(b->k[base + i]) <= 0) {
					b->k[base + i] = NULL;
					__clear_bit(i, &late);
				}
			local_irq_disable();
			for_each_set_bit(i, &late, got)
				if (!kevent_snapshot(b, base + i, b->k[base + i]))
					b->k[base + i] = NULL;
			local_irq_enable();
		}
		/* Kept ones move down to b->n, which never passes base + i. */
		for (i = 0; i < got; i++) {
			k = b->k[base + i];
			if (!k)
				continue;
			if (b->n != base + i) {
				b->k[b->n] = k;
				b->uk[b->n] = b->uk[base + i];
				b->gen[b->n] = b->gen[base + i];
			}
			/*
			 * A final kevent is removed after the copy: the
			 * reference keeps it for that.
			 */
			if (kevent_batch_final(b, b->n))
				refcount_inc(&k->refcnt);
			b->n++;
		}
	}
	b->pass = *pass;
	b->more = !tries;
	return b->n;
}

/*
 * The copy of @b is to be made with ctl_mutex dropped (it faulted with
 * page faults disabled): every kevent of the batch gets the reference
 * that the final ones already have.
 */
static void kevent_batch_hold(struct kevent_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		if (!kevent_batch_final(b, i))
			refcount_inc(&b->k[i]->refcnt);
}

/*
 * The whole of @b reached user memory with ctl_mutex held since it was
 * taken: remove the final kevents, which nothing can have changed (MODIFY
 * and removal need ctl_mutex), and drop their references.
 */
static void kevent_batch_done(struct kevent_queue *q, struct kevent_batch *b)
{
	unsigned int i;

	lockdep_assert_held(&q->ctl_mutex);
	for (i = 0; i < b->n; i++) {
		struct kevent *k = b->k[i];

		if (!kevent_batch_final(b, i))
			continue;
		if (k->in_tree && k->gen == b->gen[i])
			kevent_remove(k, true);
		kevent_put(k);
	}
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
	struct ukevent *e = &k->event;
	unsigned long flags;
	bool same;

	spin_lock_irqsave(&k->ulock, flags);
	same = k->gen == gen;
	if (same) {
		e->ret_flags |= uk->ret_flags;
		if (k->callbacks.counts)
			e->ret_data[0] = min_t(u64, (u64)e->ret_data[0] +
						    uk->ret_data[0], U32_MAX);
		else
			e->ret_data[0] |= uk->ret_data[0];
		if (!e->ret_data[1])
			e->ret_data[1] = uk->ret_data[1];
	}
	spin_unlock_irqrestore(&k->ulock, flags);
	if (same)
		kevent_ready_return(k, pass);
}

/*
 * The end of a batch whose copy faulted, under ctl_mutex: the snapshots
 * past b->copied go back (so no other delivery of the same kevent is
 * between its take and its snapshot meanwhile), the copied final ones
 * (ONESHOT, broken) are removed unless MODIFY changed them since.  Drops
 * the batch's references.
 */
static void kevent_batch_settle(struct kevent_queue *q, struct kevent_batch *b)
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
static void kevent_orphans_finish(struct kevent_queue *q)
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

/*
 * The first @copied snapshots of @b reached user memory, after ctl_mutex
 * was dropped for a copy that could fault: settle the batch under
 * ctl_mutex.  A collector killed while another caller holds ctl_mutex (in
 * a ->poll that sleeps) does not wait: it leaves the batch on the queue,
 * and the holder settles it when it unlocks.  Either way every kevent of
 * the batch ends delivered (and removed when final) or queued again.
 */
static void kevent_batch_finish(struct kevent_queue *q, struct kevent_batch *b,
				unsigned int copied)
{
	struct kevent_batch *orphan;
	bool final = false;
	unsigned int i;

	for (i = 0; i < copied; i++)
		final |= kevent_batch_final(b, i);
	if (!final && copied == b->n) {
		/* All delivered and none to remove: only the references. */
		for (i = 0; i < b->n; i++)
			kevent_put(b->k[i]);
		return;
	}
	b->copied = copied;
	if (!mutex_lock_killable(&q->ctl_mutex)) {
		kevent_batch_settle(q, b);
		kevent_queue_unlock(q);
		return;
	}
	/* Small, and the kevents must not be left behind: may not fail. */
	orphan = kmemdup(b, sizeof(*b), GFP_KERNEL | __GFP_NOFAIL);
	spin_lock(&q->orphan_lock);
	list_add_tail(&orphan->orphan, &q->orphans);
	spin_unlock(&q->orphan_lock);
	/* Pairs with the smp_mb() in kevent_queue_unlock(). */
	smp_mb();
	if (mutex_trylock(&q->ctl_mutex))
		kevent_queue_unlock(q);
}

/*
 * Copy @len bytes to user memory without taking a page fault, under a lock
 * that a fault must not sleep under.  Returns the bytes not copied: a page
 * that is not there (or not writable yet) fails the copy, and the caller
 * copies again with the lock dropped.
 */
static unsigned long kevent_copy_nofault(void __user *to, const void *from,
					 unsigned long len)
{
	unsigned long left;

	pagefault_disable();
	left = copy_to_user(to, from, len);
	pagefault_enable();
	return left;
}

/*
 * Deliver up to @max ready kevents of the collection pass *@pass to @buf
 * (one batch).  Returns how many were
 * copied; 0 when none was ready, with *@more set when the batch gave up
 * on not-ready kevents before the pass's end (the caller goes on);
 * -EFAULT when the first copy faulted (the kevent stays ready), -EINTR on
 * a signal while waiting for ctl_mutex.
 *
 * The batch is copied while ctl_mutex is still held, with page faults
 * disabled (as epoll copies under ep->mtx, but it may take the fault): no
 * reference, no second acquisition for a ONESHOT kevent.  Only when that
 * copy faults are references taken, ctl_mutex dropped, and the batch
 * copied again where a fault may sleep.
 */
static long kevent_deliver_to_buf(struct kevent_queue *q,
				  struct ukevent __user *buf, unsigned int max,
				  u64 *pass, bool *more)
{
	struct kevent_batch b;
	unsigned long left = 0;
	unsigned int copied;
	unsigned int n;

	*more = false;
	if (kevent_collect_lock(&q->ctl_mutex))
		return -EINTR;
	kevent_orphans_finish(q);
	n = kevent_batch_take(q, &b, max, pass);
	if (n) {
		left = kevent_copy_nofault(buf, b.uk, n * sizeof(b.uk[0]));
		if (!left)
			kevent_batch_done(q, &b);
		else
			kevent_batch_hold(&b);
	}
	kevent_queue_unlock(q);
	*more = b.more;
	if (!n)
		return 0;
	copied = n;
	if (left) {
		left = copy_to_user(buf, b.uk, n * sizeof(b.uk[0]));
		copied = n - DIV_ROUND_UP(left, sizeof(b.uk[0]));
		kevent_batch_finish(q, &b, copied);
	}
	atomic_long_add(copied, &q->wait_num);
	return copied ? (long)copied : -EFAULT;
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

static void kevent_pass_init(struct kevent_pass *p)
{
	p->pass = 0;
	p->end = 0;
}

/*
 * After a batch: whether the pass may take another.  Not past its time
 * budget, nor with a signal pending (the caller returns what it copied),
 * so a call ends by its deadline plus a bound that does not grow with the
 * number of kevents, the buffer or ring size, or the timers' periods.
 */
static bool kevent_pass_goes_on(struct kevent_pass *p)
{
	u64 now;

	if (signal_pending(current))
		return false;
	now = ktime_get_ns();
	if (!p->end)
		p->end = now + KEVENT_PASS_NS;
	else if (now > p->end)
		return false;
	cond_resched();
	return true;
}

static ktime_t kevent_deadline(u64 timeout)
{
	if (timeout > KTIME_MAX)
		return KTIME_MAX;
	return ktime_add_safe(ktime_get(), ns_to_ktime(timeout));
}

/*
 * Wait until at least @min_nr kevents are ready, *@deadline passes or a
 * signal comes.  Returns 0 (ready or not, the caller looks), -ETIME at the
 * deadline, -EINTR on a signal.  With enough kevents ready it returns at
 * once, as ep_poll() does: no clock read, no wait entry, no timer.  The
 * deadline (0: not set yet) is set from @timeout the first time the call
 * has to wait.
 */
static int kevent_wait_ready(struct kevent_queue *q, unsigned int min_nr,
			     u64 timeout, ktime_t *deadline)
{
	long ret;

	if (kevent_queue_ready_num(q) >= min_nr) {
		/*
		 * Ready: no wait.  A later round of the same call (the
		 * kevents turned out not ready at delivery, or another task
		 * took them, and they are ready again) still ends at the
		 * deadline, which is set here at the latest.
		 */
		if (timeout == KEVENT_WAIT_FOREVER)
			return 0;
		if (!*deadline) {
			*deadline = kevent_deadline(timeout);
			return 0;
		}
		return ktime_compare(*deadline, ktime_get()) <= 0 ? -ETIME : 0;
	}
	if (timeout == KEVENT_WAIT_FOREVER) {
		ret = wait_event_interruptible(q->wait,
				kevent_queue_ready_num(q) >= min_nr);
	} else {
		ktime_t left;

		if (!*deadline)
			*deadline = kevent_deadline(timeout);
		left = ktime_sub(*deadline, ktime_get());

		if (ktime_compare(left, 0) <= 0)
			return -ETIME;
		ret = wait_event_interruptible_hrtimeout(q->wait,
				kevent_queue_ready_num(q) >= min_nr, left);
	}
	if (ret == -ERESTARTSYS)
		return -EINTR;
	return ret;
}

/**
 * kevent_queue_get_events() - the body of kevent_get_events()
 * @q: the queue
 * @min_nr: wait until this many kevents are ready
 * @max_nr: copy at most this many
 * @timeout: relative, in nanoseconds; 0 does not wait, KEVENT_WAIT_FOREVER
 *           waits without limit
 * @buf: the user buffer
 * @nonblock: never wait (O_NONBLOCK)
 *
 * A waiter woken when others took the events, or whose events turned out
 * not ready at delivery, keeps waiting until its timeout.  Every round
 * either sleeps or takes kevents off the ready list, and a signal ends
 * the call, so no caller spins.  A round is one collection pass
 * (struct kevent_pass): each kevent at most once, so a kevent that is ready
 * again at once (a 1 ns timer) cannot keep a call going.  The ring is
 * not touched.
 *
 * Return: the number of kevents copied (0 at the timeout), -EINTR when a
 * signal came before any was copied, -EFAULT when the first copy faulted.
 */
long kevent_queue_get_events(struct kevent_queue *q, unsigned int min_nr,
			    unsigned int max_nr, u64 timeout,
			    struct ukevent __user *buf, bool nonblock)
{
	bool wait = timeout && !nonblock;
	struct kevent_pass p;
	ktime_t deadline = 0;
	unsigned int num;
	bool more;
	long ret;
	int err;

	for (;;) {
		err = wait ? kevent_wait_ready(q, min_nr, timeout, &deadline) : 0;
		if (err == -EINTR)
			return err;

		/* Nothing ready: no lock taken (ep_events_available()). */
		num = 0;
		kevent_pass_init(&p);
		while (num < max_nr && kevent_queue_ready_num(q)) {
			ret = kevent_deliver_to_buf(q, buf + num, max_nr - num,
						    &p.pass, &more);
			if (ret < 0 && !num)
				return ret;
			/*
			 * Nothing copied ends the pass, unless the batch gave
			 * up on kevents not ready at delivery.
			 */
			if (ret < 0 || (!ret && !more))
				break;
			num += ret;
			if (num >= max_nr || !kevent_pass_goes_on(&p))
				break;
		}
		if (num || !wait || err || !min_nr)
			return num;
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/**
 * kevent_queue_ring_init() - register the user's ring
 * @q: the queue
 * @ring: the ring, @num events after its header
 * @num: ring size
 *
 * Return: 0; -EINVAL for @num below 2 (kevent_wait() keeps one slot free,
 * so a ring of one slot could never be filled) or a size that overflows,
 * -EFAULT when the ring is not writable user memory, -EBUSY when the queue
 * has a ring, -EINTR on a fatal signal.
 */
long kevent_queue_ring_init(struct kevent_queue *q,
			   struct kevent_ring __user *ring, unsigned int num)
{
	size_t size;
	long err = 0;

	if (num < 2)
		return -EINVAL;
	size = struct_size_t(struct kevent_ring, event, num);
	if (size == SIZE_MAX || size > MAX_RW_COUNT)
		return -EINVAL;
	if (!access_ok(ring, size) ||
	    fault_in_safe_writeable((const char __user *)ring, size))
		return -EFAULT;

	if (mutex_lock_killable(&q->ring_lock))
		return -EINTR;
	if (q->pring) {
		err = -EBUSY;
	} else if (put_user(0, &ring->ring_kidx)) {
		err = -EFAULT;
	} else {
		q->pring = ring;
		q->ring_size = num;
		q->kidx = 0;
	}
	mutex_unlock(&q->ring_lock);
	return err;
}

/*
 * Write the snapshots of @b into the ring from *@kidx: one copy up to the
 * ring's end, one after the wrap; then ring_kidx, when any was written.
 * Returns how many were written (0 when ring_kidx could not be) and
 * moves *@kidx past them.  Called with ring_lock held, and with page
 * faults disabled when ctl_mutex is held too.
 */
static unsigned int kevent_ring_copy(struct kevent_queue *q,
				     struct kevent_batch *b, unsigned int *kidx,
				     bool whole)
{
	struct kevent_ring __user *ring = q->pring;
	unsigned int i, run, k = *kidx;

	for (i = 0; i < b->n; i += run) {
		size_t len;
		unsigned long left;

		run = min_t(unsigned int, b->n - i, q->ring_size - k);
		len = run * sizeof(b->uk[0]);
		left = copy_to_user(&ring->event[k], &b->uk[i], len);
		if (left) {
			run -= DIV_ROUND_UP(left, sizeof(b->uk[0]));
			i += run;
			k += run;
			break;
		}
		k += run;
		if (k >= q->ring_size)
			k = 0;
	}
	/*
	 * @whole (the pass with page faults off): a batch written in part
	 * publishes nothing, as the pass that may fault writes it again
	 * from the same index; the application never sees entries taken
	 * back.
	 */
	if (!i || (whole && i < b->n) || put_user(k, &ring->ring_kidx))
		return 0;
	*kidx = k;
	return i;
}

/*
 * Write up to @num ready kevents into the ring at q->kidx, then ring_kidx:
 * one collection pass, as kevent_queue_get_events() makes.  Called with
 * ring_lock held.  A batch whose ring_kidx cannot be written
 * goes back to the ready list whole: the index the application reads and
 * the entries it finds always agree.  As kevent_deliver_to_buf(), a batch
 * is written with ctl_mutex still held and page faults disabled, and
 * again with ctl_mutex dropped only when that faulted.  Returns the
 * number written, 0 when none was ready, -EFAULT when the first write
 * faulted, -EINTR.
 */
static long kevent_ring_fill(struct kevent_queue *q, unsigned int num)
{
	unsigned int done = 0;
	struct kevent_batch b;
	struct kevent_pass p;

	lockdep_assert_held(&q->ring_lock);
	kevent_pass_init(&p);
	while (done < num) {
		unsigned int i = 0, n, kidx = q->kidx;

		if (kevent_collect_lock(&q->ctl_mutex))
			return done ? (long)done : -EINTR;
		kevent_orphans_finish(q);
		n = kevent_batch_take(q, &b, num - done, &p.pass);
		if (n) {
			pagefault_disable();
			i = kevent_ring_copy(q, &b, &kidx, true);
			pagefault_enable();
			if (i == n)
				kevent_batch_done(q, &b);
			else
				kevent_batch_hold(&b);
		}
		kevent_queue_unlock(q);
		/*
		 * Nothing taken ends the pass, unless the batch gave up on
		 * kevents not ready at delivery.
		 */
		if (!n && !b.more)
			break;
		if (i < n) {
			kidx = q->kidx;
			i = kevent_ring_copy(q, &b, &kidx, false);
			kevent_batch_finish(q, &b, i);
		}
		if (i)
			q->kidx = kidx;
		done += i;
		atomic_long_add(i, &q->ring_num);
		if (i < n)
			return done ? (long)done : -EFAULT;
		if (done >= num || !kevent_pass_goes_on(&p))
			break;
	}
	return done;
}

/**
 * kevent_queue_wait() - the body of kevent_wait()
 * @q: the queue
 * @num: copy at most this many kevents into the ring; above 0 and below
 *       the ring size
 * @timeout: as for kevent_queue_get_events()
 * @nonblock: never wait
 *
 * Events go to the ring at the kernel index, wrapping at the ring size;
 * afterwards ring_kidx is the slot the kernel fills next.  Entries the
 * application has not read yet are overwritten.
 *
 * Return: the number of kevents written, -EINVAL without a ring or with
 * @num 0 or not below its size, -EINTR on a signal, -EFAULT when the first
 * write faulted (the kevent stays ready).
 */
long kevent_queue_wait(struct kevent_queue *q, unsigned int num, u64 timeout,
		      bool nonblock)
{
	bool wait = timeout && !nonblock;
	ktime_t deadline = 0;
	bool first = true;
	long ret;
	int err;

	if (!num)
		return -EINVAL;
	for (;;) {
		/*
		 * The first round fills without waiting: with kevents ready
		 * that is what a wait would do, and the ring's checks take
		 * the same lock as the fill.
		 */
		err = wait && !first ? kevent_wait_ready(q, 1, timeout, &deadline) : 0;
		if (err == -EINTR)
			return err;

		if (kevent_collect_lock(&q->ring_lock))
			return -EINTR;
		if (!q->pring || num >= q->ring_size)
			ret = -EINVAL;
		else
			ret = kevent_ring_fill(q, num);
		mutex_unlock(&q->ring_lock);

		if (ret || !wait || err)
			return ret;
		if (signal_pending(current))
			return -EINTR;
		first = false;
		cond_resched();
	}
}

static __poll_t kevent_queue_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kevent_queue *q = file->private_data;

	if (!poll_does_not_wait(wait)) {
		poll_wait(file, &q->wait, wait);
		/*
		 * Pairs with wq_has_sleeper() in kevent_ready_add(): the entry
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

static const struct file_operations kevent_queue_fops = {
	.owner		= THIS_MODULE,
	.open		= kevent_queue_open,
	.release	= kevent_queue_release,
	.poll		= kevent_queue_poll,
#ifdef CONFIG_PROC_FS
	.show_fdinfo	= kevent_queue_show_fdinfo,
#endif
};

/**
 * is_kevent_file() - whether a file is a kevent queue
 * @file: the file
 *
 * Return: true for an open /dev/kevent (or kevent_queue_getfd()) file.
 */
bool is_kevent_file(const struct file *file)
{
	return file->f_op == &kevent_queue_fops;
}

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
