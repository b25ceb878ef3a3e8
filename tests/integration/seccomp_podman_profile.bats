#!/usr/bin/env bats
# podman's default seccomp profile (containers-common's
# /usr/share/containers/seccomp.json) loads and behaves as under runc.

load helpers
load security_helpers

setup() {
	shim_setup
	need_podman_profile
	with_syscall_helper
}

@test "podman's default profile: a busybox shell works, denied syscalls fail with the profile's errno" {
	seccomp_cfg "$(oci_profile "$PODMAN_CAPS")"
	# CAP_SYS_ADMIN on top of podman's set, while the profile is the one
	# for podman's set: sethostname is then refused by the filter alone.
	cfg --argjson c "$PODMAN_CAPS" '.process.capabilities = {bounding: ($c + ["CAP_SYS_ADMIN"]),
		effective: ($c + ["CAP_SYS_ADMIN"]), permitted: ($c + ["CAP_SYS_ADMIN"])}'
	sh_cmd 'ls / | grep -c bin; echo piped | cat; grep ^Seccomp: /proc/self/status
		hostname other 2>&1; echo "hostname rc=$?"
		/tmp/share/syscall 248
		/tmp/share/syscall 24'
	run_shim
	assert_status 0
	local want
	# add_key (248) is in no rule: the default action, ENOSYS (38);
	# sched_yield (24) is allowed.
	want="2
piped
Seccomp:	2
hostname: sethostname: Operation not permitted
hostname rc=1
errno 38
ok 0"
	assert_eq "$output" "$want"
}

@test "the same container without the filter: sethostname and add_key get through to the kernel" {
	cfg --argjson c "$PODMAN_CAPS" '.process.capabilities = {bounding: ($c + ["CAP_SYS_ADMIN"]),
		effective: ($c + ["CAP_SYS_ADMIN"]), permitted: ($c + ["CAP_SYS_ADMIN"])}'
	sh_cmd 'hostname other && hostname; /tmp/share/syscall 248'
	run_shim
	assert_status 0
	# add_key with a NULL type: the kernel's own EFAULT (14), not ENOSYS.
	assert_eq "$output" "other
errno 14"
}
