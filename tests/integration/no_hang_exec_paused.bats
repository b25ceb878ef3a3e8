#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# exec --ignore-paused into a paused container: the exec'd process is cloned
# into the frozen cgroup and stops there at once.  It must not hold the
# state dir's lock meanwhile (resume and delete take it), and `shim exec`
# waits for it interruptibly: the process runs once the container is
# resumed, as in runc.  Every command here runs under `timeout`: a hang is
# a failure, not a stuck test.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	need_cgroup2 pause/resume
	ready_cmd 'ready; exec sleep 1000'
}

# exec_bg ARGS...: `shim exec ARGS` in the background, stdio on files
# ($T/exec.out, $T/exec.err); $EXEC_PID.
exec_bg() {
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" exec "$@" \
		</dev/null >"$T/exec.out" 2>"$T/exec.err" 3>&- &
	EXEC_PID=$!
	BG_PIDS+=("$EXEC_PID")
}

# wait_exec: until the background exec has exited (bounded); its status in
# $exec_rc.
wait_exec() {
	wait_exited "$EXEC_PID" "shim exec"
	exec_rc=$exit_rc
}

# paused_with_exec ARGS...: the container up and paused, `shim exec
# --ignore-paused ARGS` waiting in it.
paused_with_exec() {
	ct_up
	wait_ready_ct
	shim pause "$ID"
	exec_bg --ignore-paused "$ID" "$@"
	# its child is in the frozen cgroup, next to init
	wait_cgroup_procs 2
}

@test "exec --ignore-paused into a paused container: resume is not blocked, then the process runs" {
	paused_with_exec /bin/echo ran
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" resume "$ID"
	assert_status 0
	wait_exec
	assert_eq "$exec_rc" 0 "exec's status ($(cat "$T/exec.err"))"
	assert_eq "$(cat "$T/exec.out")" ran "exec's output"
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "exec --ignore-paused into a paused container: delete --force is not blocked and removes everything" {
	paused_with_exec /bin/echo ran
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" delete --force "$ID"
	assert_status 0
	wait_exec
	# the process was killed before it ran
	assert_eq "$(cat "$T/exec.out")" "" "exec's output"
	nothing_left
}

@test "SIGTERM ends an exec waiting on a paused container; the process never runs" {
	paused_with_exec /bin/sh -c 'echo ran >/tmp/share/ran'
	kill -TERM "$EXEC_PID"
	wait_exec
	assert_eq "$exec_rc" 255 "exec's status"
	assert_eq "$(cat "$T/exec.err")" \
		"shim: exec: signal 15 (Terminated) before the process started: it was not run"
	# its child is gone, and the lock with it
	wait_cgroup_procs 1
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" resume "$ID"
	assert_status 0
	# a later exec runs, the killed one did not
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" exec "$ID" /bin/cat /tmp/share/ran
	assert_status 1
	[ ! -e "$T/share/ran" ]
	ct_cleanup
}

@test "a SIGKILLed exec waiting on a paused container: once resumed, its process does not run" {
	paused_with_exec /bin/sh -c 'echo ran >/tmp/share/ran'
	kill -KILL "$EXEC_PID"
	wait_exec
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" resume "$ID"
	assert_status 0
	# thawed, the child finds its `shim exec` gone and exits
	wait_cgroup_procs 1
	[ ! -e "$T/share/ran" ]
	ct_cleanup
}

@test "exec --ignore-paused into a running container runs at once" {
	ct_up
	wait_ready_ct
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" exec --ignore-paused "$ID" /bin/echo ran
	assert_status 0
	assert_eq "$output" ran
	ct_cleanup
}
