// SPDX-License-Identifier: GPL-2.0+
/*
 * The ABI of kernel/Documentation/userspace-api/kevent.rst ("The ABI"),
 * checked at compile time against <linux/ukevent.h> as installed by make
 * headers_install, in a plain user program.
 */
#include <stddef.h>
#include <linux/ukevent.h>
#include <asm/unistd.h>

_Static_assert(sizeof(struct ukevent) == 40, "struct ukevent is 40 bytes");
_Static_assert(_Alignof(struct ukevent) == 8, "struct ukevent is 8-aligned");
_Static_assert(sizeof(struct kevent_id) == 8, "struct kevent_id is 8 bytes");
_Static_assert(offsetof(struct ukevent, id) == 0, "id");
_Static_assert(offsetof(struct ukevent, type) == 8, "type");
_Static_assert(offsetof(struct ukevent, event) == 12, "event");
_Static_assert(offsetof(struct ukevent, req_flags) == 16, "req_flags");
_Static_assert(offsetof(struct ukevent, ret_flags) == 20, "ret_flags");
_Static_assert(offsetof(struct ukevent, ret_data) == 24, "ret_data");
_Static_assert(offsetof(struct ukevent, user) == 32, "user");
_Static_assert(offsetof(struct ukevent, ptr) == 32, "ptr");
_Static_assert(offsetof(struct kevent_ring, ring_kidx) == 0, "ring_kidx");
_Static_assert(offsetof(struct kevent_ring, event) == 8, "ring events at 8");

_Static_assert(KEVENT_REQ_ONESHOT == 0x1 && KEVENT_REQ_WAKEUP_ONE == 0x2 &&
	       KEVENT_REQ_ET == 0x4, "request flags");
_Static_assert(KEVENT_RET_BROKEN == 0x1 && KEVENT_RET_DONE == 0x2 &&
	       KEVENT_RET_COPY_FAILED == 0x4, "return flags");
_Static_assert(KEVENT_SOCKET == 0 && KEVENT_INODE == 1 && KEVENT_TIMER == 2 &&
	       KEVENT_POLL == 3 && KEVENT_NAIO == 4 && KEVENT_AIO == 5 &&
	       KEVENT_MAX == 6, "types");
_Static_assert(KEVENT_CTL_ADD == 0 && KEVENT_CTL_REMOVE == 1 &&
	       KEVENT_CTL_MODIFY == 2, "commands");
_Static_assert(KEVENT_WAIT_FOREVER == ~0ULL, "KEVENT_WAIT_FOREVER");
_Static_assert(__NR_kevent_get_events == 463 && __NR_kevent_ctl == 464 &&
	       __NR_kevent_wait == 465 && __NR_kevent_ring_init == 466,
	       "syscall numbers");

int main(void)
{
	return 0;
}
