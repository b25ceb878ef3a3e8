#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# state.json records init's pid with its start time: a pid that now names
# another process (pid reuse) is not the container.  The container reads
# as stopped, and kill, exec and delete --force never touch that process.

load helpers
load lifecycle_helpers

# starttime PID: field 22 of /proc/PID/stat.
starttime() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $20 }'
}

# other_process: $OTHER, a sleep of the test (not of the container) whose
# start time differs from the one state.json recorded for init.
other_process() {
	local want i
	want=$(jq -r .pid_start "$STATE/$ID/state.json")
	[ -n "$want" ] || return 1
	[ "$want" != null ] || return 1
	for ((i = 0; i < 100; i++)); do
		sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
		OTHER=$!
		BG_PIDS+=("$OTHER")
		[ "$(starttime "$OTHER")" != "$want" ] && return 0
		# Started in the same clock tick as init: try again.
		kill -9 "$OTHER"
		# 137: it died of our SIGKILL, and nothing else.
		wait "$OTHER" || [ $? = 137 ]
		sleep 0.02
	done
	return 1
}

# point_pid_at PID: rewrite state.json's pid, as a reused pid would read.
point_pid_at() {
	jq -c --argjson p "$1" '.pid = $p' "$STATE/$ID/state.json" >"$T/state.json.new"
	mv "$T/state.json.new" "$STATE/$ID/state.json"
}

@test "a pid rewritten to another live process: status stopped, pid 0" {
	sh_cmd 'exec sleep 1000'
	ct_up
	other_process
	point_pid_at "$OTHER"
	assert_eq "$(ct_status)" stopped
	assert_eq "$(ct_field pid)" 0
	run --separate-stderr shim list --format json
	assert_status 0
	assert_eq "$(jq -r --arg id "$ID" '.[] | select(.id == $id) | .status' <<<"$output")" stopped
	alive "$OTHER"
	kill -9 "$OTHER"
	ct_cleanup
}

@test "kill refuses and does not signal the other process" {
	sh_cmd 'exec sleep 1000'
	ct_up
	other_process
	point_pid_at "$OTHER"
	run --separate-stderr shim kill "$ID" KILL
	assert_error "cannot kill container \`$ID\`: it is stopped"
	run --separate-stderr shim kill "$ID"
	assert_error "cannot kill container \`$ID\`: it is stopped"
	alive "$OTHER"
	kill -9 "$OTHER"
	ct_cleanup
}

@test "exec refuses to enter the other process's namespaces" {
	sh_cmd 'exec sleep 1000'
	ct_up
	other_process
	point_pid_at "$OTHER"
	run --separate-stderr shim exec "$ID" /bin/true
	assert_error_status 255 "cannot exec in container \`$ID\`: it is stopped"
	alive "$OTHER"
	kill -9 "$OTHER"
	ct_cleanup
}

@test "delete --force removes the container and spares the other process" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local init
	init=$(ct_field pid)
	other_process
	point_pid_at "$OTHER"
	# The real init goes first, through the cgroup (kill --all), so that
	# delete has only the rewritten pid to (not) act on.
	run --separate-stderr shim kill --all "$ID" KILL
	assert_status 0
	wait_gone "$init"
	dead "$init"
	wait_no_tagged
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	[ ! -e "$STATE/$ID" ]
	alive "$OTHER"
	kill -9 "$OTHER"
	wait_no_tagged
}

@test "a pid that names no process any more: stopped" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local gone
	sleep 0 &
	gone=$!
	wait "$gone"
	point_pid_at "$gone"
	assert_eq "$(ct_status)" stopped
	run --separate-stderr shim kill "$ID" KILL
	assert_error "cannot kill container \`$ID\`: it is stopped"
	ct_cleanup
}
