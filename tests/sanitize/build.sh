#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# build.sh DIR CC FLAGS [MAKE TARGET...]: a copy of the checkout's sources in
# DIR/tree, built there with CC and SANITIZE=FLAGS (instrumentation), so
# that the normal build in the checkout is never touched.  The copy keeps
# each file's mtime, so a second call rebuilds only what changed.
set -eu
cd "$(dirname "$0")/../.."
dir=$1 cc=$2 san=$3
shift 3
mkdir -p "$dir/tree"
# Tracked and new files, not ignored ones (objects, binaries, the rootfs),
# not the VM's cache.
git ls-files -z -co --exclude-standard | grep -zv '^tests/vm/' |
	tar --null -T - -cf - | tar -xf - -C "$dir/tree"
# Files removed from the checkout are removed from the copy too.
(cd "$dir/tree" && find . -path ./examples/rootfs -prune -o -path ./build -prune -o \
	-type f \( -name '*.c' -o -name '*.h' -o -name '*.bats' -o -name '*.bash' -o -name '*.sh' \) -print) |
	while read -r f; do [ -e "$f" ] || rm -f "$dir/tree/$f"; done
# The copy has no .git: its --version says "commit: unknown", as a tarball's.
make -C "$dir/tree" -j2 CC="$cc" SANITIZE="$san" "$@"
