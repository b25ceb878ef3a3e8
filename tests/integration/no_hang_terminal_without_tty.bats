#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# process.terminal in the foreground (run, exec --tty) without
# --console-socket joins the container's pty to a terminal of ours: stdin,
# stdout or stderr, or the controlling terminal, as runc does.  With none
# (a pipe, no controlling terminal) runc fails at once ("open /dev/tty: no
# such device or address"); so do we, instead of an interactive shell that
# waits on a pipe for ever and ignores the SIGTERM we forward.
#
# Each command runs under setsid (no controlling terminal) with stdin a
# fifo opened read-write (it never ends) and under timeout -k: a hang is a
# failure, not a stuck test.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	mkfifo "$T/stdin"
}

# no_tty_shim ARGS...: shim ARGS without any terminal, stdin never ending.
no_tty_shim() {
	run --separate-stderr timeout -k 5 "$WAIT_SECS" setsid -w env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" \
		--root "$STATE" "$@" <>"$T/stdin"
}

@test "run: process.terminal without a terminal or --console-socket fails at once, nothing is left" {
	cfg '.process.terminal = true'
	set_args sh
	no_tty_shim run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "shim: process.terminal: no terminal to attach the container's to"
	assert_contains "$stderr" "give --console-socket, or set process.terminal to false"
	assert_eq "$output" ""
	nothing_left
}

@test "exec --tty without a terminal or --console-socket fails at once; the container runs on" {
	sh_cmd 'exec sleep 1000'
	ct_up
	no_tty_shim exec --tty "$ID" sh
	assert_status 255
	assert_contains "$stderr" "shim: exec --tty: no terminal to attach the container's to"
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "exec --process with terminal true, without a terminal or --console-socket, fails at once" {
	sh_cmd 'exec sleep 1000'
	ct_up
	jq -n '{terminal: true, cwd: "/", user: {uid: 0, gid: 0}, args: ["sh"]}' >"$T/process.json"
	no_tty_shim exec --process "$T/process.json" "$ID"
	assert_status 255
	assert_contains "$stderr" "shim: process.terminal: no terminal to attach the container's to"
	assert_eq "$(ct_status)" running
	ct_cleanup
}
