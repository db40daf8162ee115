#!/bin/bash
# Prepare the kernel tree: extract the pristine 6.12 source once (from
# $KERNEL_SRC, a 6.12.x tree, or Debian's linux-source-6.12), then overlay
# the kevent files (kernel/overlay.map) and apply kernel/patches/.
# Files whose content did not change keep their timestamps, so make
# rebuilds only what was edited.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

origin=${KERNEL_SRC:-/usr/src/linux-source-6.12.tar.xz}
stamp=$TREE/.kevent-origin

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$origin" ]; then
	rm -rf "$TREE"
	mkdir -p "$WORK"
	if [ -d "$origin" ]; then
		[ -f "$origin/Makefile" ] || die "KERNEL_SRC=$origin is not a kernel tree"
		say "prepare: copying $origin"
		rsync -a --exclude .git "$origin/" "$TREE/"
	elif [ -f "$origin" ]; then
		say "prepare: extracting $origin (once)"
		tmp=$WORK/extract.$$
		rm -rf "$tmp"
		mkdir -p "$tmp"
		tar -xf "$origin" -C "$tmp"
		mv "$tmp"/linux-source-6.12 "$TREE" 2>/dev/null || mv "$tmp"/* "$TREE"
		rm -rf "$tmp"
	else
		die "no kernel source at $origin: set KERNEL_SRC to a 6.12 tree or install linux-source-6.12"
	fi
	version=$(make -s -C "$TREE" kernelversion)
	case $version in
	6.12.*|6.12) ;;
	*) die "the kernel at $origin is $version, not 6.12.x" ;;
	esac
	printf '%s\n' "$origin" > "$stamp"
fi

# Patches: when the set changed, take the old set out and put the new in.
# Files that end up with the content they had keep their timestamps, so
# changing one patch rebuilds only what that patch touches.
applied=$TREE/.kevent-patches
want=$(cd "$REPO/kernel/patches" && cat -- *.patch | sha256sum)
have=$(cat "$applied/.sum" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
	declare -A before=()
	mapfile -t touched < <(cat "$applied"/*.patch "$REPO"/kernel/patches/*.patch 2>/dev/null |
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u)
	for f in "${touched[@]}"; do
		[ -f "$TREE/$f" ] && before[$f]="$(sha256sum < "$TREE/$f") $(stat -c %Y "$TREE/$f")"
	done
	if [ -d "$applied" ]; then
		for p in $(find "$applied" -name '*.patch' | sort -r); do
			tree_patch "$p" -R ||
				die "cannot take out $(basename "$p"); remove $TREE and run again"
		done
	fi
	rm -rf "$applied"
	mkdir -p "$applied"
	for p in "$REPO"/kernel/patches/*.patch; do
		say "prepare: applying $(basename "$p")"
		tree_patch "$p" ||
			die "$(basename "$p") does not apply to $origin"
		cp "$p" "$applied/"
	done
	for f in "${!before[@]}"; do
		sum=${before[$f]% *}
		[ -f "$TREE/$f" ] && [ "$(sha256sum < "$TREE/$f")" = "$sum" ] &&
			touch -d "@${before[$f]##* }" "$TREE/$f"
	done
	printf '%s\n' "$want" > "$applied/.sum"
fi

# Overlay: copy what changed, delete what the repository no longer has.
manifest=$TREE/.kevent-overlay
new_manifest=$manifest.new
: > "$new_manifest"
grep -v '^#' "$REPO/kernel/overlay.map" | while read -r src dst; do
	[ -n "$src" ] || continue
	(cd "$REPO/$src" && find . -type f ! -name '*.md') | sort | while read -r f; do
		f=${f#./}
		mkdir -p "$(dirname "$TREE/$dst/$f")"
		cmp -s "$REPO/$src/$f" "$TREE/$dst/$f" || cp "$REPO/$src/$f" "$TREE/$dst/$f"
		printf '%s\n' "$dst/$f" >> "$new_manifest"
	done
done
if [ -f "$manifest" ]; then
	comm -23 <(sort -u "$manifest") <(sort -u "$new_manifest") | while read -r gone; do
		rm -f "$TREE/$gone"
	done
fi
mv "$new_manifest" "$manifest"
say "prepare: tree ready at $TREE ($(make -s -C "$TREE" kernelversion))"
