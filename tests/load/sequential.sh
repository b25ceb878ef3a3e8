#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sequential.sh [N]: N (1000) containers run one after another (shim run
# --detach of a container that exits at once, then delete), reporting the
# time per container over the first and the last 100, and checking that
# nothing is left: no cgroup, state dir, mount, open fd of ours, watcher
# process or memfd.  A measurement for the notes, not a timed test.
set -eu
cd "$(dirname "$0")/../.."
n=${1:-1000}
shim=$PWD/shim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root bundle=$work/bundle
mkdir -p "$bundle"
jq --arg r "$PWD/examples/rootfs" --arg tag "SHIM_LOAD_TAG=$$" \
	'.root.path = $r | .process.args = ["/bin/true"] | .process.env += [$tag]' \
	examples/hello/config.json >"$bundle/config.json"
cg=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
mounts_before=$(wc -l </proc/self/mountinfo)
memfds_before=$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c 'memfd:' || true)
now() { date +%s.%N; }
# the window of containers timed at the start and at the end
win=$((n / 2 < 100 ? n / 2 : 100))
t0=$(now) tfirst= tlast=$t0
for ((i = 1; i <= n; i++)); do
	id=load-$$-$i
	"$shim" --root "$root" run --detach --bundle "$bundle" "$id" </dev/null >/dev/null 2>"$work/err" ||
		{ echo "run $i failed: $(cat "$work/err")" >&2; exit 1; }
	# until stopped (bounded), then delete
	for ((w = 0; w < 400; w++)); do
		[ "$("$shim" --root "$root" state "$id" | jq -r .status)" = stopped ] && break
		sleep 0.005
	done
	"$shim" --root "$root" delete "$id" 2>"$work/err" || { echo "delete $i failed: $(cat "$work/err")" >&2; exit 1; }
	[ "$i" -ne "$win" ] || tfirst=$(now)
	[ "$i" -ne "$((n - win))" ] || tlast=$(now)
done
tend=$(now)
awk -v n="$n" -v w="$win" -v t0="$t0" -v t1="$tfirst" -v t2="$tlast" -v t3="$tend" 'BEGIN {
	printf "containers: %d in %.1f s\n", n, t3 - t0
	printf "ms per container, first %d: %.1f, last %d: %.1f\n", w, (t1 - t0) * 1000 / w, w, (t3 - t2) * 1000 / w
}'
# Leftovers (the detached watchers exit a moment after delete).
for ((w = 0; w < 100; w++)); do
	left=$(grep -lsaF "SHIM_LOAD_TAG=$$" /proc/[0-9]*/environ 2>/dev/null | grep -v "/proc/$$/" || true)
	[ -z "$left" ] && break
	sleep 0.1
done
bad=0
report() { echo "LEFT: $*"; bad=1; }
[ -z "$left" ] || report "processes: $left"
[ -z "$(ls -A "$root" 2>/dev/null)" ] || report "state dirs: $(ls -A "$root" | head)"
[ -z "$cg" ] || [ -z "$(ls -d "$cg"/shim/load-$$-* 2>/dev/null)" ] || report "cgroups: $(ls -d "$cg"/shim/load-$$-* | head)"
[ "$(wc -l </proc/self/mountinfo)" -le "$mounts_before" ] || report "mounts: $(($(wc -l </proc/self/mountinfo) - mounts_before)) more"
memfds_after=$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c 'memfd:' || true)
[ "$memfds_after" -le "$memfds_before" ] || report "memfds: $memfds_before before, $memfds_after after"
# fds: no process of ours is left to hold one; none of ours points into
# the work dir from this shell either.
[ -z "$(ls -l /proc/$$/fd | grep -F "$work")" ] || report "fds of this shell into $work"
[ "$bad" = 1 ] || echo "nothing left: no process, state dir, cgroup, mount, fd or memfd"
exit "$bad"
