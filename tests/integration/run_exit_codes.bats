#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run` passes the exit code of the container's init through: its own
# exit status, or 128+N when a signal killed it.

load helpers

@test "hello prints its greeting and exits 0" {
	run_shim
	assert_status 0
	assert_eq "$output" "Hello from a shim container
pid 1 on hello"
	assert_eq "$stderr" ""
}

@test "the example bundle runs as given, its relative root.path resolved against the bundle" {
	# examples/hello itself (root.path "../rootfs"), not a copy: only the
	# state goes elsewhere.
	run --separate-stderr shim run "$REPO/examples/hello/"
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
}

@test "exit3 exits 3" {
	make_bundle exit3
	run_shim
	assert_status 3
	assert_eq "$output" "exiting with 3"
}

@test "exit codes 1 and 255 pass through" {
	sh_cmd 'exit 1'
	run_shim
	assert_status 1
	sh_cmd 'exit 255'
	run_shim
	assert_status 255
}

@test "init killed by SIGKILL: 137" {
	# Without a pid namespace the shell is not a pid-namespace init, which
	# the kernel would shield from its own signals.
	del_namespace pid
	sh_cmd 'kill -9 $$; echo survived'
	run_shim
	assert_status 137
	assert_eq "$output" ""
}

@test "init killed by SIGTERM: 143" {
	del_namespace pid
	sh_cmd 'kill -TERM $$; echo survived'
	run_shim
	assert_status 143
	assert_eq "$output" ""
}

@test "init of a pid namespace killed from outside with SIGKILL: 137" {
	share_dir
	sh_cmd 'echo ready >/tmp/share/ready; sleep 1000 & wait'
	start_bg
	wait_ready
	# init is the runtime's only child.
	local init
	init=$(cat "/proc/$SHIM_PID/task/$SHIM_PID/children")
	[ -n "$init" ]
	# (and it is the container's init, not the runtime)
	[ "$(readlink "/proc/$init/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
	kill -9 $init
	wait_shim
	assert_status 137
}
