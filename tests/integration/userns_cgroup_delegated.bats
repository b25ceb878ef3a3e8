#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# With a user namespace, a cgroup namespace and /sys/fs/cgroup mounted
# read-write, the container owns its cgroup as under runc: the directory
# and the files of /sys/kernel/cgroup/delegate are the mapped
# process.user.uid's, the controllers' files stay the host's.

load helpers
load userns_helpers
load lifecycle_helpers

rw_cgroup_mount() {
	cfg '(.mounts[] | select(.destination == "/sys/fs/cgroup") | .options) |= map(select(. != "ro"))'
}

@test "a read-write cgroup mount: the container's root owns its cgroup and can make sub-cgroups" {
	userns_cfg
	rw_cgroup_mount
	sh_cmd 'cd /sys/fs/cgroup && stat -c "%n %u" . cgroup.procs cgroup.subtree_control cgroup.threads cgroup.max.depth
		mkdir sub && echo made && rmdir sub'
	run_shim
	assert_status 0
	assert_eq "$output" ". 0
cgroup.procs 0
cgroup.subtree_control 0
cgroup.threads 0
cgroup.max.depth 65534
made"
}

@test "the owner is the host uid of process.user.uid" {
	userns_cfg
	rw_cgroup_mount
	cfg '.process.user = {uid: 1000, gid: 1000}'
	sh_cmd 'stat -c %u /sys/fs/cgroup /sys/fs/cgroup/cgroup.procs'
	run_shim
	assert_status 0
	assert_eq "$output" "1000
1000"
}

@test "a read-only cgroup mount: the cgroup stays the host's" {
	userns_cfg
	sh_cmd 'stat -c %u /sys/fs/cgroup /sys/fs/cgroup/cgroup.procs'
	run_shim
	assert_status 0
	assert_eq "$output" "65534
65534"
}

# runc's integration suite: with a user namespace and the host's
# /sys/fs/cgroup bound in (cgroup v1), `exec` reads the v1 files, and the
# container's own cgroup there lists init and the exec'd process (pids of
# the container's pid namespace).
@test "cgroup v1 bound in from the host under a user namespace: exec reads pids/tasks and memory/tasks" {
	require_cgroup_v1_memory
	userns_cfg
	owned_rootfs
	cfg '.mounts |= map(select(.destination != "/sys/fs/cgroup"))
		+ [{source: "/sys/fs/cgroup", destination: "/sys/fs/cgroup", type: "bind", options: ["rbind", "ro"]}]'
	set_args sleep 1000
	ct_up
	run shim exec "$ID" cat "/sys/fs/cgroup/pids/shim/$ID/tasks" "/sys/fs/cgroup/memory/shim/$ID/tasks"
	assert_status 0
	# init (1) and cat itself, in each of the two files.
	assert_eq "$(sort -n <<<"$output" | uniq -c | awk '{ print $1 }' | sort -u)" 2
	assert_contains "$output" 1
	ct_cleanup
}
