#!/usr/bin/env bats
# A syscall newer than every syscall a profile names gets -ENOSYS, not the
# profile's default errno (runc's stub), so that the C library falls back
# to an older call (glibc's clone3, openat2, faccessat2, ...).  Syscalls the
# profile could have named, and did not, still get the default action.

load helpers
load security_helpers

# x86_64's syscalls from pidfd_send_signal (424) on: the profile below
# names none of them, so its highest syscall is below 424.
NEW_SYSCALLS='["pidfd_send_signal", "io_uring_setup", "io_uring_enter", "io_uring_register", "open_tree",
	"move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "pidfd_open", "clone3", "close_range", "openat2",
	"pidfd_getfd", "faccessat2", "process_madvise", "epoll_pwait2", "mount_setattr", "quotactl_fd",
	"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "memfd_secret", "process_mrelease",
	"futex_waitv", "set_mempolicy_home_node", "cachestat", "fchmodat2", "map_shadow_stack", "futex_wake",
	"futex_wait", "futex_requeue", "statmount", "listmount", "lsm_get_self_attr", "lsm_set_self_attr",
	"lsm_list_modules", "mseal", "setxattrat", "getxattrat", "listxattrat", "removexattrat", "open_tree_attr"]'

setup() {
	shim_setup
	need_podman_profile
	with_syscall_helper
	# podman's profile as a pre-5.3 one: default EPERM, none of the new
	# syscalls named.
	seccomp_cfg "$(oci_profile "$PODMAN_CAPS" | jq --argjson new "$NEW_SYSCALLS" '
		.defaultErrnoRet = 1 | .syscalls |= map(.names -= $new | select(.names | length > 0))')"
}

@test "a syscall above the profile's highest gets ENOSYS; one below that it does not allow, the default errno" {
	# clone3 (435) and a number no kernel has yet (1000): ENOSYS (38);
	# kexec_load (246, not allowed without CAP_SYS_BOOT): EPERM (1).
	sh_cmd '/tmp/share/syscall 435; /tmp/share/syscall 1000; /tmp/share/syscall 246'
	run_shim
	assert_status 0
	assert_eq "$output" "errno 38
errno 38
errno 1"
}

@test "the stub is part of the one filter: still one filter loaded" {
	set_args /bin/grep ^Seccomp_filters: /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(status_field Seccomp_filters)" 1 Seccomp_filters
}

@test "with a default action of ALLOW there is no stub: the kernel answers" {
	seccomp_cfg '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["kexec_load"], "action": "SCMP_ACT_ERRNO"}]}'
	# No syscall 1000: the kernel's own ENOSYS.  clone3 with a NULL
	# argument: the kernel's EINVAL (22), so the call got through.
	sh_cmd '/tmp/share/syscall 435; /tmp/share/syscall 246'
	run_shim
	assert_status 0
	assert_eq "$output" "errno 22
errno 1"
}

@test "with a default action of KILL, a new syscall still gets ENOSYS and the process lives" {
	seccomp_cfg "$(oci_profile "$PODMAN_CAPS" | jq --argjson new "$NEW_SYSCALLS" '
		.defaultAction = "SCMP_ACT_KILL" | del(.defaultErrnoRet) | .syscalls |= map(.names -= $new | select(.names | length > 0))')"
	sh_cmd '/tmp/share/syscall 435; echo alive'
	run_shim
	assert_status 0
	assert_eq "$output" "errno 38
alive"
}
