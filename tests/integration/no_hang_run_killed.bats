#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A `shim run` that dies without its cleanup (SIGKILL: no handler can run)
# leaves its state dir and cgroup; its container dies with it (parent-death
# signal, which reaches a frozen init too).  What is left must be a stopped
# container that `state` and `list` show at once and `delete --force`
# removes.  And a paused foreground container deleted under `shim run`:
# neither command waits for ever.  Every command is bounded by timeout.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	need_cgroup2 "run's cgroup"
	share_dir
	sh_cmd 'echo ready >/tmp/share/ready; exec sleep 1000'
}

# bounded ARGS...: shim ARGS under bats' run and timeout.
bounded() {
	run --separate-stderr timeout -k 5 "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" "$@"
}

# shim_ends: the background `shim run` exits within the bound; $status.
shim_ends() {
	wait_exited "$SHIM_PID" "shim run"
	status=$exit_rc
}

# killed_run_left_behind: after `shim run` was SIGKILLed, its container is
# stopped, state and list say so at once, and delete --force removes all.
killed_run_left_behind() {
	local pid=$1
	kill -9 "$SHIM_PID"
	shim_ends
	wait_gone "$pid"
	dead "$pid"
	[ -d "$STATE/$ID" ]
	bounded state "$ID"
	assert_status 0
	assert_eq "$(jq -r .status <<<"$output")" stopped
	bounded list
	assert_status 0
	assert_contains "$output" "$ID"
	bounded delete --force "$ID"
	assert_status 0
	nothing_left
}

@test "a SIGKILLed shim run leaves a stopped container that delete --force removes" {
	start_bg
	wait_ready
	local pid
	pid=$(shim state "$ID" | jq -r .pid)
	killed_run_left_behind "$pid"
}

@test "a SIGKILLed shim run of a paused container: its init dies, delete --force removes everything" {
	start_bg
	wait_ready
	local pid
	pid=$(shim state "$ID" | jq -r .pid)
	bounded pause "$ID"
	assert_status 0
	killed_run_left_behind "$pid"
}

@test "delete --force of a paused foreground container: delete and shim run both end, nothing is left" {
	start_bg
	wait_ready
	bounded pause "$ID"
	assert_status 0
	bounded delete --force "$ID"
	assert_status 0
	shim_ends
	# init was killed: shim run does not report success
	[ "$status" != 0 ]
	nothing_left
}

@test "delete --force of a paused detached container with a task stopped in the freezer" {
	ct_up
	wait_ready_ct
	bounded pause "$ID"
	assert_status 0
	# a second task, frozen from its first instruction
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" exec --ignore-paused "$ID" /bin/true \
		</dev/null >/dev/null 2>&1 3>&- &
	BG_PIDS+=("$!")
	wait_cgroup_procs 2
	bounded delete --force "$ID"
	assert_status 0
	nothing_left
}
