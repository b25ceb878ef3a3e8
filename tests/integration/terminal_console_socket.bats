#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# process.terminal with --console-socket: init's stdio is the slave of a
# pty from the container's devpts, its controlling terminal; the master is
# passed (SCM_RIGHTS) to whoever listens on the socket -- here
# tests/helpers/recvtty, which copies it to a file until EOF.

load helpers
load lifecycle_helpers
load terminal_helpers

setup() {
	shim_setup
	need_recvtty
	cfg '.process.terminal = true'
}

@test "terminal: the workload has a tty, its output comes through the master" {
	sh_cmd 'tty; if [ -t 0 ] && [ -t 1 ] && [ -t 2 ]; then echo "stdio is a tty"; fi; echo done'
	recvtty_bg console
	ct_create --console-socket "$T/console.sock"
	assert_status 0
	assert_eq "$stderr" ""
	ct_start_ok
	recvtty_wait console
	assert_eq "$tty_out" $'/dev/pts/0\nstdio is a tty\ndone'
	# nothing of it went through create's own stdio
	[ ! -s "$T/ct.out" ]
	wait_status stopped
	ct_cleanup
}

@test "terminal: it is the controlling terminal of init's session" {
	# /proc/self/stat field 7 (tty_nr) is the controlling terminal; 0 is none.
	sh_cmd 'set -- $(sed "s/.*) //" /proc/self/stat); echo "tty_nr=$5 sid=$4"'
	recvtty_bg console
	ct_create_ok --console-socket "$T/console.sock"
	ct_start_ok
	recvtty_wait console
	[[ "$tty_out" =~ ^tty_nr=([0-9]+)\ sid=1$ ]]
	[ "${BASH_REMATCH[1]}" != 0 ]
	ct_cleanup
}

@test "terminal: input written to the master reaches the workload" {
	sh_cmd 'read line; echo "got:$line"'
	recvtty_bg console $'hello\n'
	ct_create_ok --console-socket "$T/console.sock"
	ct_start_ok
	recvtty_wait console
	assert_contains "$tty_out" "got:hello"
	ct_cleanup
}

@test "terminal: process.consoleSize sets the window size" {
	cfg '.process.consoleSize = {height: 33, width: 101}'
	sh_cmd 'stty size'
	recvtty_bg console
	ct_create_ok --console-socket "$T/console.sock"
	ct_start_ok
	recvtty_wait console
	assert_eq "$tty_out" "33 101"
	ct_cleanup
}

@test "terminal: create without --console-socket is refused, nothing is left" {
	sh_cmd 'echo hi'
	ct_create
	assert_status 1
	assert_eq "$stderr" 'shim: process.terminal: a detached container needs --console-socket to hand its terminal to'
	[ ! -e "$STATE/$ID" ]
}

@test "terminal: a --console-socket nobody listens on fails create, nothing is left" {
	sh_cmd 'echo hi'
	ct_create --console-socket "$T/nobody.sock"
	assert_status 1
	assert_contains "$stderr" "--console-socket \`$T/nobody.sock\`: connect"
	[ ! -e "$STATE/$ID" ]
	wait_no_tagged
	assert_eq "$(tagged_pids)" ""
}

@test "exec --tty --console-socket: the exec'd process gets a tty of its own" {
	cfg '.process.terminal = false'
	sh_cmd 'exec sleep 1000'
	ct_up
	recvtty_bg exec
	run --separate-stderr shim exec --tty --console-socket "$T/exec.sock" "$ID" \
		/bin/sh -c 'tty; [ -t 0 ] && echo "stdin is a tty"; exit 3'
	assert_status 3
	assert_eq "$output" "" "exec's own stdout"
	recvtty_wait exec
	[[ "$tty_out" =~ ^/dev/pts/[0-9]+$'\n'"stdin is a tty"$ ]]
	run --separate-stderr shim exec --tty --detach "$ID" /bin/true
	assert_error_status 255 'exec: --tty with --detach needs --console-socket'
	ct_cleanup
}
