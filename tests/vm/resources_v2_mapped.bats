#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# The linux.resources fields cgroup v1 has and v2 spells differently, on a
# pure cgroup v2 kernel, as runc's fs2 maps them.  Runs INSIDE the VM:
#
#   tests/vm/run -- bats tests/vm/resources_v2_mapped.bats
#
# blockIO's throttles go to io.max (the device: a loop device over a file of
# the test's, detached in teardown, as the VM's root is 9p and has no block
# device), its weights to io.weight converted as runc does (10..1000 onto
# 1..10000), hugepageLimits to hugetlb.2MB.max,
# realtime budgets are refused by name (v2 has none), disableOOMKiller is a
# named warning (v2 cannot disable the OOM killer).  The container reads
# its own cgroup's files: it has a cgroup namespace and /sys/fs/cgroup.

load helpers

setup() {
	require_cgroup2_memory
	ID=res-$BATS_TEST_NUMBER-$$
}

teardown() {
	if [ -n "${LOOP:-}" ]; then
		losetup -d "$LOOP"
	fi
	assert_no_leftovers "$ID"
}

# loop_device: $LOOP, a loop device over a file of the test's, and $dev,
# its MAJ:MIN; the io controller enabled for the container's cgroup.
loop_device() {
	# The guest's modules come with busybox's modules.dep, which kmod's
	# modprobe does not read: insmod by path (loop has no deps), after
	# unpacking it where the kernel package compresses it (6.12: .ko.xz).
	if [ ! -e /dev/loop-control ]; then
		local ko
		ko=$(find "/lib/modules/$(uname -r)/kernel/drivers/block" -name 'loop.ko*' | head -n 1)
		case $ko in
		*.xz) xz -dc "$ko" >"$BATS_TEST_TMPDIR/loop.ko" && ko=$BATS_TEST_TMPDIR/loop.ko ;;
		*.zst) zstd -qdc "$ko" >"$BATS_TEST_TMPDIR/loop.ko" && ko=$BATS_TEST_TMPDIR/loop.ko ;;
		esac
		insmod "$ko"
	fi
	truncate -s 1M "$BATS_TEST_TMPDIR/disk"
	LOOP=$(losetup -f --show "$BATS_TEST_TMPDIR/disk")
	dev=$(printf '%d:%d' "0x$(stat -c %t "$LOOP")" "0x$(stat -c %T "$LOOP")")
	grep -qw io "$CGROOT/cgroup.subtree_control" || echo +io >"$CGROOT/cgroup.subtree_control"
}

@test "blockIO throttles: one io.max line with rbps, wbps, riops and wiops" {
	local dev
	loop_device
	make_bundle hello "$(args_filter /bin/cat /sys/fs/cgroup/io.max)" \
		".linux.resources.blockIO = {
			throttleReadBpsDevice: [{major: ${dev%:*}, minor: ${dev#*:}, rate: 1048576}],
			throttleWriteBpsDevice: [{major: ${dev%:*}, minor: ${dev#*:}, rate: 2097152}],
			throttleReadIOPSDevice: [{major: ${dev%:*}, minor: ${dev#*:}, rate: 100}],
			throttleWriteIOPSDevice: [{major: ${dev%:*}, minor: ${dev#*:}, rate: 200}]}"
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[[ "$output" == *"$dev rbps=1048576 wbps=2097152 riops=100 wiops=200"* ]] || { echo "$output" >&2; return 1; }
}

@test "blockIO weight and weightDevice: io.weight in runc's scale (blkio 10..1000 onto 1..10000)" {
	local dev
	loop_device
	# io.weight's per-device weights are iocost's: enabled on the device.
	echo "$dev enable=1" >"$CGROOT/io.cost.qos"
	make_bundle hello "$(args_filter /bin/cat /sys/fs/cgroup/io.weight)" \
		".linux.resources.blockIO = {weight: 500,
			weightDevice: [{major: ${dev%:*}, minor: ${dev#*:}, weight: 100}]}"
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	# 1 + (w - 10) * 9999 / 990: 500 -> 4950, 100 -> 910 (before: 500 and 100).
	[[ "$output" == *"default 4950"* ]] || { echo "$output" >&2; return 1; }
	[[ "$output" == *"$dev 910"* ]] || { echo "$output" >&2; return 1; }
}

@test "hugepageLimits: hugetlb.2MB.max" {
	grep -qw hugetlb "$CGROOT/cgroup.controllers" || { echo "no hugetlb controller in this kernel" >&2; return 1; }
	grep -qw hugetlb "$CGROOT/cgroup.subtree_control" || echo +hugetlb >"$CGROOT/cgroup.subtree_control"
	make_bundle hello "$(args_filter /bin/cat /sys/fs/cgroup/hugetlb.2MB.max)" \
		'.linux.resources.hugepageLimits = [{pageSize: "2MB", limit: 4194304}]'
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[[ "$output" == *4194304* ]] || { echo "$output" >&2; return 1; }
}

@test "cpu.realtimeRuntime: refused by name, cgroup v2 has no real-time budget" {
	make_bundle hello '.linux.resources.cpu = {realtimeRuntime: 10000, realtimePeriod: 1000000}'
	run_shim "$ID"
	[ "$status" -eq 1 ] || { echo "$output" >&2; return 1; }
	[[ "$output" == *"linux.resources.cpu.realtimeRuntime: cgroup v2 has no real-time CPU budget"* ]] || {
		echo "$output" >&2
		return 1
	}
}

@test "memory.disableOOMKiller: a warning names it, the container runs" {
	make_bundle hello '.linux.resources.memory = {limit: 67108864, disableOOMKiller: true}'
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[[ "$output" == *"linux.resources.memory.disableOOMKiller: not applied: cgroup v2 cannot disable the OOM killer"* ]] || {
		echo "$output" >&2
		return 1
	}
}
