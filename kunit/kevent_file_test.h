/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Helpers of the poll and socket suites: a queue, fds of the test thread
 * for in-kernel pipes and sockets, and ADD/REMOVE/MODIFY/get through the
 * queue API.
 */
#ifndef _KEVENT_FILE_TEST_H
#define _KEVENT_FILE_TEST_H

#include <kunit/test.h>
#include "../kevent_internal.h"

#define KF_QUEUES	3
#define KF_FDS		16

struct kf_ctx {
	struct kevent_queue	*q[KF_QUEUES];	/* q[0] is the usual queue */
	struct ukevent __user	*buf;
	int			fds[KF_FDS];	/* closed at exit */
	int			nr_fds;
};

int kf_init(struct kunit *test);
void kf_exit(struct kunit *test);

/* Install @file as an fd of the test thread; closed at exit. */
int kf_fd(struct kunit *test, struct file *file);
/* Close an fd of kf_fd() early (it is skipped at exit). */
void kf_close(struct kunit *test, int fd);
/* A pipe: fds[0] reads, fds[1] writes. */
void kf_pipe(struct kunit *test, int fds[2]);
/* Write @len bytes to @fd; returns kernel_write()'s value. */
ssize_t kf_write(int fd, size_t len);
/* Read up to @len bytes from @fd; returns kernel_read()'s value. */
ssize_t kf_read(int fd, size_t len);

struct ukevent kf_uk(u32 type, int fd, u32 event, u32 req_flags);
/* ADD, REMOVE and MODIFY one entry on queue @qi; the answer is left in @uk. */
int kf_add(struct kf_ctx *c, int qi, struct ukevent *uk);
int kf_remove(struct kf_ctx *c, int qi, struct ukevent *uk);
int kf_modify(struct kf_ctx *c, int qi, struct ukevent *uk);
/* Deliver one event of queue @qi, waiting up to @timeout ns; 1 or 0. */
long kf_get(struct kunit *test, struct kf_ctx *c, int qi, u64 timeout,
	    struct ukevent *out);

#endif
