#!/usr/bin/env bats
# SCMP_ACT_NOTIFY that can never work is refused up front, in runc's words:
# no listenerPath ("failed to connect with seccomp agent"), and a notify
# rule on write (the runtime itself writes after the filter is loaded).

load helpers
load security_helpers

notify_on() {
	seccomp_cfg "$(jq -nc --argjson n "$1" '{defaultAction: "SCMP_ACT_ALLOW",
		syscalls: [{names: $n, action: "SCMP_ACT_NOTIFY"}]}')"
}

@test "SCMP_ACT_NOTIFY without a listenerPath: failed to connect" {
	notify_on '["mkdir"]'
	run_shim
	assert_error "$BUNDLE/config.json: linux.seccomp.listenerPath: required when an action is SCMP_ACT_NOTIFY: failed to connect with seccomp agent (none given)"
}

@test "SCMP_ACT_NOTIFY with an empty listenerPath: the same" {
	notify_on '["mkdir"]'
	cfg '.linux.seccomp.listenerPath = ""'
	run_shim
	assert_error "$BUNDLE/config.json: linux.seccomp.listenerPath: required when an action is SCMP_ACT_NOTIFY: failed to connect with seccomp agent (none given)"
}

@test "an empty listenerPath without SCMP_ACT_NOTIFY is no listener at all" {
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "", "listenerMetadata": "bar"}'
	set_args /bin/true
	run_shim
	assert_status 0
}

@test "SCMP_ACT_NOTIFY on write is refused" {
	# A listenerPath nobody listens on: the refusal comes before connecting.
	notify_on '["read", "write"]'
	cfg --arg p "$T/none.sock" '.linux.seccomp.listenerPath = $p'
	run_shim
	assert_status 1
	assert_eq "$stderr" "shim: linux.seccomp.syscalls[0]: SCMP_ACT_NOTIFY cannot be used for the write syscall"
}
