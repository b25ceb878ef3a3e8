#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A new user namespace with linux.uidMappings/gidMappings: the runtime
# writes the maps from outside, the container runs as root of the
# namespace, which is an unprivileged uid on the host.

load helpers
load userns_helpers

@test "the maps are written before init runs: uid_map, gid_map, id inside" {
	userns_cfg
	sh_cmd 'cat /proc/self/uid_map /proc/self/gid_map; id -u; id -g; readlink /proc/self/ns/user'
	run_shim
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "$(echo "${lines[0]}" | tr -s ' ')" " 0 100000 65536" "uid_map"
	assert_eq "$(echo "${lines[1]}" | tr -s ' ')" " 0 100000 65536" "gid_map"
	assert_eq "${lines[2]}" 0 "uid inside"
	assert_eq "${lines[3]}" 0 "gid inside"
	if [ "${lines[4]}" = "$(readlink /proc/self/ns/user)" ]; then
		echo "the container is in the host's user namespace" >&2
		return 1
	fi
}

@test "the container's root is host uid 100000: what it creates on the host is 100000's" {
	userns_cfg
	owned_rootfs
	cfg '.root.readonly = false'
	sh_cmd 'touch /made-inside && ls -ln /made-inside'
	run_shim
	assert_status 0
	assert_eq "$(awk '{ print $3, $4 }' <<<"$output")" "0 0" "owner inside"
	assert_eq "$(stat -c '%u %g' "$T/rootfs/made-inside")" "100000 100000" "owner on the host"
}

@test "files of host uid 100000 in the rootfs are root's inside; the host's root is nobody" {
	userns_cfg
	owned_rootfs
	add_mount /hostroot bind "$ROOTFS/bin" rbind ro
	sh_cmd 'stat -c "%u %g" /bin/busybox /hostroot/busybox'
	run_shim
	assert_status 0
	assert_eq "$output" "0 0
65534 65534"
}

@test "as root the runtime leaves setgroups allowed: additionalGids apply" {
	userns_cfg
	cfg '.process.user = {uid: 1000, gid: 1000, additionalGids: [5, 1002]}'
	sh_cmd 'cat /proc/self/setgroups; id -u; id -G'
	run_shim
	assert_status 0
	assert_eq "$output" "allow
1000
1000 5 1002"
}

@test "a process uid outside the mapping is refused before anything runs" {
	userns_cfg
	cfg '.process.user.uid = 70000'
	run_shim
	assert_error "$BUNDLE/config.json: process.user.uid: 70000 is not mapped by linux.uidMappings"
}
