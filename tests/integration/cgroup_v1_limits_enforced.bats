#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# On a hybrid host (controllers on cgroup v1, a controller-less cgroup2 at
# /sys/fs/cgroup/unified) or a pure v1 one, linux.resources go to the v1
# hierarchies, /sys/fs/cgroup/CTRL/shim/ID, and the kernel enforces them:
# no --allow-unenforced-limits.  The container's processes are in every
# hierarchy; delete removes every directory.  (A cgroup v2 host has no v1
# hierarchy: tests/vm covers it.)

load helpers
load lifecycle_helpers

# The controllers this host mounts on v1, as the tests below look for them.
V1_CTRLS=(memory pids cpu cpuset freezer devices blkio)

setup() {
	shim_setup
	BG_PIDS=()
	require_cgroup_v1_memory
}

@test "the README's memory example runs with its limit in force: memhog is OOM-killed" {
	make_bundle memhog
	run_shim
	assert_status 137
	assert_not_contains "$stderr" "cannot enforce"
	# It got near its 64 MiB, and no further.
	assert_contains "$output" "memhog: 56 MiB"
	assert_not_contains "$output" "memhog: 72 MiB"
}

@test "memory: the limit is in memory.limit_in_bytes; an allocation over it is killed, oom_kill counts it" {
	make_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432}'
	ct_up
	wait_status stopped
	local d
	d=$(cgroup_v1_dir memory)
	assert_eq "$(cat "$d/memory.limit_in_bytes")" 33554432
	assert_eq "$(awk '$1 == "oom_kill" { print $2 }' "$d/memory.oom_control")" 1 "memory.oom_control oom_kill"
	# The peak reached the limit.
	assert_eq "$(cat "$d/memory.max_usage_in_bytes")" 33554432 "memory.max_usage_in_bytes"
	ct_cleanup
}

@test "pids: pids.max is the limit, and forks beyond it fail" {
	share_dir
	cfg '.linux.resources.pids = {limit: 5}'
	sh_cmd 'echo ready >/tmp/share/ready; for i in 1 2 3 4 5 6 7 8; do sleep 1000 & done 2>/tmp/share/err; wait'
	ct_up
	wait_ready_ct
	wait_file "$T/share/err"
	assert_contains "$(cat "$T/share/err")" "fork" "the shell's failed fork"
	local d
	d=$(cgroup_v1_dir pids)
	assert_eq "$(cat "$d/pids.max")" 5
	[ "$(cat "$d/pids.current")" -le 5 ]
	ct_cleanup
}

@test "cpu: shares, quota and period in the cpu hierarchy; cpuset cpus" {
	cfg '.linux.resources.cpu = {shares: 512, quota: 25000, period: 50000, cpus: "0"}'
	sh_cmd 'exec sleep 1000'
	ct_up
	local d
	d=$(cgroup_v1_dir cpu)
	assert_eq "$(cat "$d/cpu.shares")" 512
	assert_eq "$(cat "$d/cpu.cfs_quota_us")" 25000
	assert_eq "$(cat "$d/cpu.cfs_period_us")" 50000
	assert_eq "$(cat "$(cgroup_v1_dir cpuset)/cpuset.cpus")" 0
	ct_cleanup
}

@test "update raises and lowers memory.limit_in_bytes (memsw written in the order the kernel needs)" {
	cfg '.linux.resources.memory = {limit: 33554432}'
	sh_cmd 'exec sleep 1000'
	ct_up
	local d
	d=$(cgroup_v1_dir memory)
	run --separate-stderr shim update --memory 128M "$ID"
	assert_status 0
	assert_eq "$(cat "$d/memory.limit_in_bytes")" 134217728 "raised"
	if [ -e "$d/memory.memsw.limit_in_bytes" ]; then
		assert_eq "$(cat "$d/memory.memsw.limit_in_bytes")" 134217728 "memsw raised (no swap)"
	fi
	run --separate-stderr shim update --memory 16M "$ID"
	assert_status 0
	assert_eq "$(cat "$d/memory.limit_in_bytes")" 16777216 "lowered"
	run --separate-stderr shim update --resources - "$ID" <<<'{"memory": {"limit": 67108864, "swap": 134217728}}'
	assert_status 0
	assert_eq "$(cat "$d/memory.limit_in_bytes")" 67108864 "with swap"
	if [ -e "$d/memory.memsw.limit_in_bytes" ]; then
		assert_eq "$(cat "$d/memory.memsw.limit_in_bytes")" 134217728 "memsw: memory + swap"
	fi
	ct_cleanup
}

@test "a limit v1 cannot express (unified memory.high) is refused by name, in runc's words too" {
	cfg '.linux.resources.unified = {"memory.high": "50000000"}'
	ct_create
	assert_status 1
	assert_contains "$stderr" "linux.resources.unified.memory.high: cannot enforce it"
	# runc's (and crun's) "invalid configuration: cannot use unified on
	# cgroup v1": scripts grep for its first words
	assert_contains "$stderr" "shim: invalid configuration: linux.resources.unified.memory.high"
	[ ! -e "$STATE/$ID" ]
}

@test "the container's processes are in every hierarchy; delete removes every directory" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local pid c d
	pid=$(ct_field pid)
	for c in "${V1_CTRLS[@]}"; do
		[ -n "$(cgroup_v1_mount "$c")" ] || continue
		d=$(cgroup_v1_dir "$c")
		assert_eq "$(cat "$d/cgroup.procs")" "$pid" "$c: cgroup.procs"
	done
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	for c in "${V1_CTRLS[@]}"; do
		d=$(cgroup_v1_mount "$c")
		[ -n "$d" ] || continue
		if [ -e "$d/shim/$ID" ]; then
			echo "$d/shim/$ID is left after delete" >&2
			return 1
		fi
	done
}

@test "kill --all reaches every process in the container" {
	share_dir
	sh_cmd 'sleep 1000 & sleep 1000 & echo ready >/tmp/share/ready; wait'
	ct_up
	wait_ready_ct
	local d pids p
	d=$(cgroup_v1_dir memory)
	pids=$(cat "$d/cgroup.procs")
	assert_eq "$(wc -l <<<"$pids")" 3 "sh and two sleeps"
	run --separate-stderr shim kill --all "$ID" KILL
	assert_status 0
	wait_status stopped
	for p in $pids; do
		timeout "$WAIT_SECS" sh -c 'while kill -0 "$1" 2>/dev/null && [ "$(awk "{print \$3}" /proc/$1/stat)" != Z ]; do sleep 0.05; done' _ "$p"
		dead "$p"
	done
	ct_cleanup
}

@test "exec: the new process joins every hierarchy too" {
	sh_cmd 'exec sleep 1000'
	ct_up
	# Not under `run`: the detached process would hold its output open.
	shim exec -d --pid-file "$T/exec.pid" "$ID" sleep 999 </dev/null >/dev/null 2>&1 3>&-
	local pid c d
	pid=$(cat "$T/exec.pid")
	for c in "${V1_CTRLS[@]}"; do
		[ -n "$(cgroup_v1_mount "$c")" ] || continue
		d=$(cgroup_v1_dir "$c")
		grep -qx "$pid" "$d/cgroup.procs" || {
			echo "$c: exec'd pid $pid not in $d/cgroup.procs: $(cat "$d/cgroup.procs")" >&2
			return 1
		}
	done
	ct_cleanup
}
