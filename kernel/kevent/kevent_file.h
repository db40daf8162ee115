/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * kevent: origins that are open files, shared by the poll and socket
 * storages.  See the overview at the top of kevent_file.c.
 */
#ifndef _KEVENT_FILE_H
#define _KEVENT_FILE_H

#include <linux/init.h>
#include <linux/poll.h>
#include "kevent_storage.h"

/**
 * struct kevent_file_ops - what a file storage adds to the common code
 * @check: refuses a file the storage cannot watch (returns -errno), or NULL
 * @event: maps a wake-up's poll mask to the storage's event bits; NULL when
 *         they are the poll bits themselves (a wake-up then makes no call)
 * @ready: what @mask means for @k: >0 ready (results set), 0 not ready,
 *         <0 broken (ret_data[1] set); atomic context.  The file is
 *         kevent_file_of(@k): a wake-up reads it only where it needs it
 * @events: the event bits a kevent of the storage may ask for
 */
struct kevent_file_ops {
	int	(*check)(struct file *file);
	u32	(*event)(__poll_t mask);
	int	(*ready)(struct kevent *k, __poll_t mask);
	u32	events;
};

int __init kevent_file_register(int type, const struct kevent_file_ops *ops);

/* The callbacks kevent_file_register() gives a file storage. */
int kevent_file_enqueue(struct kevent *k);
int kevent_file_dequeue(struct kevent *k);
int kevent_file_callback(struct kevent *k);
int kevent_file_deliver(struct kevent *k);
struct file *kevent_file_of(struct kevent *k);

#endif /* _KEVENT_FILE_H */
