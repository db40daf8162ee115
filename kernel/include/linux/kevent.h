/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent: the unified kernel event queue, what the rest of the kernel
 * calls.
 *
 * 2006 Copyright (c) Evgeniy Polyakov <johnpol@2ka.mipt.ru>
 *
 * Only the hook __fput() calls, as <linux/eventpoll.h> has
 * eventpoll_release().  The objects and the storage API are private to
 * kernel/kevent/ (kevent_storage.h, kevent_internal.h); the user ABI is
 * <uapi/linux/ukevent.h>.
 */
#ifndef _LINUX_KEVENT_H
#define _LINUX_KEVENT_H

#include <linux/compiler.h>
#include <linux/fs.h>

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
