/* SPDX-License-Identifier: GPL-2.0+ */
#ifndef _LINUX_KEVENT_STORAGE_H
#define _LINUX_KEVENT_STORAGE_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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

#endif /* _LINUX_KEVENT_STORAGE_H */
