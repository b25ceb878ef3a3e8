#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# In a new user namespace, bind mount sources the namespace's root cannot
# reach (a 0700 directory of the host's root) still work: the runtime, on
# the host, opens each source (open_tree) and hands the container's init a
# detached copy to move into place, as runc does with its mount fds.  And a
# cgroup mount that comes after a bind mount works too, with or without a
# cgroup namespace (without one: the host's cgroup2 hierarchy bound there,
# runc's fallback).

load helpers
load userns_helpers

setup() {
	shim_setup
	userns_cfg
	owned_rootfs
	for i in 1 2; do
		mkdir -p "$T/src-$i/dir"
		echo "in $i" >"$T/src-$i/dir/foo.txt"
		chmod 700 "$T/src-$i"
	done
	mkdir -p "$T/rootfs/mnt/mount-1" "$T/rootfs/mnt/mount-2"
}

@test "two bind mounts from directories only the host's root can reach" {
	cfg --arg a "$T/src-1/dir" --arg b "$T/src-2/dir" '.mounts += [
		{source: $a, destination: "/mnt/mount-1", options: ["bind"]},
		{source: $b, destination: "/mnt/mount-2", options: ["rbind", "ro"]}]'
	sh_cmd 'cat /mnt/mount-1/foo.txt /mnt/mount-2/foo.txt; echo x >/mnt/mount-2/foo.txt'
	run_shim
	assert_status 1
	assert_eq "$output" "in 1
in 2"
	assert_contains "$stderr" "Read-only file system"
}

@test "a bind mount from the bundle (relative source) still works" {
	mkdir -p "$BUNDLE/rel"
	echo relative >"$BUNDLE/rel/foo.txt"
	cfg '.mounts += [{source: "rel", destination: "/mnt/mount-1", options: ["bind"]}]'
	sh_cmd 'cat /mnt/mount-1/foo.txt'
	run_shim
	assert_status 0
	assert_eq "$output" "relative"
}

# The example's /sys/fs/cgroup mount with a bind mount right before it.
bind_before_cgroup() {
	cfg --arg s "$T/src-1/dir" '.mounts |= map(if .destination == "/sys/fs/cgroup"
		then ({source: $s, destination: "/mnt/mount-1", options: ["bind"]}, .) else . end)'
	sh_cmd 'cat /mnt/mount-1/foo.txt; test -e /sys/fs/cgroup/cgroup.controllers && echo cgroupfs
		awk "\$5 == \"/sys/fs/cgroup\" { split(\$6, o, \",\"); print o[1] }" /proc/self/mountinfo'
}

@test "a cgroup mount after a bind mount, with a cgroup namespace" {
	bind_before_cgroup
	run_shim
	assert_status 0
	assert_eq "$output" "in 1
cgroupfs
ro"
}

@test "a cgroup mount after a bind mount, without a cgroup namespace: the host's hierarchy, read-only" {
	bind_before_cgroup
	del_namespace cgroup
	run_shim
	assert_status 0
	assert_eq "$output" "in 1
cgroupfs
ro"
}
