// SPDX-License-Identifier: GPL-2.0+
/*
 * The test storage shared by the kevent KUnit suites.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include "../kevent_internal.h"
#include "kevent_test_storage.h"

static struct kt_ctx *kt_current;

static int kt_callback(struct kevent *k)
{
	struct kt_origin *o = k->priv;

	o->callbacks++;
	if (o->entered) {
		unsigned int us;

		/*
		 * Up to 50 ms, counted by the delay loop: the storage lock is
		 * held with interrupts off, and with a tick-based clocksource
		 * (jiffies, when this CPU keeps it) ktime_get() would never
		 * move on.  A callback called with no lock, under
		 * rcu_read_lock() alone (seed bug 9, with preemptible RCU),
		 * sleeps instead, so that on one CPU the remover surely runs
		 * inside the window, not only when the scheduler happens to
		 * preempt a busy loop.
		 */
		complete(o->entered);
		for (us = 0; us < 50 * USEC_PER_MSEC && !READ_ONCE(*o->removed); us++) {
			if (preemptible()) {
				usleep_range(10, 20);
				us += 9;
			} else {
				udelay(1);
			}
		}
	}
	if (o->ready > 0)
		k->event.ret_data[0] = o->ret_data0;
	return o->ready;
}

static int kt_enqueue(struct kevent *k)
{
	struct kt_origin *o;
	int err;

	if (!kt_current || k->event.id.raw[0] >= KT_ORIGINS)
		return -EBADF;
	o = &kt_current->origin[k->event.id.raw[0]];
	o->enqueued++;
	if (o->enqueue_ret < 0)
		return o->enqueue_ret;
	k->priv = o;
	err = kevent_storage_enqueue(&o->st, k);
	if (err)
		return err;
	return o->enqueue_ret;
}

static int kt_dequeue(struct kevent *k)
{
	struct kt_origin *o = k->priv;

	o->dequeued++;
	kevent_storage_dequeue(&o->st, k);
	return 0;
}

static int kt_deliver(struct kevent *k)
{
	struct kt_origin *o = k->priv;

	if (o->in_deliver)
		o->in_deliver(o);
	return o->not_ready_at_delivery ? 0 : 1;
}

static const struct kevent_callbacks kt_callbacks = {
	.callback	= kt_callback,
	.enqueue	= kt_enqueue,
	.dequeue	= kt_dequeue,
	.deliver	= kt_deliver,
	.events		= KEVENT_MASK_ALL,
};

int kt_register(bool deliver_on_recheck, bool counts)
{
	struct kevent_callbacks cb = kt_callbacks;

	cb.deliver_on_recheck = deliver_on_recheck;
	cb.counts = counts;
	return kevent_add_callbacks(&cb, KEVENT_TYPE_KERNEL);
}

int kt_init(struct kunit *test)
{
	struct kt_ctx *c;
	int i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < KT_ORIGINS; i++)
		kevent_storage_init(&c->origin[i], &c->origin[i].st);
	c->q = kevent_queue_create();
	KUNIT_ASSERT_NOT_NULL(test, c->q);
	kt_current = c;
	test->priv = c;
	return kevent_add_callbacks(&kt_callbacks, KEVENT_TYPE_KERNEL);
}

void kt_exit(struct kunit *test)
{
	struct kt_ctx *c = test->priv;

	if (c && c->q && !c->u_borrowed)
		kevent_queue_destroy(c->q);
	kevent_remove_callbacks(KEVENT_TYPE_KERNEL);
	kt_current = NULL;
}

/*
 * The queue kt_init() made goes; kt_add() and friends then work on @q,
 * which its owner (an fd) releases, not kt_exit().
 */
void kt_use_queue(struct kt_ctx *c, struct kevent_queue *q)
{
	if (!c->u_borrowed)
		kevent_queue_destroy(c->q);
	c->q = q;
	c->u_borrowed = true;
}

struct ukevent kt_uk(u32 o, u32 event, u32 req_flags)
{
	struct ukevent uk = {
		.id.raw = { o, 0 },
		.type = KEVENT_TYPE_KERNEL,
		.event = event,
		.req_flags = req_flags,
		.user = { 0xabcd, o },
	};
	return uk;
}

int kt_add(struct kt_ctx *c, u32 o, u32 event, u32 req_flags)
{
	struct ukevent uk = kt_uk(o, event, req_flags);
	int err;

	mutex_lock(&c->q->ctl_mutex);
	err = kevent_queue_add_ukevent(&uk, c->q);
	mutex_unlock(&c->q->ctl_mutex);
	return err;
}

unsigned long kt_user_mem(struct kunit *test, size_t len)
{
	return kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
}

long kt_get(struct kunit *test, struct kt_ctx *c, struct ukevent *out,
	    unsigned int max)
{
	unsigned long ubuf = kt_user_mem(test, max * sizeof(*out));
	long n;

	KUNIT_ASSERT_NE(test, ubuf, 0UL);
	n = kevent_queue_get_events(c->q, 0, max, 0,
				    (struct ukevent __user *)ubuf, false);
	if (n > 0)
		KUNIT_ASSERT_EQ(test, 0UL,
				copy_from_user(out, (void __user *)ubuf,
					       n * sizeof(*out)));
	return n;
}

struct kt_trap {
	void		(*fn)(void *arg);
	void		*arg;
	bool		fail, fired;
	struct page	*page;
};

static vm_fault_t kt_trap_fault(struct vm_fault *vmf)
{
	struct kt_trap *tr = vmf->vma->vm_private_data;

	if (!tr->fired) {
		tr->fired = true;
		tr->fn(tr->arg);
	}
	if (tr->fail)
		return VM_FAULT_SIGBUS;
	get_page(tr->page);
	vmf->page = tr->page;
	return 0;
}

static const struct vm_operations_struct kt_trap_vm_ops = {
	.fault = kt_trap_fault,
};

static int kt_trap_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &kt_trap_vm_ops;
	vma->vm_private_data = file->private_data;
	return 0;
}

static const struct file_operations kt_trap_fops = {
	.owner	= THIS_MODULE,
	.mmap	= kt_trap_mmap,
};

static void kt_trap_free_page(void *page)
{
	__free_page(page);
}

unsigned long kt_trap_mem_at(struct kunit *test, unsigned long at,
			     void (*fn)(void *arg), void *arg, bool fail)
{
	struct kt_trap *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);
	unsigned long addr;
	struct file *file;

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->fn = fn;
	tr->arg = arg;
	tr->fail = fail;
	tr->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, tr->page);
	/* Freed after the mapping, which kunit undoes first (LIFO). */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, kt_trap_free_page,
							   tr->page));
	file = anon_inode_getfile("[kevent-trap]", &kt_trap_fops, tr, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	addr = kunit_vm_mmap(test, file, at, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_SHARED | (at ? MAP_FIXED : 0), 0);
	fput(file);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	if (at)
		KUNIT_ASSERT_EQ(test, addr, at);
	return addr;
}

unsigned long kt_trap_mem(struct kunit *test, void (*fn)(void *arg), void *arg,
			  bool fail)
{
	return kt_trap_mem_at(test, 0, fn, arg, fail);
}
