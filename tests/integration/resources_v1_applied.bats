#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The linux.resources fields beyond the limits cgroup_v1_limits_enforced.bats
# covers, read back from the real cgroup v1 files of this hybrid host:
# memory.disableOOMKiller (memory.oom_control), hugepageLimits (hugetlb),
# cpu.realtimeRuntime/realtimePeriod (cpu.rt_*), blockIO's per-device
# throttles (blkio.throttle.*) and weightDevice.  (A cgroup v2 host has no
# v1 hierarchy: tests/vm covers the v2 mapping.)

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	if [ -z "$(cgroup_v1_mount memory)" ]; then
		skip "no cgroup v1 memory hierarchy on this host (cgroup v2: tests/vm)"
	fi
}

# verdict_field FILTER: from the verdict, the last line of $stderr.
verdict_field() {
	tail -1 <<<"$stderr" | jq -c "$1"
}

# oom_control KEY: that line's value in the container's memory.oom_control.
oom_control() {
	awk -v k="$1" '$1 == k { print $2 }' "$(cgroup_v1_dir memory)/memory.oom_control"
}

# wait_oom_control KEY VALUE: until memory.oom_control says so (bounded).
wait_oom_control() {
	local i
	for ((i = 0; i < WAIT_SECS * 20; i++)); do
		[ "$(oom_control "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	echo "memory.oom_control never said $1 $2: $(cat "$(cgroup_v1_dir memory)/memory.oom_control" 2>&1)" >&2
	return 1
}

# The root disk's MAJ:MIN (the device / is on, or its whole disk).
root_dev() {
	local majmin
	majmin=$(awk '$5 == "/" { print $3; exit }' /proc/self/mountinfo)
	if [ -e "/sys/dev/block/$majmin" ]; then
		echo "$majmin"
	else
		lsblk -dno MAJ:MIN | awk 'NR == 1 { print $1 }'
	fi
}

@test "memory.disableOOMKiller: memory.oom_control's oom_kill_disable is 1" {
	cfg '.linux.resources.memory = {limit: 33554432, disableOOMKiller: true}'
	sh_cmd 'exec sleep 1000'
	ct_up
	assert_eq "$(oom_control oom_kill_disable)" 1
	assert_not_contains "$stderr" "disableOOMKiller"
	ct_cleanup
}

@test "memory.disableOOMKiller: a hog at its limit waits, killed by nothing; shim kill makes it Killed, never OOMKilled" {
	make_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432, disableOOMKiller: true}'
	start_bg --json
	wait_oom_control under_oom 1
	# At its limit, and still alive: nothing killed it.
	assert_eq "$(oom_control oom_kill)" 0
	kill -0 "$SHIM_PID"
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" kill "$ID" KILL
	assert_status 0
	timeout "$WAIT_SECS" tail --pid="$SHIM_PID" -f /dev/null
	wait_shim
	assert_status 137
	stderr=$(cat "$T/err")
	assert_eq "$(verdict_field .reason)" '"Killed"'
	assert_eq "$(verdict_field .oom_killed)" false
	assert_eq "$(verdict_field .memory_limit)" 33554432
	assert_eq "$(verdict_field .killed_by)" '"runtime"'
}

@test "hugepageLimits: hugetlb.2MB.limit_in_bytes in a hugetlb hierarchy (mounted for the test, in its own mount namespace)" {
	[ -e /sys/kernel/mm/hugepages/hugepages-2048kB ]
	cfg '.linux.resources.hugepageLimits = [{pageSize: "2MB", limit: 4194304}]'
	sh_cmd 'exec sleep 1000'
	mkdir "$T/h"
	# The hierarchy lives as long as it is mounted or has cgroups: the
	# script removes both, whatever failed.
	run --separate-stderr unshare -m --propagation private sh -c '
		trap "rmdir \"$1/h/shim/$3\" \"$1/h/shim\" 2>/dev/null; umount \"$1/h\"" EXIT
		mount -t cgroup -o hugetlb none "$1/h" || exit 90
		"$2" --root "$4" create --bundle "$5" "$3" </dev/null >"$1/ct.out" 2>"$1/ct.err" 3>&- || exit 91
		cat "$1/h/shim/$3/hugetlb.2MB.limit_in_bytes" >"$1/limit" || exit 92
		"$2" --root "$4" delete -f "$3" || exit 93
		[ ! -e "$1/h/shim/$3" ] || exit 94' _ "$T" "$SHIM_BIN" "$ID" "$STATE" "$BUNDLE"
	cat "$T/ct.err" >&2
	assert_status 0
	assert_eq "$(cat "$T/limit")" 4194304
}

