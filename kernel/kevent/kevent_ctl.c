// SPDX-License-Identifier: GPL-2.0+
/*
 * kevent: kevent_ctl(), adding, removing and modifying kevents.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 * Forward-ported to Linux 6.12 with the seed's bugs fixed and hardened
 * against hostile callers: Documentation/userspace-api/kevent.rst.
 *
 * Objects
 * -------
 * kevent_ctl() reads the caller's entries in chunks of at most
 * KEVENT_CTL_CHUNK and applies each (ADD, REMOVE, MODIFY), with its result
 * in ret_flags and ret_data.  REMOVE and MODIFY answer every entry in
 * place; ADD writes back only the entries that were ready or failed,
 * compacted at the start of the buffer, and returns their number.  An
 * entry that fails does not end the call.  ADD charges the owner's
 * per-user count, capped by fs.kevent.max_user_kevents
 * (kevent_max_user_kevents), and attaches the new kevent to its storage
 * (->enqueue); a kevent ready at once is reported in its entry
 * (KEVENT_RET_DONE) and not kept.
 *
 * Locking
 * -------
 * The lock order is written once, at the top of kevent.c.  Here: each
 * chunk is applied under ctl_mutex, taken killably, and the user copies
 * are made without it; storage ->enqueue and ->dequeue run under
 * ctl_mutex (never under a spinlock).  The loop reschedules between
 * chunks, whatever num.
 */

#define pr_fmt(fmt) "kevent: " fmt

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/uaccess.h>
#include "kevent_internal.h"

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
	spin_lock_irq(&q->ready_lock);
	*uk = k->event;
	spin_unlock_irq(&q->ready_lock);
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
