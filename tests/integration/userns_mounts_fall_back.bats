#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# What a user namespace may not mount or create falls back as runc does:
# /dev nodes are the host's, bound (mknod is refused), sysfs is the host's
# /sys bound read-only when the network namespace is not the container's,
# and /proc needs a pid namespace of the user namespace.

load helpers
load userns_helpers

@test "the default /dev nodes are the host's, bound: mknod is refused in a user namespace" {
	userns_cfg
	sh_cmd 'mknod /dev/try c 1 3 2>&1 | grep -c "Operation not permitted"
		awk "\$5 ~ \"^/dev/(null|zero|full|random|urandom|tty)\$\" { print \$5 }" /proc/self/mountinfo | sort | tr "\n" " "; echo
		echo x >/dev/null && head -c 3 /dev/zero | od -An -tx1'
	run_shim
	assert_status 0
	assert_eq "$output" "1
/dev/full /dev/null /dev/random /dev/tty /dev/urandom /dev/zero 
 00 00 00"
}

@test "with its own network namespace, sysfs is a fresh mount showing only lo" {
	userns_cfg
	sh_cmd 'ls /sys/class/net; awk "\$5 == \"/sys\" { print \$4 }" /proc/self/mountinfo'
	run_shim
	assert_status 0
	assert_eq "$output" "lo
/"
}

@test "without a network namespace, sysfs is the host's /sys, read-only down the whole tree" {
	userns_cfg
	del_namespace network
	sh_cmd 'ls /sys/class/net | tr "\n" " "; echo
		awk "\$5 == \"/sys\" || \$5 ~ \"^/sys/\" { split(\$6, o, \",\"); print \$5, o[1] }" /proc/self/mountinfo |
			grep -v " ro$" | grep -v "^/sys/fs/cgroup ";
		touch /sys/kernel/x 2>&1 | grep -c "Read-only file system"'
	run_shim
	assert_status 0
	assert_eq "$output" "$(ls /sys/class/net | tr '\n' ' ')
1"
}

@test "/proc without a pid namespace: the error says it needs one" {
	userns_cfg
	del_namespace pid
	run_shim
	assert_error "mounts[0] (in a user namespace, /proc needs a \`pid\` entry in linux.namespaces): mount \`proc\` on \`/proc\` (type proc): Operation not permitted"
}
