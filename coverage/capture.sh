#!/bin/bash
# Coverage of the kevent sources, per layer.  A boot writes its .gcda
# files at power-off under the directory lib.sh's gcov_boot gave it (UML's
# libgcov puts GCOV_PREFIX before the build path), one per layer and part,
# so boots side by side keep their data apart.
#   coverage/capture.sh reset [LAYER]  delete the data of LAYER (or all)
#   coverage/capture.sh LAYER        capture the data of LAYER's boots into
#                                    $RESULTS/coverage-LAYER.info
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
	rm -rf "$GCOV_DATA/${2:-}"
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
	# One genhtml per layer, side by side (each writes its own directory).
	pids=()
	for layer in all "$@"; do
		[ -s "$RESULTS/coverage-$layer.info" ] || continue
		genhtml --quiet --branch-coverage --legend --title "kevent (UML 6.12): $layer" \
			--prefix "$TREE" -o "$html/$layer" "$RESULTS/coverage-$layer.info" &
		pids+=("$layer:$!")
	done
	for p in "${pids[@]}"; do
		wait "${p#*:}" || die "genhtml failed for ${p%%:*}"
	done
	"$PYTHON" "$REPO/coverage/index.py" --results "$RESULTS" --tree "$TREE" --out "$html" ||
		die "the coverage report has broken links (above)"
	say "coverage: report in coverage/html/index.html"
	;;
*)
	layer=$1
	out=$RESULTS/coverage-$layer.info
	kevent=${BUILD#/}/kernel/kevent
	dirs=()
	rm -f "$out" "$out".*
	for part in "$GCOV_DATA/$layer"/*/; do
		data=$part$kevent
		find "$data" -name '*.gcda' 2>/dev/null | grep -q . || continue
		# lcov reads each .gcda beside its .gcno, which the build has.
		(cd "$BUILD/kernel/kevent" && find . -name '*.gcno' -exec cp --parents {} "$data" \;)
		dirs+=(--directory "$data")
	done
	[ ${#dirs[@]} -gt 0 ] ||
		die "no .gcda files after the $layer run: was the kernel built with coverage and powered off cleanly?"
	# One capture of every boot's data, keeping the kevent sources and not
	# the tests that drive them; then one pass that adds up what the boots
	# counted for the same source file.
	lcov_q --capture --test-name "$layer" "${dirs[@]}" \
		--include '*/kernel/kevent/*' --exclude '*/kernel/kevent/kunit/*' \
		-o "$out.raw" 2>"$RESULTS/lcov-$layer.log" ||
		die "lcov capture failed (see $RESULTS/lcov-$layer.log)"
	lcov_q -a "$out.raw" -o "$out"
	rm -f "$out.raw"
	;;
esac
