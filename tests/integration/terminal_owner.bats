#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The pty of a process whose user is not root is that user's (its group
# stays devpts' gid=5, tty), for init (`create`/`run`) and for `exec -t`,
# as runc does: otherwise the user cannot use its own terminal.

load helpers
load lifecycle_helpers
load terminal_helpers

setup() {
	shim_setup
	need_recvtty
	cfg '.process.terminal = true'
}

@test "terminal of a process run as 1000:100: owned by 1000, group tty" {
	cfg '.process.user = {uid: 1000, gid: 100}'
	sh_cmd 'stat -c %u:%g $(tty)'
	recvtty_bg console
	ct_create_ok --console-socket "$T/console.sock"
	ct_start_ok
	recvtty_wait console
	assert_eq "$tty_out" "1000:5"
	ct_cleanup
}

@test "terminal of a root process: root's, group tty" {
	sh_cmd 'stat -c %u:%g $(tty)'
	recvtty_bg console
	ct_create_ok --console-socket "$T/console.sock"
	ct_start_ok
	recvtty_wait console
	assert_eq "$tty_out" "0:5"
	ct_cleanup
}

@test "exec -t --user 1000:100: the exec'd process's terminal is 1000's" {
	cfg '.process.terminal = false'
	sh_cmd 'exec sleep 1000'
	ct_up
	recvtty_bg exec
	run --separate-stderr shim exec --tty --user 1000:100 --console-socket "$T/exec.sock" "$ID" \
		/bin/sh -c 'stat -c %u:%g $(tty)'
	assert_status 0
	recvtty_wait exec
	assert_eq "$tty_out" "1000:5"
	ct_cleanup
}
