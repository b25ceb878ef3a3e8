#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim update` of a container's CFS quota in a pod cgroup that has a quota
# of its own (cgroup v1's cpu hierarchy, as Kubernetes' cgroupfs driver
# makes them).  The kernel checks each of cpu.cfs_period_us and
# cpu.cfs_quota_us against the parent's share with the other value as it
# is at that moment, so the order of the two writes decides whether a new
# pair is accepted; runc writes the period, and if the kernel refuses it,
# the quota and then the period again.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	CPU=$(cgroup_v1_mount cpu)
	[ -n "$CPU" ] || skip "no cgroup v1 cpu hierarchy on this host (cgroup v2: tests/vm)"
	[ -f "$CPU/cpu.cfs_quota_us" ] || skip "the cpu hierarchy has no CFS bandwidth files (CONFIG_CFS_BANDWIDTH)"
	POD="shimpod-$ID"
	sh_cmd 'exec sleep 1000'
	cfg --arg p "/$POD/ct" '.linux.cgroupsPath = $p'
	cfg '.linux.resources.cpu = {"quota": 50000, "period": 100000}'
}

teardown() {
	local d
	ct_cleanup
	# shim removes the container's cgroup; the pod's is the test's.
	for d in $(cgroup_v1_mounts) "$(cgroup2_mount)"; do
		[ -d "$d/$POD/ct" ] && { echo "cgroup left behind: $d/$POD/ct" >&2; rmdir "$d/$POD/ct"; LEFT=1; }
		[ -d "$d/$POD" ] && rmdir "$d/$POD"
	done
	shim_teardown
	[ -z "${LEFT:-}" ]
}

@test "update: a shorter period in a pod with a CFS quota, as runc orders the writes" {
	mkdir -p "$CPU/$POD"
	echo 50000 >"$CPU/$POD/cpu.cfs_quota_us"
	ct_up
	local d=$CPU/$POD/ct
	assert_eq "$(cat "$d/cpu.cfs_quota_us") $(cat "$d/cpu.cfs_period_us")" "50000 100000"
	# Half a CPU either way; written period first, the kernel would see the
	# old quota over the new period: a whole CPU, more than the pod's half.
	run --separate-stderr shim update --cpu-period 50000 --cpu-quota 25000 "$ID"
	echo "$stderr"
	assert_status 0
	assert_eq "$(cat "$d/cpu.cfs_quota_us") $(cat "$d/cpu.cfs_period_us")" "25000 50000"
}

@test "update: a quota over the pod's share is refused, naming the JSON path" {
	mkdir -p "$CPU/$POD"
	echo 50000 >"$CPU/$POD/cpu.cfs_quota_us"
	ct_up
	run --separate-stderr shim update --cpu-quota 80000 "$ID"
	assert_status 1
	assert_contains "$stderr" "linux.resources.cpu.quota"
	assert_contains "$stderr" "cpu.cfs_quota_us"
	assert_eq "$(cat "$CPU/$POD/ct/cpu.cfs_quota_us")" 50000
}
