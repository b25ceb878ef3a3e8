#!/usr/bin/env bats
# A startContainer hook runs under the container's seccomp filter (as in
# runc): what the filter forbids the container, the hook cannot do either.

load helpers
load security_helpers
load lifecycle_helpers

@test "a startContainer hook that makes a syscall the filter kills is killed, and the start fails" {
	share_dir
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ALLOW",
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_KILL"}]}'
	sh_hook startContainer 'mkdir /tmp/share/by-hook'
	set_args /bin/true
	run_shim
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.startContainer[0] "/bin/sh": killed by signal 31'
	[ ! -e "$T/share/by-hook" ]
}

@test "with noNewPrivileges off too (the filter is then loaded earlier)" {
	share_dir
	cfg '.process.noNewPrivileges = false'
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ALLOW",
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]}'
	sh_hook startContainer 'mkdir /tmp/share/by-hook'
	set_args /bin/true
	run_shim
	assert_status 1
	assert_contains "$stderr" 'shim: error running hook #0: hooks.startContainer[0] "/bin/sh": exited with status 1'
	assert_contains "$stderr" 'Permission denied'
	[ ! -e "$T/share/by-hook" ]
}
