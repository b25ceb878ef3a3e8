#!/usr/bin/env bats
# --no-pivot must not leave the host's bare /proc (or /sys) reachable in
# the container's mount namespace: under chroot the old root stays there,
# and a fully visible procfs lets anyone who makes a user namespace mount a
# fresh, unmasked /proc (runc's msMoveRoot detaches them first).

load helpers

setup() {
	shim_setup
	share_dir
	gcc -O2 -static -o "$T/share/mount_proc_unshared" "$BATS_TEST_DIRNAME/mount_proc_unshared.c"
	sh_cmd 'mkdir /tmp/p && /tmp/share/mount_proc_unshared /tmp/p'
}

@test "--no-pivot: a fresh proc cannot be mounted from a new user namespace" {
	run_shim --no-pivot
	assert_status 0
	# EPERM
	assert_eq "$output" "errno 1"
}

@test "with pivot_root: the same (the container's /proc is masked)" {
	run_shim
	assert_status 0
	assert_eq "$output" "errno 1"
}

@test "--no-pivot: the container still sees its own /proc and /sys" {
	sh_cmd 'cat /proc/self/comm; ls /sys/kernel >/dev/null && echo sys-ok'
	run_shim --no-pivot
	assert_status 0
	assert_eq "$output" "cat
sys-ok"
}