@test "hugepageLimits without a hugetlb hierarchy: refused by name; --allow-unenforced-limits names it in the warning" {
	if [ -n "$(cgroup_v1_mount hugetlb)" ]; then
		skip "this host mounts a hugetlb hierarchy"
	fi
	cfg '.linux.resources.hugepageLimits = [{pageSize: "2MB", limit: 4194304}]'
	set_args /bin/true
	run_shim
	assert_status 1
	assert_contains "$stderr" "cannot enforce the hugetlb limit: no cgroup v1 hierarchy carries the \`hugetlb\` controller"
	run_shim --allow-unenforced-limits
	assert_status 0
	assert_contains "$stderr" "linux.resources: the hugetlb limit is NOT enforced"
}

@test "hugepageLimits: a page size the kernel does not have is an error naming the JSON path" {
	cfg '.linux.resources.hugepageLimits = [{pageSize: "3MB", limit: 4194304}]'
	set_args /bin/true
	run_shim
	assert_status 1
	assert_contains "$stderr" "linux.resources.hugepageLimits[0].pageSize: \`3MB\`: this kernel has no such huge page size"
}

# require_rt_group_sched: skip where the kernel has no real-time group
# scheduling (CONFIG_RT_GROUP_SCHED): its cpu hierarchy has no cpu.rt_*.
require_rt_group_sched() {
	[ -e "$(cgroup_v1_mount cpu)/cpu.rt_runtime_us" ] ||
		skip "this kernel has no cpu.rt_runtime_us (CONFIG_RT_GROUP_SCHED is off)"
}

@test "cpu.realtimePeriod and realtimeRuntime 0: cpu.rt_period_us and cpu.rt_runtime_us" {
	require_rt_group_sched
	cfg '.linux.resources.cpu = {realtimePeriod: 500000, realtimeRuntime: 0}'
	sh_cmd 'exec sleep 1000'
	ct_up
	local d
	d=$(cgroup_v1_dir cpu)
	assert_eq "$(cat "$d/cpu.rt_period_us")" 500000
	assert_eq "$(cat "$d/cpu.rt_runtime_us")" 0
	ct_cleanup
}

@test "cpu.realtimeRuntime beyond the parent's budget: the kernel's refusal names the file and the JSON path" {
	require_rt_group_sched
	# /shim, made by shim, has no real-time budget (0): no child can have one.
	cfg '.linux.resources.cpu = {realtimePeriod: 500000, realtimeRuntime: 10000}'
	set_args /bin/true
	run_shim
	assert_status 1
	assert_contains "$stderr" "linux.resources.cpu.realtimeRuntime: write \`10000\` to \`cpu.rt_runtime_us\`"
}

@test "blockIO throttles: blkio.throttle.{read,write}_{bps,iops}_device for the root disk" {
	local dev maj min
	dev=$(root_dev)
	[ -n "$dev" ]
	maj=${dev%:*} min=${dev#*:}
	cfg --argjson maj "$maj" --argjson min "$min" '.linux.resources.blockIO = {
		throttleReadBpsDevice: [{major: $maj, minor: $min, rate: 1048576}],
		throttleWriteBpsDevice: [{major: $maj, minor: $min, rate: 2097152}],
		throttleReadIOPSDevice: [{major: $maj, minor: $min, rate: 100}],
		throttleWriteIOPSDevice: [{major: $maj, minor: $min, rate: 200}]}'
	sh_cmd 'exec sleep 1000'
	ct_up
	local d
	d=$(cgroup_v1_dir blkio)
	assert_eq "$(cat "$d/blkio.throttle.read_bps_device")" "$dev 1048576"
	assert_eq "$(cat "$d/blkio.throttle.write_bps_device")" "$dev 2097152"
	assert_eq "$(cat "$d/blkio.throttle.read_iops_device")" "$dev 100"
	assert_eq "$(cat "$d/blkio.throttle.write_iops_device")" "$dev 200"
	ct_cleanup
}

