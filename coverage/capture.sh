#!/bin/bash
# Coverage of the kevent sources, per layer.
#   coverage/capture.sh reset        delete the .gcda data of the build
#   coverage/capture.sh LAYER        capture the data written since the last
#                                    reset into $RESULTS/coverage-LAYER.info
#   coverage/capture.sh report L...  combine layers, write coverage/html/:
#                                    index.html, all/, and one folder per layer
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
	# coverage/html/index.html: the front page; all/, kunit/, userland/:
	# genhtml's report of both layers together and of each alone.
	shift
	args=()
	for layer in "$@"; do
		[ -s "$RESULTS/coverage-$layer.info" ] && args+=(-a "$RESULTS/coverage-$layer.info")
	done
	[ ${#args[@]} -gt 0 ] || die "no coverage data captured"
	lcov_q "${args[@]}" -o "$RESULTS/coverage-all.info"
	html=$REPO/coverage/html
	rm -rf "$html"
	for layer in all "$@"; do
		[ -s "$RESULTS/coverage-$layer.info" ] || continue
		genhtml --quiet --branch-coverage --legend --title "kevent (UML 6.12): $layer" \
			--prefix "$TREE" -o "$html/$layer" "$RESULTS/coverage-$layer.info" ||
			die "genhtml failed for $layer"
	done
	python3 "$REPO/coverage/index.py" --results "$RESULTS" --tree "$TREE" --out "$html" ||
		die "the coverage report has broken links (above)"
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
