#!/bin/bash
# Coverage of the kevent sources, per layer.
#   coverage/capture.sh reset        delete the .gcda data of the build
#   coverage/capture.sh LAYER        capture the data written since the last
#                                    reset into $RESULTS/coverage-LAYER.info
#   coverage/capture.sh report L...  combine layers, write coverage/html/
set -eu
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

lcov_q() {
	lcov --quiet --rc lcov_branch_coverage=1 "$@"
}

case ${1:?usage: capture.sh reset|LAYER|report LAYERS...} in
reset)
	find "$BUILD" -name '*.gcda' -delete
	;;
report)
	shift
	args=()
	for layer in "$@"; do
		[ -s "$RESULTS/coverage-$layer.info" ] && args+=(-a "$RESULTS/coverage-$layer.info")
	done
	[ ${#args[@]} -gt 0 ] || die "no coverage data captured"
	lcov_q "${args[@]}" -o "$RESULTS/coverage-all.info"
	rm -rf "$REPO/coverage/html"
	genhtml --quiet --branch-coverage --legend --title "kevent (UML 6.12)" \
		--prefix "$TREE" -o "$REPO/coverage/html" "$RESULTS/coverage-all.info" ||
		die "genhtml failed"
	say "coverage: report in coverage/html/index.html"
	;;
*)
	layer=$1
	out=$RESULTS/coverage-$layer.info
	find "$BUILD/kernel/kevent" -name '*.gcda' | grep -q . ||
		die "no .gcda files after the $layer run: was the kernel built with coverage and powered off cleanly?"
	lcov_q --capture --test-name "$layer" --directory "$BUILD/kernel/kevent" \
		-o "$out.raw" 2>"$RESULTS/lcov-$layer.log" ||
		die "lcov capture failed (see $RESULTS/lcov-$layer.log)"
	# Keep the kevent sources, not the tests that drive them.
	lcov_q --extract "$out.raw" '*/kernel/kevent/*' -o "$out.tmp"
	lcov_q --remove "$out.tmp" '*/kernel/kevent/kunit/*' -o "$out"
	rm -f "$out.raw" "$out.tmp"
	;;
esac
