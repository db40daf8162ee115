# SPDX-License-Identifier: GPL-2.0
# The per-file checks of lint (scripts/lint.py runs this with make -k), as
# make rules: each check of a file makes an empty file under $(OUT) when
# the file is clean, dated when the check began (so a file edited while it
# was checked is checked again), and a run after an edit checks only what
# changed since it was last clean.  A check that fails prints what it
# found and makes nothing, so the next run checks the file again.  What
# the checkers are (their programs' versions, checkpatch's data, this
# file) is in $(OUT)'s name: lint.py gives each its own.
#
# From lint.py: REPO, TREE, OUT, PYTHON, and the files, relative to REPO:
# SOURCES (checkpatch), SHELLS (shellcheck), PAGES (groff), SELFTEST
# (what the harness's self-tests read; their names and modes are in
# $(OUT)/selftest.inputs, rewritten only when they change).

this := $(abspath $(lastword $(MAKEFILE_LIST)))
# The time a recipe began, and the mark made with it.
began = began=$$(date +%s.%N)
mark = touch -d "@$$began" $@

all: $(SOURCES:%=$(OUT)/checkpatch/%) $(SHELLS:%=$(OUT)/shellcheck/%) \
	$(PAGES:%=$(OUT)/man/%) $(OUT)/selftest
.PHONY: all

# checkpatch.pl, in the tree so it finds its spelling and const lists.
# ENOSYS is ignored on purpose: kevent gives -ENOSYS to a known kevent
# type whose storage is not built (as Drepper asked in 2006; see
# "kevent_ctl()" in kernel/Documentation/userspace-api/kevent.rst), which
# checkpatch reserves for unknown syscalls.
$(OUT)/checkpatch/%: $(REPO)/%
	@mkdir -p $(@D); $(began); \
	cd $(TREE) && perl scripts/checkpatch.pl --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,ENOSYS -f $< >$@.log 2>&1 || \
		{ echo "lint: checkpatch: $*" >&2; grep -v '^total:' $@.log >&2; exit 1; }; \
	$(mark)

# shellcheck, following what a script sources (lib.sh).
$(OUT)/shellcheck/%: $(REPO)/% $(REPO)/scripts/lib.sh
	@mkdir -p $(@D); $(began); \
	cd $(REPO) && shellcheck -x $* || { echo "lint: shellcheck: $*" >&2; exit 1; }; \
	$(mark)

# The manual pages: groff warnings of any kind are findings.
$(OUT)/man/%: $(REPO)/%
	@mkdir -p $(@D); $(began); \
	groff -man -ww -z $< >$@.log 2>&1 && ! [ -s $@.log ] || \
		{ echo "lint: man page: $*" >&2; cat $@.log >&2; exit 1; }; \
	$(mark)

# The harness's own logic, on recorded inputs: again when a file it reads
# (scripts/, coverage/) changed, or one came, went or changed its mode.
$(OUT)/selftest: $(SELFTEST:%=$(REPO)/%) $(OUT)/selftest.inputs
	@mkdir -p $(@D); $(began); \
	$(PYTHON) $(REPO)/scripts/test_harness.py >$@.log 2>&1 || \
		{ cat $@.log >&2; echo "lint: harness self-tests" >&2; exit 1; }; \
	echo "selftest: $$(tail -n 3 $@.log | head -n 1)"; \
	$(mark)
