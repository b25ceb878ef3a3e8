#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim events ID` ends (status 0) when the container stops or goes away,
# whatever the order: its cgroup removed under it (its files then poll
# ready for ever and read ENODEV), init gone while other processes keep the
# cgroup populated.  Never a stream that waits, or spins, for ever.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

# events_bg: `shim events --interval 1m $ID` in the background ($EV_PID),
# its output in $T/events.out and .err; returns once it has the cgroup's
# cgroup.events open (it is then streaming).
events_bg() {
	"$SHIM_BIN" --root "$STATE" events --interval 1m "$ID" </dev/null >"$T/events.out" 2>"$T/events.err" 3>&- &
	EV_PID=$!
	BG_PIDS+=("$EV_PID")
	timeout "$WAIT_SECS" sh -c 'until ls -l /proc/$1/fd 2>/dev/null | grep -q "cgroup.events"; do sleep 0.05; done' \
		_ "$EV_PID"
}

# events_ends: events exits within the bound, with status 0.
events_ends() {
	wait_exited "$EV_PID" events
	assert_eq "$exit_rc" 0 "events' exit status ($(cat "$T/events.err"))"
}

@test "events ends with status 0 when the container is deleted before it looks again" {
	ct_up
	events_bg
	# events sleeps through the delete: when it runs again, the cgroup
	# and the state dir are gone.
	kill -STOP "$EV_PID"
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" delete --force "$ID"
	kill -CONT "$EV_PID"
	assert_status 0
	events_ends
	nothing_left
}

@test "events ends with status 0 when the container is deleted while it streams (5 rounds)" {
	local round
	for ((round = 0; round < 5; round++)); do
		ct_up
		events_bg
		run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" delete --force "$ID"
		assert_status 0
		events_ends
		nothing_left
	done
}

@test "events ends with status 0 when init exits while its cgroup stays populated" {
	# No pid namespace: init's background child outlives it.
	del_namespace pid
	sh_cmd 'sleep 1000 & exec sleep 1000'
	need_cgroup2 events
	ct_up
	wait_cgroup_procs 2
	events_bg
	shim kill "$ID" KILL
	wait_status stopped
	events_ends
	ct_cleanup
}

@test "events ends with status 0 when its reader is gone (| head -n 1); the container runs on" {
	ct_up
	# A SIGPIPE does not end shim (a broken pipe must never cost a run its
	# cleanup): the failed write must end the stream instead.
	run --separate-stderr bash -c 'timeout "$1" "$2" --root "$3" events --interval 100ms "$4" 3>&- | head -n 1 >/dev/null
		echo "${PIPESTATUS[0]}"' _ "$WAIT_SECS" "$SHIM_BIN" "$STATE" "$ID"
	local rc=$output status_after
	status_after=$(ct_field status)
	ct_cleanup
	assert_eq "$rc" 0 "events' exit status (124: still running at the bound)"
	assert_eq "$status_after" running
}
