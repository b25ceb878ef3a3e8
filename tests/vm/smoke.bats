#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# Smoke tests of the VM's cgroup v2 set-up. They run INSIDE the VM:
#
#   tests/vm/run -- bats tests/vm/smoke.bats
#
# On a host without cgroup2 at /sys/fs/cgroup they fail (on purpose, not
# skip): a silent skip would hide a VM that lost its cgroup2 mount.

CG=/sys/fs/cgroup

setup() {
	local fs
	fs=$(stat -f -c %T "$CG" 2>/dev/null || echo missing)
	if [ "$fs" != cgroup2fs ]; then
		echo "$CG is '$fs', not cgroup2fs: these tests run inside the VM" \
			"(tests/vm/run -- bats tests/vm/smoke.bats)" >&2
		return 1
	fi
	child=$CG/vm-smoke.$BATS_TEST_NUMBER.$$
}

teardown() {
	[ -n "${child:-}" ] && [ -d "$child" ] || return 0
	# Kill whatever is left, wait until the cgroup is unpopulated, rmdir.
	echo 1 >"$child/cgroup.kill" 2>/dev/null || true
	local i
	for i in $(seq 100); do
		grep -qx 'populated 0' "$child/cgroup.events" && break
		sleep 0.1
	done
	rmdir "$child"
}

# memory.events.local's value for KEY.
mem_event() {
	awk -v k="$1" '$1 == k { print $2 }' "$child/memory.events.local"
}

@test "/sys/fs/cgroup is cgroup2" {
	run stat -f -c %T "$CG"
	[ "$status" -eq 0 ]
	[ "$output" = cgroup2fs ]
}

@test "memory (and pids) are enabled in the root's cgroup.subtree_control" {
	run cat "$CG/cgroup.subtree_control"
	echo "subtree_control: $output"
	[[ " $output " == *" memory "* ]]
	[[ " $output " == *" pids "* ]]
}

@test "a child cgroup has memory.events.local, memory.peak, memory.swap.max, cgroup.kill" {
	mkdir "$child"
	for f in memory.events.local memory.peak memory.swap.max memory.max cgroup.kill pids.max; do
		[ -f "$child/$f" ] || { echo "no $f in $child" >&2; return 1; }
	done
}

@test "cgroup.kill kills every process of a cgroup" {
	mkdir "$child"
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 1000' sh "$child" &
	local pid=$! i
	for i in $(seq 100); do
		grep -qx 'populated 1' "$child/cgroup.events" && break
		sleep 0.1
	done
	grep -qx 'populated 1' "$child/cgroup.events"
	echo 1 >"$child/cgroup.kill"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 137 ]
	grep -qx 'populated 0' "$child/cgroup.events"
}

@test "a process allocating 100M in a cgroup with memory.max=32M is OOM-killed" {
	mkdir "$child"
	echo 32M >"$child/memory.max"
	echo 0 >"$child/memory.swap.max"
	[ "$(mem_event oom_kill)" = 0 ]
	# dd's 100M buffer is anonymous memory, and read(2) from /dev/zero
	# touches every page of it.
	run sh -c 'echo $$ >"$1/cgroup.procs" && exec dd if=/dev/zero of=/dev/null bs=100M count=1' \
		sh "$child"
	echo "status=$status output=$output"
	echo "memory.events.local:"; cat "$child/memory.events.local"
	[ "$status" -eq 137 ]
	[ "$(mem_event oom_kill)" -ge 1 ]
	[ "$(mem_event oom)" -ge 1 ]
	# memory.peak recorded the climb to the limit.
	local peak
	peak=$(cat "$child/memory.peak")
	echo "memory.peak=$peak"
	[ "$peak" -ge $((16 * 1024 * 1024)) ]
	[ "$peak" -le $((32 * 1024 * 1024)) ]
}
