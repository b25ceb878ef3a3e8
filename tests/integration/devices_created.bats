#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# linux.devices: the nodes are made in the container's /dev with their
# type, numbers, mode and owner; in a user namespace, where mknod is
# refused, the host's node of the same path is bound instead.

load helpers
load userns_helpers

@test "each node has its type, major:minor, mode and owner" {
	cfg '.linux.devices = [
		{path: "/dev/kmsg", type: "c", major: 1, minor: 11, fileMode: 416, uid: 7, gid: 4},
		{path: "/dev/sub/loopX", type: "b", major: 7, minor: 200},
		{path: "/dev/fifo", type: "p"}]'
	sh_cmd 'stat -c "%n %F %t:%T %a %u:%g" /dev/kmsg /dev/sub/loopX /dev/fifo'
	run_shim
	assert_status 0
	assert_eq "$output" "/dev/kmsg character special file 1:b 640 7:4
/dev/sub/loopX block special file 7:c8 666 0:0
/dev/fifo fifo 0:0 666 0:0"
}

@test "a node the config lists replaces the default one" {
	cfg '.linux.devices = [{path: "/dev/null", type: "c", major: 1, minor: 3, fileMode: 384}]'
	sh_cmd 'stat -c "%t:%T %a" /dev/null'
	run_shim
	assert_status 0
	assert_eq "$output" "1:3 600"
}

@test "in a user namespace the host's node is bound (mknod is refused)" {
	userns_cfg
	cfg '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]'
	sh_cmd 'stat -c "%F %t:%T" /dev/kmsg; awk "\$5 == \"/dev/kmsg\" { print \$5 }" /proc/self/mountinfo'
	run_shim
	assert_status 0
	assert_eq "$output" "character special file 1:b
/dev/kmsg"
}

@test "a node whose path the host lacks cannot be bound in a user namespace: the error names it" {
	userns_cfg
	cfg '.linux.devices = [{path: "/dev/no-such-node", type: "c", major: 1, minor: 11}]'
	run_shim
	assert_error "linux.devices[0]: mknod refused, so bind the host's node: mount \`/dev/no-such-node\` on \`/dev/no-such-node\` (type bind): No such file or directory"
}
