#!/bin/bash
# Lint: checkpatch.pl and kernel-doc on the kevent sources, a W=1 compile
# of them (any compiler warning fails), shellcheck on the harness scripts,
# groff on the manual pages and the harness's self-tests.  Every finding
# is printed; any fails.  (The uapi check compiles with the user-space
# programs, in build_userland.sh, against the headers installed there.)
# checkpatch and shellcheck remember the files they found clean, and the
# self-tests the inputs they passed on (by content, in $LINT_BUILD/clean/),
# and the W=1 compile is incremental: a run after an edit lints what
# changed.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

fail=0
finding() {
	printf 'lint: %s\n' "$*" >&2
	fail=1
}

# 1. checkpatch.pl, in the tree so it finds its spelling and const lists.
# ENOSYS is ignored on purpose: kevent gives -ENOSYS to a known kevent type
# whose storage is not built (as Drepper asked in 2006; see "kevent_ctl()"
# in kernel/Documentation/userspace-api/kevent.rst), which checkpatch
# reserves for unknown syscalls.
mapfile -t sources < <(cd "$REPO" && find kernel/kevent kernel/include kunit \
	kernel/Documentation -name '*.[ch]' -o -name '*.rst' | sort)
# A file found clean is not checked again until it or checkpatch changes
# (its hash in $LINT_BUILD/clean/): a warm run lints what changed.
clean=$LINT_BUILD/clean
mkdir -p "$clean"
tool=$(cat "$TREE/scripts/checkpatch.pl" "$TREE/scripts/spelling.txt" \
	"$TREE/scripts/const_structs.checkpatch" "$0" | sha256sum | cut -c1-16)
