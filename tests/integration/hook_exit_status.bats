#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook inside Debian's runc on this host: the hook's watcher holds
# a pidfd of init from createRuntime, and learns init's wait status from it
# on Linux 6.15 and later (the kernel keeps a reaped process's status for
# its pidfds), from the kernel's taskstats record of init's exit before:
# the poststop verdict knows how init died although hooks never get an
# exit status.  This host has no memory
# controller on its cgroup2: the OOM question is hook_runc_v1_host.bats's
# (the v1 memory cgroup) and the VM suites' (tests/vm/hook_*.bats).

load helpers
load hook_helpers

@test "hook under runc: kill -9 of init is Killed by SIGKILL (exit status from the pidfd)" {
	hook_bundle sleeper
	runc_detached
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	assert_eq "$(hv .reason)" Killed
	assert_eq "$(hv .signal)" SIGKILL
	assert_eq "$(hv .exit_code)" 137
	# No OOM kill: on a hybrid host the hook reads the counters of the
	# container's v1 memory cgroup (tests/integration/hook_runc_v1_host.bats),
	# and the kernel log, read from arming on, holds none either; without a
	# memory controller anywhere, the kernel log alone says so.
	assert_eq "$(hv .oom_killed)" false
	if [ -n "$(cgroup_v1_mount memory)" ]; then
		assert_eq "$(hv '.witnesses | join(",")')" counters,kmsg
	else
		assert_eq "$(hv '.witnesses | join(",")')" kmsg
	fi
}

@test "hook under runc: init exiting 3 is Exited 3" {
	hook_bundle exit3
	runc_detached
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	assert_eq "$(hv .reason)" Exited
	assert_eq "$(hv .exit_code)" 3
}
