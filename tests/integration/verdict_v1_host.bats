#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The death verdict on a hybrid (or pure v1) host, where the container's
# memory limit lives in the cgroup v1 memory hierarchy: the counters are read
# from /sys/fs/cgroup/memory/..., the OOM notification comes through an
# eventfd (cgroup.event_control), the kernel log names the victim by the v1
# memory path.  (A cgroup v2 host has no v1 hierarchy: tests/vm covers it.)

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

@test "v1: memhog over its 64 MiB limit is OOMKilled, the kernel log names memhog" {
	make_bundle memhog
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" '"OOMKilled"'
	assert_eq "$(verdict_field .oom_killed)" true
	assert_eq "$(verdict_field .memory_limit)" 67108864
	assert_eq "$(verdict_field .memory_limit_enforced)" true
	assert_eq "$(verdict_field .killed_by)" null
	assert_eq "$(verdict_field '.oom.kills')" 1
	assert_eq "$(verdict_field '.oom.group_kill')" null "no group kill on v1"
	# The kernel log is readable here as root: it names the victim and the
	# limit that ran out (the container's own, by its v1 memory path).
	assert_eq "$(verdict_field '.oom.victims[0].command')" '"memhog"'
	assert_eq "$(verdict_field '.oom.oom_memcg')" '"."'
	assert_eq "$(verdict_field '.oom.scope')" '"container"'
	assert_eq "$(verdict_field .witnesses)" '["counters","kmsg"]'
}

@test "v1: init killed with kill -9 from outside is Killed by outside, not an OOM kill" {
	share_dir
	cfg '.linux.resources.memory = {limit: 67108864}'
	sh_cmd 'echo ready >/tmp/share/ready; sleep 1000 & wait'
	start_bg --json
	wait_ready
	local init
	init=$(cat "/proc/$SHIM_PID/task/$SHIM_PID/children")
	[ -n "$init" ]
	kill -9 "$init"
	wait_shim
	assert_status 137
	stderr=$(cat "$T/err")
	assert_eq "$(verdict_field .reason)" '"Killed"'
	assert_eq "$(verdict_field .killed_by)" '"outside"'
	assert_eq "$(verdict_field .oom_killed)" false
	assert_eq "$(verdict_field .memory_limit)" 67108864
	assert_eq "$(verdict_field .witnesses)" '["counters","kmsg"]'
}

@test "v1: exit 137 by itself is Exited, not an OOM kill" {
	cfg '.linux.resources.memory = {limit: 67108864}'
	sh_cmd 'exit 137'
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" '"Exited"'
	assert_eq "$(verdict_field .exit_code)" 137
	assert_eq "$(verdict_field .oom_killed)" false
	# From the v1 counters as well as the kernel log.
	assert_eq "$(verdict_field .witnesses)" '["counters","kmsg"]'
}
