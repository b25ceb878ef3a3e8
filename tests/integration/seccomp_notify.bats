#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# linux.seccomp with SCMP_ACT_NOTIFY: the notify fd goes to listenerPath
# with runc's container process state (listenerMetadata as its metadata),
# and the listener really decides the syscall.  tests/helpers/
# seccomp-listener plays the listener; sched_yield (24 on x86_64) is the
# notified syscall, made by tests/integration/syscall.c.

load helpers
load security_helpers

LISTENER=$REPO/tests/helpers/seccomp-listener

setup() {
	shim_setup
	with_syscall_helper
	mkdir "$T/l"
	"$LISTENER" "$T/l.sock" "$T/l" 42 3>&- &
	LISTENER_PID=$!
	timeout 10 sh -c 'until [ -e "$1" ]; do sleep 0.05; done' _ "$T/l/listening"
	seccomp_cfg "$(jq -nc --arg p "$T/l.sock" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $p,
		listenerMetadata: "meta-of-the-test", syscalls: [{names: ["sched_yield"], action: "SCMP_ACT_NOTIFY"}]}')"
}

teardown() {
	kill "$LISTENER_PID" 2>/dev/null || true
	shim_teardown
}

@test "SCMP_ACT_NOTIFY: the listener gets the notify fd and the process state, and answers the syscall" {
	sh_cmd '/tmp/share/syscall 24; echo rc=$?'
	run_shim
	assert_status 0
	# The listener's answer, -42, is what the process got.
	assert_eq "$output" "errno 42
rc=0"
	assert_eq "$(cat "$T/l/notified")" 24
	assert_contains "$(cat "$T/l/fd")" "seccomp notify"
	assert_eq "$(jq -r .metadata "$T/l/state.json")" meta-of-the-test
	assert_eq "$(jq -c .fds "$T/l/state.json")" '["seccompFd"]'
	assert_eq "$(jq -r .state.id "$T/l/state.json")" "$ID"
	assert_eq "$(jq -r .state.bundle "$T/l/state.json")" "$BUNDLE"
	# It ends when no task is left under the filter.
	wait "$LISTENER_PID"
}

@test "a listenerPath nobody listens on fails the start, naming it" {
	kill "$LISTENER_PID"
	# Gone for sure (143: our SIGTERM) before the start tries to connect.
	status=0
	wait "$LISTENER_PID" || status=$?
	assert_status 143
	rm -f "$T/l.sock"
	run_shim
	assert_status 1
	assert_contains "$stderr" "linux.seccomp.listenerPath \`$T/l.sock\`: failed to connect with seccomp agent"
}
