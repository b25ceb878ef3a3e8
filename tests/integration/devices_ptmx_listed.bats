#!/usr/bin/env bats
# A linux.devices entry for /dev/ptmx (redundant with the defaults, and
# written by some tools) is accepted: /dev/ptmx stays the link to the
# container's devpts, and a terminal still works.

load helpers

@test "linux.devices lists /dev/ptmx: accepted, still pts/ptmx" {
	cfg '.linux.devices = [{path: "/dev/ptmx", type: "c", major: 5, minor: 2, fileMode: 438, uid: 0, gid: 0}]'
	sh_cmd 'readlink /dev/ptmx'
	run_shim
	assert_status 0
	assert_eq "$output" "pts/ptmx"
}
