// SPDX-License-Identifier: GPL-2.0+
/*
 * User space: kevent_ctl() ADD, REMOVE and MODIFY, one and many entries,
 * below and above the seed's batch threshold (3) and kevent_ctl's chunk
 * (64), compaction of the answers, per-entry answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include "common.h"
#include "kselftest_harness.h"

/* n timers with distinct periods (1 s + i ns, so none fires meanwhile). */
static struct ukevent *timers(unsigned int n)
{
	struct ukevent *uk = calloc(n, sizeof(*uk));
	unsigned int i;

	for (i = 0; uk && i < n; i++) {
		uk[i] = kevent_timer(1000 * MS + i, 0);
		uk[i].user[0] = i;
	}
	return uk;
}

/*
 * ADD n, then REMOVE n: every entry answered DONE, none BROKEN; n one,
 * below and above the seed's batch threshold (3), across kevent_ctl's
 * chunks (64).
 */
QUEUE_FIXTURE(ctl_size);

FIXTURE_VARIANT(ctl_size) {
	unsigned int n;
};

FIXTURE_VARIANT_ADD(ctl_size, one) { .n = 1 };
FIXTURE_VARIANT_ADD(ctl_size, three_below_batch_threshold) { .n = 3 };
FIXTURE_VARIANT_ADD(ctl_size, four_above_batch_threshold) { .n = 4 };
FIXTURE_VARIANT_ADD(ctl_size, n200_across_chunks) { .n = 200 };

TEST_F(ctl_size, add_remove)
{
	unsigned int i, n = variant->n;
	struct ukevent *uk = timers(n);

	ASSERT_NE(NULL, uk);
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, n, uk));
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, n, uk));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(KEVENT_RET_DONE, uk[i].ret_flags) TH_LOG("entry %u", i);
		EXPECT_EQ(i, uk[i].user[0]);
	}
	/* All gone: removing again finds nothing. */
	for (i = 0; i < n; i++)
		uk[i].ret_flags = 0;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, n, uk));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[i].ret_flags);
		EXPECT_EQ(-ENOENT, (int)uk[i].ret_data[1]);
	}
	free(uk);
}

TEST_F(queue, num_zero_does_nothing)
{
	EXPECT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, 0, NULL));
	EXPECT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, 0, NULL));
	EXPECT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_MODIFY, 0, NULL));
}

/* Failed entries are written back, compacted, in order, across chunks. */
TEST_F(queue, add_compacts_failed_entries_across_chunks)
{
	enum { N = 150 };
	struct ukevent *uk = timers(N);
	int i, j = 0;

	ASSERT_NE(NULL, uk);
	for (i = 0; i < N; i += 10)
		uk[i].id.raw[1] = 0, uk[i].id.raw[0] = 0;	/* zero period */
	ASSERT_EQ(N / 10, kevent_ctl(self->fd, KEVENT_CTL_ADD, N, uk));
	for (i = 0; i < N / 10; i++, j += 10) {
		EXPECT_EQ((__u32)j, uk[i].user[0]);
		EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[i].ret_flags);
		EXPECT_EQ(-EINVAL, (int)uk[i].ret_data[1]);
	}
	/* Past the answers the array is as the caller wrote it. */
	EXPECT_EQ(0U, uk[N / 10].ret_flags);
	free(uk);
}

TEST_F(queue, add_duplicate_key_in_one_call_eexist)
{
	struct ukevent uk[2] = { kevent_timer(7 * MS, 0), kevent_timer(7 * MS, KEVENT_REQ_ET) };

	uk[1].user[0] = 2;
	ASSERT_EQ(1, kevent_ctl(self->fd, KEVENT_CTL_ADD, 2, uk));
	EXPECT_EQ(2U, uk[0].user[0]);
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[0].ret_flags);
	EXPECT_EQ(-EEXIST, (int)uk[0].ret_data[1]);
}

/* REMOVE answers every entry on its own, even past the number queued. */
TEST_F(queue, remove_answers_each_entry)
{
	struct ukevent uk[5];
	int i;

	for (i = 0; i < 5; i++)
		uk[i] = kevent_timer(1000 * MS + i, 0);
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, 2, uk));
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, 5, uk));
	EXPECT_EQ(KEVENT_RET_DONE, uk[0].ret_flags);
	EXPECT_EQ(KEVENT_RET_DONE, uk[1].ret_flags);
	for (i = 2; i < 5; i++) {
		EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk[i].ret_flags);
		EXPECT_EQ(-ENOENT, (int)uk[i].ret_data[1]);
	}
}

/*
 * MODIFY with event bits the storage never reports: refused (-EINVAL),
 * the kevent unchanged; new bits it reports restart delivery.
 */
TEST_F(queue, modify_to_bits_matching_nothing_refused)
{
	struct ukevent uk = kevent_timer(2 * MS, 0), ev;

	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, 1, &uk));
	uk.event = 0;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_MODIFY, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(-EINVAL, (int)uk.ret_data[1]);
	EXPECT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
	uk.event = KEVENT_TIMER_FIRED;
	uk.ret_flags = 0;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_MODIFY, 1, &uk));
	EXPECT_EQ(KEVENT_RET_DONE, uk.ret_flags);
	EXPECT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
}

/* MODIFY to ONESHOT: delivered once more, then gone. */
TEST_F(queue, modify_to_oneshot)
{
	struct ukevent uk = kevent_timer(2 * MS, 0), ev;

	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, 1, &uk));
	uk.req_flags = KEVENT_REQ_ONESHOT;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_MODIFY, 1, &uk));
	/* An expiration pending at MODIFY is delivered with the new flags. */
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
	EXPECT_EQ(KEVENT_REQ_ONESHOT, ev.req_flags);
	EXPECT_EQ(0, kevent_get_events(self->fd, 1, 1, 10 * MS, &ev, 0));
	uk.ret_flags = 0;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_REMOVE, 1, &uk));
	EXPECT_EQ(KEVENT_RET_BROKEN | KEVENT_RET_DONE, uk.ret_flags);
}

/* The application's data comes back untouched with the event. */
TEST_F(queue, user_data_round_trips)
{
	struct ukevent uk = kevent_timer(MS, KEVENT_REQ_ONESHOT), ev;
	static int cookie;

	uk.ptr = &cookie;
	ASSERT_EQ(0, kevent_ctl(self->fd, KEVENT_CTL_ADD, 1, &uk));
	ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
	EXPECT_EQ(&cookie, ev.ptr);
}

/* ET: each new expiration is a new edge, reported again. */
TEST_F(queue, et_timer_reported_per_expiration)
{
	struct ukevent ev;
	int i;

	ASSERT_EQ(0, add_timer(self->fd, 2 * MS, KEVENT_REQ_ET));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, kevent_get_events(self->fd, 1, 1, 100 * MS, &ev, 0));
		EXPECT_EQ(KEVENT_RET_DONE, ev.ret_flags);
		EXPECT_LE(1U, ev.ret_data[0]);
	}
}

TEST_HARNESS_MAIN
