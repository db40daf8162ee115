/* SPDX-License-Identifier: GPL-2.0+ */
#ifndef _LINUX_KEVENT_STORAGE_H
#define _LINUX_KEVENT_STORAGE_H

#include <linux/list.h>
#include <linux/spinlock.h>

/**
 * struct kevent_storage - the kevents watching one origin
 * @origin: the object the events come from (a timer, a file, a socket).
 * @list: the kevents attached to this origin, linked by storage_entry.
 * @lock: protects @list and the attachment of each kevent on it; the
 *        readiness callbacks of the kevents run under it.
 */
struct kevent_storage {
	void			*origin;
	struct list_head	list;
	spinlock_t		lock;
};

#endif /* _LINUX_KEVENT_STORAGE_H */
