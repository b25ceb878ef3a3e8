#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# What delete removes on cgroup v1 hierarchies: the container's directory
# with any cgroup the container made below it (a nested memory cgroup, as
# systemd or a test inside it makes), and of the parents only those shim
# made in that hierarchy: a parent that was there before, with its own
# limits, stays.

load helpers

setup() {
	shim_setup
	require_cgroup_v1_memory
	MEM=$(cgroup_v1_mount memory)
	PIDS=$(cgroup_v1_mount pids)
	PARENT=shimtest-parent-$ID
}

teardown() {
	local d
	for d in "$MEM/$PARENT/$ID" "$PIDS/$PARENT/$ID" "$MEM/$PARENT" "$PIDS/$PARENT"; do
		[ -n "$d" ] && [ -d "$d" ] && rmdir "$d"
	done
	shim_teardown
}

@test "v1: a nested memory cgroup the container made goes with it; the exit code passes through" {
	add_mount /tmp/memcg bind "$MEM" bind rw
	sh_cmd "mkdir /tmp/memcg/shim/$ID/sub && echo \$\$ >/tmp/memcg/shim/$ID/sub/cgroup.procs && exit 3"
	run_shim
	echo "$stderr"
	assert_status 3
	[ ! -d "$MEM/shim/$ID/sub" ]
	[ ! -d "$MEM/shim/$ID" ]
}

@test "v1: a parent cgroup that was there before stays, with its limit; the parents shim made go" {
	[ -n "$PIDS" ] || skip "no cgroup v1 pids hierarchy on this host"
	# The user's parent in the memory hierarchy only, with a limit of its own.
	mkdir "$MEM/$PARENT"
	echo 268435456 >"$MEM/$PARENT/memory.limit_in_bytes"
	cfg --arg p "/$PARENT/$ID" '.linux.cgroupsPath = $p'
	run_shim
	echo "$stderr"
	assert_status 0
	[ ! -d "$MEM/$PARENT/$ID" ]
	[ -d "$MEM/$PARENT" ]
	assert_eq "$(cat "$MEM/$PARENT/memory.limit_in_bytes")" 268435456
	# In the pids hierarchy shim made the parent too: it removes it.
	[ ! -d "$PIDS/$PARENT" ]
}

@test "v1: the same through create, start and delete (the depths kept in state.json)" {
	[ -n "$PIDS" ] || skip "no cgroup v1 pids hierarchy on this host"
	mkdir "$MEM/$PARENT"
	cfg --arg p "/$PARENT/$ID" '.linux.cgroupsPath = $p'
	sh_cmd 'exit 0'
	shim create --bundle "$BUNDLE" "$ID"
	[ -d "$PIDS/$PARENT/$ID" ]
	shim start "$ID"
	run shim delete --force "$ID"
	assert_status 0
	[ -d "$MEM/$PARENT" ]
	[ ! -d "$MEM/$PARENT/$ID" ]
	[ ! -d "$PIDS/$PARENT" ]
}