# weight_applied KEY CFQ BFQ LINE: with linux.resources.blockIO.KEY set in
# the config, a container is created and LINE is in the weight file this
# host's blkio hierarchy offers (CFQ's name first, as runc); where it offers
# neither (the disk under mq-deadline, none or kyber, and no BFQ), create
# fails with one sentence naming both files and leaves nothing.
weight_applied() {
	local key=$1 cfq=$2 bfq=$3 line=$4 root file=
	root=$(cgroup_v1_mount blkio)
	if [ -e "$root/$cfq" ]; then file=$cfq; elif [ -e "$root/$bfq" ]; then file=$bfq; fi
	sh_cmd 'exec sleep 1000'
	ct_create
	if [ -n "$file" ]; then
		assert_status 0
		ct_start_ok
		assert_contains "$(cat "$(cgroup_v1_dir blkio)/$file")" "$line"
		ct_cleanup
		return
	fi
	assert_status 1
	assert_contains "$stderr" "linux.resources.blockIO.$key: this kernel or disk has no I/O weight support: the blkio cgroup has neither \`$cfq\` (CFQ) nor \`$bfq\` (BFQ)"
	run test -e "$STATE/$ID"
	assert_status 1
}

@test "blockIO.weightDevice: written to blkio.weight_device or BFQ's; without either, one sentence names both" {
	local dev
	dev=$(root_dev)
	cfg --argjson maj "${dev%:*}" --argjson min "${dev#*:}" \
		'.linux.resources.blockIO = {weightDevice: [{major: $maj, minor: $min, weight: 300}]}'
	weight_applied weightDevice blkio.weight_device blkio.bfq.weight_device "$dev 300"
}

@test "blockIO.weight: written to blkio.weight or BFQ's; without either, one sentence names both" {
	cfg '.linux.resources.blockIO = {weight: 300}'
	weight_applied weight blkio.weight blkio.bfq.weight 300
}

@test "blockIO.leafWeight: a warning that no kernel since 5.0 has a leaf weight, and the container runs" {
	cfg '.linux.resources.blockIO = {leafWeight: 300}'
	sh_cmd 'exit 0'
	run_shim
	assert_status 0
	assert_contains "$stderr" "linux.resources.blockIO.leafWeight: not applied: no I/O scheduler since Linux 5.0 has a leaf weight"
}

@test "update: --cpu-rt-period and --cpu-rt-runtime (runc's flags), and the throttles through --resources" {
	require_rt_group_sched
	local dev maj min d
	dev=$(root_dev)
	maj=${dev%:*} min=${dev#*:}
	sh_cmd 'exec sleep 1000'
	ct_up
	d=$(cgroup_v1_dir cpu)
	run --separate-stderr shim update --cpu-rt-period 400000 --cpu-rt-runtime 0 "$ID"
	assert_status 0
	assert_eq "$(cat "$d/cpu.rt_period_us")" 400000
	assert_eq "$(cat "$d/cpu.rt_runtime_us")" 0
	run --separate-stderr shim update --cpu-rt-runtime 10000 "$ID"
	assert_status 1
	assert_contains "$stderr" "linux.resources.cpu.realtimeRuntime: write \`10000\` to \`cpu.rt_runtime_us\`"
	run --separate-stderr shim update --resources - "$ID" \
		<<<"{\"blockIO\": {\"throttleWriteBpsDevice\": [{\"major\": $maj, \"minor\": $min, \"rate\": 3145728}]}}"
	assert_status 0
	assert_eq "$(cat "$(cgroup_v1_dir blkio)/blkio.throttle.write_bps_device")" "$dev 3145728"
	ct_cleanup
}