# A file's stamp: its content's hash (one sha256sum for all the files)
# and its path (checkpatch treats .h, .rst and uapi/ apart).
declare -A stamp_of=()
stamps_of() {	# file...
	local sum f

	while read -r sum f; do
		stamp_of[$f]=${sum:0:32}-${f//\//_}
	done < <(cd "$REPO" && sha256sum -- "$@")
}
stamps_of "${sources[@]}"
for f in "${sources[@]}"; do
	stamp=$clean/checkpatch-$tool-${stamp_of[$f]}
	[ -e "$stamp" ] && continue
	if ! out=$(cd "$TREE" && perl scripts/checkpatch.pl --no-tree --terse \
		--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,ENOSYS -f "$REPO/$f" 2>&1); then
		finding "checkpatch: $f"
		printf '%s\n' "$out" | grep -v '^total:' >&2
	elif [ "$(cd "$REPO" && sha256sum -- "$f" | cut -c1-32)" = "${stamp_of[$f]%%-*}" ]; then
		: > "$stamp"	# (not when the file changed while it was checked)
	fi
done

# kernel-doc of the API and the suites: every documented function and
# struct complete.  (The W=1 compile checks kernel-doc too, but writes the
# object all the same: it would report a warning once.)
if out=$(cd "$REPO" && perl "$TREE/scripts/kernel-doc" -none -Wall kernel/kevent/*.c \
	kernel/kevent/*.h kernel/include/linux/kevent*.h kunit/*.[ch] 2>&1) && [ -z "$out" ]; then
	:
else
	finding "kernel-doc"
	printf '%s\n' "$out" >&2
fi

# 2. W=1 compile of kernel/kevent/ in its own build dir (the objects of the
# test build stay as they are, with their gcov notes).
# Its configuration is made by kunit_tool from the build's fragments (only
# when lib.sh's config_hash changed), so lint need not wait for the build.
mkdir -p "$LINT_BUILD"
want=$(config_hash)
if ! config_stamped "$LINT_BUILD" "$want"; then
	mapfile -t cfg < <(kunitconfig_args)
	rm -f "$LINT_BUILD/.kevent-config" "$LINT_BUILD"/.kevent-w1-*
	"$PYTHON" "$KUNIT_PY" config --arch um --build_dir "$LINT_BUILD" "${cfg[@]}" \
		>"$LINT_BUILD/config.log" 2>&1 ||
		die "kunit_tool could not configure $LINT_BUILD (see $LINT_BUILD/config.log)"
	printf '%s\n' "$want" >"$LINT_BUILD/.kevent-config"
fi
# -Werror: an object that warned is not written, so the next run compiles
# it (and reports it) again even when its source did not change.  When no
# file of the tree changed since it was last clean (the mark
# $LINT_BUILD/.kevent-w1-TOOL, TOOL covering this script; lib.sh's
# tree_changed_since), there is nothing to compile: make is not run (its
# own checks cost about 4 s of CPU).
w1=$LINT_BUILD/.kevent-w1-$tool
if changed=$(tree_changed_since "$w1") && [ -z "$changed" ]; then
	say "lint: W=1: no file of the tree changed since it was clean"
else
	mark_tree_begin "$w1"
	if ! out=$(make -s -C "$TREE" ARCH=um O="$LINT_BUILD" -j"$JOBS" W=1 KCFLAGS=-Werror \
		   kernel/kevent/ 2>&1); then
		finding "W=1 build of kernel/kevent/ failed"
		printf '%s\n' "$out" >&2
	elif printf '%s\n' "$out" | grep -q 'warning:'; then
		finding "compiler warnings at W=1 in kernel/kevent/"
		printf '%s\n' "$out" >&2
	else
		mark_tree_done "$w1"
	fi
fi

# The layers of kernel/kevent/ (kevent_internal.h): no object calls a
# function of a file above it, checked on the W=1 objects.
if ! out=$("$PYTHON" "$REPO/scripts/check_layers.py" "$LINT_BUILD/kernel/kevent" 2>&1); then
	finding "layers of kernel/kevent/ (scripts/check_layers.py)"
	printf '%s\n' "$out" >&2
fi

# 3. shellcheck on the harness.
mapfile -t shells < <(cd "$REPO" && { ls run_tests.sh .ci/run 2>/dev/null || true; find scripts coverage userland -path coverage/html -prune -o -name '*.sh' -print; } | sort -u)
stamps_of "${shells[@]}"
# (sourced lib.sh counts: a script is checked again when it changes)
lib=$({ shellcheck --version; cat "$REPO/scripts/lib.sh"; } | sha256sum | cut -c1-16)
changed=() stamps=()
for f in "${shells[@]}"; do
	stamp=$clean/shellcheck-$lib-${stamp_of[$f]}
	[ -e "$stamp" ] || { changed+=("$f"); stamps+=("$stamp"); }
done
if [ ${#changed[@]} -gt 0 ]; then
	if (cd "$REPO" && shellcheck -x "${changed[@]}"); then
		touch "${stamps[@]}"
	else
		finding "shellcheck"
	fi
fi

# 4. The manual pages: groff warnings of any kind are findings.
for page in "$REPO"/userland/man/*.[1-8]; do
	if ! out=$(groff -man -ww -z "$page" 2>&1) || [ -n "$out" ]; then
		printf '%s\n' "$out" >&2
		finding "man page: ${page#"$REPO"/}"
	fi
done

# 5. The harness's own logic, on recorded inputs: again only when a file
# it reads (scripts/, coverage/, the Python it runs) changed since it
# passed.
# (coverage/html is pruned: capture.sh may be rewriting it meanwhile; the
# modes count, as selftest.sh runs the scripts.)
selftest_inputs() {	# find's -printf format
	find scripts coverage -path coverage/html -prune -o -type f ! -name '*.pyc' \
		-printf "$1" | sort -z
}
stamp=$clean/selftest-$(cd "$REPO" && {
	selftest_inputs '%m %p\0' | tr '\0' '\n'
	selftest_inputs '%p\0' | xargs -0 sha256sum --
	"$PYTHON" --version
} | sha256sum | cut -c1-32)
if [ -e "$stamp" ]; then
	say "selftest: unchanged since it passed"
elif "$REPO/scripts/selftest.sh"; then
	: > "$stamp"
else
	finding "harness self-tests"
fi

# 6. libevent's patch series (userland/libevent/series) applies with
# patch -p1 to the pristine tree, when one is at hand (LIBEVENT_SRC, or
# the source ./run_tests.sh --libevent fetched); lint does not fetch it.
src=${LIBEVENT_SRC:-}
[ -n "$src" ] || src=$(find "$LIBEVENT_WORK/source" -mindepth 1 -maxdepth 1 -type d \
	-name 'libevent-*' 2>/dev/null | head -n 1)
if [ -n "$src" ] && [ -d "$src" ]; then
	tmp=$(mktemp -d)
	cp -a "$src/." "$tmp"
	while read -r p; do
		[ -n "$p" ] || continue
		patch -d "$tmp" -p1 -s --no-backup-if-mismatch < "$REPO/userland/libevent/$p" >/dev/null ||
			{ finding "userland/libevent/$p does not apply to $src"; break; }
	done < "$REPO/userland/libevent/series"
	rm -rf "$tmp"
else
	say "libevent: no source at hand, patch series not checked (./run_tests.sh --libevent fetches it)"
fi

[ $fail = 0 ] || die "lint found problems (above)"
say "lint: checkpatch, kernel-doc, W=1, layers, shellcheck, man pages, harness self-tests and libevent's patches clean"
