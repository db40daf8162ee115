#!/bin/bash
# Rewrite each guard of kernel/guards/ against the current sources: apply
# it to a copy of the files it touches in the prepared tree, and replace
# its diff with a fresh one (tree-root paths, exact offsets), keeping its
# header (Subject, Test, Target, the story).  Run it after the kevent
# sources moved under the guards; then prove them (--prove-guards).
# $1: an optional glob of guard names ('09-*').
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/kernel/kevent" ] || die "no prepared tree at $TREE: run scripts/prepare_tree.sh"
for g in "$REPO"/kernel/guards/${1:-*}.patch; do
	[ -e "$g" ] || die "no guard matches '${1:-*}' in kernel/guards/"
	tmp=$(mktemp -d)
	mapfile -t files < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$g")
	for f in "${files[@]}"; do
		mkdir -p "$tmp/a/$(dirname "$f")" "$tmp/b/$(dirname "$f")"
		cp "$TREE/$f" "$tmp/a/$f"
		cp "$TREE/$f" "$tmp/b/$f"
	done
	TREE=$tmp/b tree_patch "$g" ||
		die "$(basename "$g") does not apply to the current sources: fix it by hand"
	{
		sed -n '1,/^---$/p' "$g"
		for f in "${files[@]}"; do
			(cd "$tmp" && diff -u --label "a/$f" --label "b/$f" "a/$f" "b/$f") || true
		done
	} > "$tmp/new"
	cmp -s "$tmp/new" "$g" || { cp "$tmp/new" "$g"; say "refreshed $(basename "$g")"; }
	rm -rf "$tmp"
done
