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

# With systemd as PID 1 on a hybrid or v1 host, --systemd-cgroup took the
# cgroupfs v1 manager and made the scope's directories in systemd's tree
# behind its back.  systemd as PID 1 is what /run/systemd/system
# says (sd_booted(), runc's IsRunningSystemd): faked here in a mount
# namespace of the test's own, so this hybrid host is a hybrid systemd host
# to shim alone.  Refused before anything is made, naming the flag and the
# mode; every mode is in tests/unit/test_cgroup_systemd_mode.c.
@test "run --systemd-cgroup on a hybrid host with systemd is refused naming the flag and the mode" {
	if [ -z "$(cgroup_v1_mount memory)" ] || [ -z "$(cgroup2_mount)" ]; then
		echo "this test needs a hybrid host (v1 controllers and a cgroup2 mount)" >&2
		return 1
	fi
	cfg --arg p "system.slice:shimtest:$ID" '.linux.cgroupsPath = $p'
	# shellcheck disable=SC2016
	run --separate-stderr unshare -m --propagation private sh -c \
		'mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec "$@"' sh \
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" --systemd-cgroup run --bundle "$BUNDLE" "$ID"
	local d made=""
	for d in $(cgroup_v1_mounts) "$(cgroup2_mount)"; do
		if [ -d "$d/system.slice/shimtest-$ID.scope" ]; then
			made+=" $d/system.slice/shimtest-$ID.scope"
			find "$d/system.slice/shimtest-$ID.scope" -depth -type d -exec rmdir {} +
		fi
	done
	assert_error "--systemd-cgroup: this host is hybrid (controllers on cgroup v1, an empty cgroup2 at /sys/fs/cgroup/unified): shim's systemd cgroup manager needs cgroup v2 (systemd.unified_cgroup_hierarchy=1); without the flag the cgroupfs manager makes the cgroups"
	assert_eq "$made" "" "cgroupfs directories made in systemd's tree"
	[ ! -e "$STATE/$ID" ]
}

@test "without --systemd-cgroup the same cgroupsPath is an ordinary cgroupfs path" {
	cfg --arg p "/shimtest-$ID" '.linux.cgroupsPath = $p'
	run_shim
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
}
