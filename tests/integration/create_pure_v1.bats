#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# create/start on a pure cgroup v1 host (no cgroup2 mount at all): there is
# no cgroup.events to tell the container's end, so create's detached
# watcher ends on init's pidfd (the container is stopped when init dies) and
# reads the final counters of the v1 memory cgroup through the fds it holds.
# Before, create failed: "arm the watcher: open `cgroup.events`".  The
# fixture: pure_v1_helpers.bash.

load helpers
load lifecycle_helpers
load pure_v1_helpers

setup() {
	shim_setup
	BG_PIDS=()
	require_pure_v1_view
}

# no_cgroup_left: no directory of $ID in any v1 hierarchy (teardown checks
# too; this says which).
no_cgroup_left() {
	local m
	for m in $(cgroup_v1_mounts); do
		if [ -e "$m/shim/$ID" ]; then
			echo "$m/shim/$ID is left" >&2
			return 1
		fi
	done
}

@test "pure v1: create, start, kill, delete" {
	cfg '.linux.resources.memory = {limit: 33554432}'
	sh_cmd 'exec sleep 600'
	in_pure_v1 '
		shim create --bundle "$BUNDLE" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || { echo "create $?"; cat "$T/ct.err"; exit 1; }
		echo "create 0"
		echo "created $(shim state "$ID" | jq -r .status)"
		shim start "$ID" && echo "start 0"
		echo "running $(shim state "$ID" | jq -r .status)"
		shim kill "$ID" KILL && echo "kill 0"
		for i in $(seq 1 200); do [ "$(shim state "$ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
		echo "stopped $(shim state "$ID" | jq -r .status)"
		shim delete "$ID" && echo "delete 0"
	'
	assert_status 0
	assert_eq "$(pv1 create)" 0
	assert_eq "$(pv1 created)" created
	assert_eq "$(pv1 start)" 0
	assert_eq "$(pv1 running)" running
	assert_eq "$(pv1 kill)" 0
	assert_eq "$(pv1 stopped)" stopped
	assert_eq "$(pv1 delete)" 0
	no_cgroup_left
}

@test "pure v1: a memhog over its 32 MiB, created and started detached, is OOMKilled in state and delete" {
	# The watcher knows init's exit status (pidfd or taskstats): with it
	# and the kernel log the verdict on v1 tells whether init was the victim.
	make_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432} | .process.args = ["/bin/memhog", "-n", "100"]'
	in_pure_v1 '
		create_sr
		shim start "$ID" || exit 1
		wait "$REAPER_PID"
		wait_recorded || { echo "record not ended"; exit 1; }
		echo "populated $(jq -r ".last[\"cgroup.events\"].populated" "$STATE/$ID/record.json")"
		echo "reason $(state_verdict .reason)"
		echo "oom_killed $(state_verdict .oom_killed)"
		echo "annotation $(shim state "$ID" | jq -r ".annotations[\"io.github.shim.oom-killed\"]")"
		echo "witnesses $(state_verdict .witnesses)"
		echo "victim $(state_verdict ".oom.victims[0].command")"
		delete_logged "[.reason, .oom_killed]"
	'
	assert_status 0
	# The record is ended and complete: the counters read after init's exit.
	assert_eq "$(pv1 populated)" false
	assert_eq "$(pv1 reason)" '"OOMKilled"'
	assert_eq "$(pv1 oom_killed)" true
	assert_eq "$(pv1 annotation)" true
	assert_eq "$(pv1 witnesses)" '["counters","kmsg"]'
	assert_eq "$(pv1 victim)" '"memhog"'
	assert_eq "$(pv1 delete)" 0
	assert_eq "$(pv1 deleted)" '["OOMKilled",true]'
	no_cgroup_left
}

@test "pure v1: kill -9 of init from outside is Killed, not an OOM kill" {
	cfg '.linux.resources.memory = {limit: 33554432}'
	sh_cmd 'exec sleep 600'
	in_pure_v1 '
		create_sr
		shim start "$ID" || exit 1
		kill -9 "$(cat "$T/pid")"
		wait "$REAPER_PID"
		wait_recorded || { echo "record not ended"; exit 1; }
		echo "reason $(state_verdict .reason)"
		echo "killed_by $(state_verdict .killed_by)"
		echo "oom_killed $(state_verdict .oom_killed)"
		delete_logged "[.reason, .oom_killed]"
	'
	assert_status 0
	assert_eq "$(pv1 oom_killed)" false
	assert_eq "$(pv1 delete)" 0
	assert_eq "$(pv1 reason)" '"Killed"'
	assert_eq "$(pv1 killed_by)" '"outside"'
	assert_eq "$(pv1 deleted)" '["Killed",false]'
	no_cgroup_left
}
