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
	require_cgroup_v1_memory
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

@test "v1: run reads the counters when the OOM happens (the eventfd), not only after init died" {
	make_bundle memhog
	run --separate-stderr shim --debug run --bundle "$BUNDLE" "$ID"
	assert_status 137
	# One snapshot on the OOM notification, one after init's exit.
	local n
	n=$(grep -c "cgroup update: memory.events.local" <<<"$stderr")
	[ "$n" -ge 2 ]
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

# state_verdict FILTER: of the verdict in `shim state`'s annotations.
state_verdict() {
	shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"]' | jq -c "$1"
}

# create_under_subreaper: `shim create` as a child of tests/helpers/subreaper,
# which inherits init and reaps it at once, as conmon does (so the watcher
# learns init's status from the kernel); $REAPER_PID.  As in
# lifecycle_exit_status.bats.
create_under_subreaper() {
	env SHIM_TEST_TAG="$TAG" "$REPO/tests/helpers/subreaper" "$SHIM_BIN" --root "$STATE" create \
		--bundle "$BUNDLE" --pid-file "$T/pid" "$ID" 3>&- &
	REAPER_PID=$!
	timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

# wait_recorded: until create's watcher wrote its last record (bounded).
wait_recorded() {
	timeout 20 sh -c 'until [ "$(jq -r .ended "$1" 2>/dev/null)" = true ]; do sleep 0.05; done' \
		_ "$STATE/$ID/record.json"
}

@test "v1: create, start, kill -9 from outside, delete: the state's verdict says Killed, oom_killed false" {
	cfg '.linux.resources.memory = {limit: 67108864}'
	sh_cmd 'exec sleep 1000'
	create_under_subreaper
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	wait_recorded
	# The watcher read the v1 memory cgroup: no OOM kill counted.
	assert_eq "$(jq -c .last.cgroup_v1 "$STATE/$ID/record.json")" true "the record's snapshot is v1"
	assert_eq "$(shim state "$ID" | jq -r '.annotations["io.github.shim.oom-killed"]')" false
	assert_eq "$(state_verdict .oom_killed)" false
	assert_eq "$(state_verdict .witnesses)" '["counters","kmsg"]'
	assert_eq "$(state_verdict .reason)" '"Killed"'
	assert_eq "$(state_verdict .killed_by)" '"outside"'
	run --separate-stderr shim delete "$ID"
	assert_status 0
}

@test "v1: create, start, memhog over its limit: the state's verdict says OOMKilled" {
	make_bundle memhog
	create_under_subreaper
	shim start "$ID"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(state_verdict .reason)" '"OOMKilled"'
	assert_eq "$(state_verdict .oom_killed)" true
	assert_eq "$(state_verdict .memory_limit)" 67108864
	assert_eq "$(state_verdict .witnesses)" '["counters","kmsg"]'
	assert_eq "$(state_verdict '.oom.victims[0].command')" '"memhog"'
	run --separate-stderr shim delete "$ID"
	assert_status 0
}
