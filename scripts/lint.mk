# SPDX-License-Identifier: GPL-2.0
# The per-file checks of lint (scripts/lint.py runs this with make -k), as
# make rules: each check of a file makes an empty file under $(OUT) when
# the file is clean, so a run after an edit checks only what changed since
# it was last clean, or what its checker (the program, its data, this
# file) changed under.  A check that fails prints what it found and makes
# nothing, so the next run checks the file again.
#
# From lint.py: REPO, TREE, OUT, and the files, relative to REPO:
# SOURCES (checkpatch), SHELLS (shellcheck), PAGES (groff), SELFTEST
# (what the harness's self-tests read).

this := $(abspath $(lastword $(MAKEFILE_LIST)))
checkpatch := $(TREE)/scripts/checkpatch.pl $(TREE)/scripts/spelling.txt \
	$(TREE)/scripts/const_structs.checkpatch
shellcheck := $(shell command -v shellcheck)
python := $(shell command -v $(PYTHON))

all: $(SOURCES:%=$(OUT)/checkpatch/%) $(SHELLS:%=$(OUT)/shellcheck/%) \
	$(PAGES:%=$(OUT)/man/%) $(OUT)/selftest
.PHONY: all

# checkpatch.pl, in the tree so it finds its spelling and const lists.
# ENOSYS is ignored on purpose: kevent gives -ENOSYS to a known kevent
# type whose storage is not built (as Drepper asked in 2006; see
# "kevent_ctl()" in kernel/Documentation/userspace-api/kevent.rst), which
# checkpatch reserves for unknown syscalls.
$(OUT)/checkpatch/%: $(REPO)/% $(checkpatch) $(this)
	@mkdir -p $(@D)
	@cd $(TREE) && perl scripts/checkpatch.pl --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,ENOSYS -f $< >$@.log 2>&1 || \
		{ echo "lint: checkpatch: $*" >&2; grep -v '^total:' $@.log >&2; exit 1; }
	@touch $@

# shellcheck, following what a script sources (lib.sh).
$(OUT)/shellcheck/%: $(REPO)/% $(REPO)/scripts/lib.sh $(shellcheck) $(this)
	@mkdir -p $(@D)
	@cd $(REPO) && shellcheck -x $* || { echo "lint: shellcheck: $*" >&2; exit 1; }
	@touch $@

# The manual pages: groff warnings of any kind are findings.
$(OUT)/man/%: $(REPO)/% $(this)
	@mkdir -p $(@D)
	@groff -man -ww -z $< >$@.log 2>&1 && ! [ -s $@.log ] || \
		{ echo "lint: man page: $*" >&2; cat $@.log >&2; exit 1; }
	@touch $@

# The harness's own logic, on recorded inputs: again when a file it reads
# (scripts/, coverage/) or the Python that runs it changed.
$(OUT)/selftest: $(SELFTEST:%=$(REPO)/%) $(python) $(this)
	@mkdir -p $(@D)
	@$(PYTHON) $(REPO)/scripts/test_harness.py >$@.log 2>&1 || \
		{ cat $@.log >&2; echo "lint: harness self-tests" >&2; exit 1; }
	@echo "selftest: $$(tail -n 3 $@.log | head -n 1)"
	@touch $@
