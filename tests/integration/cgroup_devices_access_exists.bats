#!/usr/bin/env bats
# access(2) with F_OK asks the device cgroup program for no access bit at
# all: on a device the rules allow it must succeed, not get EPERM from the
# program (runc's emulation allows it; so did the v1 controller).

load helpers
load security_helpers

# kmsg_allowed ACCESS: deny all, then allow /dev/kmsg (c 1:11) for ACCESS;
# the syscall helper in the container.
kmsg_allowed() {
	with_syscall_helper
	cfg --arg a "$1" '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]
		| .linux.resources.devices = [{allow: false, access: "rwm"},
			{allow: true, type: "c", major: 1, minor: 11, access: $a}]'
}

@test "access(F_OK) on an allowed device, and on runc's default ones, succeeds" {
	kmsg_allowed rw
	# access (21): F_OK (0), then W_OK (2), which the program answers as
	# an open for writing would be.
	sh_cmd '/tmp/share/syscall 21 /dev/kmsg 0; /tmp/share/syscall 21 /dev/null 0; /tmp/share/syscall 21 /dev/kmsg 2'
	run_shim
	assert_status 0
	assert_eq "$output" "ok 0
ok 0
ok 0"
}

@test "access(W_OK) on a device allowed only for reading is still refused" {
	kmsg_allowed r
	sh_cmd '/tmp/share/syscall 21 /dev/kmsg 0; /tmp/share/syscall 21 /dev/kmsg 2'
	run_shim
	assert_status 0
	assert_eq "$output" "ok 0
errno 1"
}
