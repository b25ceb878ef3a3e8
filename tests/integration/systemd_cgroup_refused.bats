#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# --systemd-cgroup asks systemd for the container's cgroup (a transient
# scope).  On a host without systemd as PID 1 (this one: no
# /run/systemd/system) it is refused in runc's words, before anything runs
# or is made, instead of writing the cgroup systemd would have made.  The
# scope itself is tested with systemd as PID 1: tests/vm/systemd_scope.bats.

load helpers

setup() {
	shim_setup
	if [ -d /run/systemd/system ]; then
		echo "systemd runs on this host: these tests need a host without it" >&2
		return 1
	fi
}

@test "run --systemd-cgroup without systemd on the host is refused, nothing is left" {
	cfg --arg p "system.slice:shimtest:$ID" '.linux.cgroupsPath = $p'
	run --separate-stderr shim --systemd-cgroup run --bundle "$BUNDLE" "$ID"
	assert_error "systemd not running on this host, cannot use systemd cgroups manager"
	# Neither the scope's path nor a state dir.
	[ ! -e "/sys/fs/cgroup/unified/system.slice/shimtest-$ID.scope" ]
	[ ! -e "/sys/fs/cgroup/memory/system.slice/shimtest-$ID.scope" ]
	[ ! -e "$STATE/$ID" ]
}

@test "create --systemd-cgroup with no cgroupsPath is refused too" {
	# Its output in files: had it made the container, init and the
	# watcher would hold a pipe of bats' open (the teardown deletes it).
	local rc=0
	shim --systemd-cgroup create --bundle "$BUNDLE" "$ID" </dev/null >"$T/out" 2>"$T/err" || rc=$?
	assert_eq "$rc" 1 "exit status"
	assert_eq "$(cat "$T/err")" "shim: systemd not running on this host, cannot use systemd cgroups manager"
	[ ! -e "$STATE/$ID" ]
}

@test "without --systemd-cgroup the same cgroupsPath is an ordinary cgroupfs path" {
	cfg --arg p "/shimtest-$ID" '.linux.cgroupsPath = $p'
	run_shim
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
}
