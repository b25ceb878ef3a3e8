#!/usr/bin/env bats
# linux.seccomp: every action, errnoRet, argument comparisons, unknown
# names skipped, and the filter loaded with or without noNewPrivileges.
# sched_yield (24 on x86_64) is the guinea pig: the shell never makes it,
# it ignores its arguments but the filter sees them, so any comparison can
# be tried on it.

load helpers
load security_helpers

setup() {
	shim_setup
	with_syscall_helper
}

# rule JSON...: linux.seccomp = ALLOW by default plus these syscalls[].
rules() {
	local IFS=,
	seccomp_cfg "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$*]}"
}

# yield_with ARG...: the helper's answer for sched_yield(ARG...), in $output.
yield_with() {
	sh_cmd "/tmp/share/syscall 24 $*; echo rc=\$?"
	run_shim
	assert_status 0
}

@test "the filter is loaded: Seccomp 2, one filter, NoNewPrivs as configured" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO"}'
	set_args /bin/grep -E '^(NoNewPrivs|Seccomp)' /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(status_field Seccomp)" 2 Seccomp
	assert_eq "$(status_field Seccomp_filters)" 1 Seccomp_filters
	assert_eq "$(status_field NoNewPrivs)" 1 NoNewPrivs
}

@test "without noNewPrivileges the filter still loads, and NoNewPrivs stays 0 (libseccomp would set it)" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO"}'
	cfg '.process.noNewPrivileges = false'
	set_args /bin/grep -E '^(NoNewPrivs|Seccomp)' /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(status_field Seccomp)" 2 Seccomp
	assert_eq "$(status_field NoNewPrivs)" 0 NoNewPrivs
}

@test "without noNewPrivileges, a non-root process: loaded before its capabilities are reduced" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO", "errnoRet": 7}'
	cfg '.process.noNewPrivileges = false | .process.user = {uid: 1000, gid: 1000}'
	yield_with
	assert_eq "$output" "errno 7
rc=0"
}

@test "SCMP_ACT_ERRNO returns EPERM unless errnoRet says otherwise" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO"}'
	yield_with
	assert_eq "$output" "errno 1
rc=0"
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO", "errnoRet": 18}'
	yield_with
	assert_eq "$output" "errno 18
rc=0"
}

@test "defaultAction with defaultErrnoRet applies to every syscall not listed" {
	# Everything the shell and the helper need is allowed; sched_yield is not.
	seccomp_cfg "$(jq -n '{defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 38,
		syscalls: [{names: ["sched_yield"], action: "SCMP_ACT_LOG"}]}')"
	cfg '.linux.seccomp.defaultAction = "SCMP_ACT_ALLOW" | del(.linux.seccomp.defaultErrnoRet)
		| .linux.seccomp.syscalls = [{names: ["sched_yield"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]'
	yield_with
	assert_eq "$output" "errno 38
rc=0"
}

@test "SCMP_ACT_KILL, KILL_THREAD, KILL_PROCESS and TRAP end the caller with SIGSYS" {
	local a
	for a in SCMP_ACT_KILL SCMP_ACT_KILL_THREAD SCMP_ACT_KILL_PROCESS SCMP_ACT_TRAP; do
		rules "{\"names\": [\"sched_yield\"], \"action\": \"$a\"}"
		yield_with
		# 128 + SIGSYS (31)
		assert_eq "$output" "rc=159" "$a"
	done
}

@test "SCMP_ACT_TRACE without a tracer fails with ENOSYS; LOG and ALLOW let the call through" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_TRACE"}'
	yield_with
	assert_eq "$output" "errno 38
rc=0" TRACE
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_LOG"}'
	yield_with
	assert_eq "$output" "ok 0
rc=0" LOG
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["sched_yield"], "action": "SCMP_ACT_ALLOW"}]}'
	cfg '.linux.seccomp.defaultAction = "SCMP_ACT_ALLOW"'
	yield_with
	assert_eq "$output" "ok 0
rc=0" ALLOW
}

@test "every comparison operator, on the first argument" {
	local op v yes no
	# op value [valueTwo] | an argument that matches | one that does not
	while read -r op v yes no; do
		rules "{\"names\": [\"sched_yield\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 13,
			\"args\": [{\"index\": 0, \"op\": \"$op\", $v}]}"
		yield_with "$yes"
		assert_eq "${output%%$'\n'*}" "errno 13" "$op matches $yes"
		yield_with "$no"
		assert_eq "${output%%$'\n'*}" "ok 0" "$op does not match $no"
	done <<-'EOF'
		SCMP_CMP_NE "value":5 6 5
		SCMP_CMP_LT "value":5 4 5
		SCMP_CMP_LE "value":5 5 6
		SCMP_CMP_EQ "value":5 5 4
		SCMP_CMP_GE "value":5 5 4
		SCMP_CMP_GT "value":5 6 5
		SCMP_CMP_MASKED_EQ "value":240,"valueTwo":32 0x2f 0x4f
	EOF
}

@test "conditions on different arguments all have to hold; on the same argument, any one" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13,
		"args": [{"index": 0, "op": "SCMP_CMP_EQ", "value": 1}, {"index": 1, "op": "SCMP_CMP_EQ", "value": 2}]}'
	yield_with 1 2
	assert_eq "${output%%$'\n'*}" "errno 13" "both hold"
	yield_with 1 3
	assert_eq "${output%%$'\n'*}" "ok 0" "only the first holds"
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13,
		"args": [{"index": 0, "op": "SCMP_CMP_EQ", "value": 1}, {"index": 0, "op": "SCMP_CMP_EQ", "value": 2}]}'
	yield_with 2
	assert_eq "${output%%$'\n'*}" "errno 13" "the second one holds"
	yield_with 3
	assert_eq "${output%%$'\n'*}" "ok 0" "neither holds"
}

@test "a syscall name unknown on this architecture is skipped, the others in the rule still apply" {
	rules '{"names": ["no_such_syscall", "sched_yield"], "action": "SCMP_ACT_ERRNO", "errnoRet": 9}'
	sh_cmd '/tmp/share/syscall 24'
	run --separate-stderr shim --debug run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$output" "errno 9"
	assert_contains "$stderr" 'linux.seccomp.syscalls[0].names[0]: `no_such_syscall` is not a syscall on this architecture: skipped'
}

@test "flags and architectures are accepted and the filter still works" {
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		"flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_TSYNC"],
		"syscalls": [{"names": ["sched_yield"], "action": "SCMP_ACT_ERRNO"}]}'
	yield_with
	assert_eq "$output" "errno 1
rc=0"
}

@test "an unknown action is refused by its JSON path" {
	rules '{"names": ["sched_yield"], "action": "SCMP_ACT_ALLOW"}' '{"names": ["getpid"], "action": "SCMP_ACT_NOPE"}'
	run_shim
	assert_error "$BUNDLE/config.json: linux.seccomp.syscalls[1].action: unknown action \"SCMP_ACT_NOPE\""
}
