#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook inside Debian's runc on this host: the hook's watcher holds
# a pidfd of init from createRuntime, so on Linux 6.15 and later (the
# kernel keeps a reaped process's wait status for its pidfds) the poststop
# verdict knows how init died although hooks never get an exit status.
# Before 6.15 it says the status was not known.  This host has no memory
# controller on its cgroup2, so the OOM question itself stays open here;
# the VM suites (tests/vm/hook_*.bats) answer it.

load helpers

SUBREAPER=$REPO/tests/helpers/subreaper
HOOK=$REPO/shim-oom-hook

setup() {
	shim_setup
	command -v runc >/dev/null || { echo "runc is not installed (make deps)" >&2; return 1; }
	VDIR=$T/verdicts
	RUNC_ROOT=$T/runc
}

teardown() {
	runc --root "$RUNC_ROOT" delete --force "$ID" 2>/dev/null || true
	shim_teardown
}

# hook_bundle EXAMPLE: the example with config/oci-hooks.json's hooks
# (createRuntime + poststop) running this build, in cgroup /shimhook-ID.
hook_bundle() {
	make_bundle "$1"
	cfg --arg hook "$HOOK" --arg vdir "$VDIR" --arg id "$ID" --slurpfile frag "$REPO/config/oci-hooks.json" \
		'.linux.cgroupsPath = "/shimhook-" + $id
		| .hooks = ($frag[0].hooks | map_values(map(.path = $hook | .args = [.args[0], "--dir", $vdir] + .args[1:])))'
}

# runc_detached: `runc run -d` under the subreaper, which inherits init and
# reaps it at once, as conmon or containerd-shim would; $REAPER_PID, and
# init's pid in $T/pid.
runc_detached() {
	(cd "$BUNDLE" && exec "$SUBREAPER" runc --root "$RUNC_ROOT" run -d --pid-file "$T/pid" "$ID" \
		</dev/null >/dev/null 2>"$T/runc.err" 3>&-) &
	REAPER_PID=$!
	timeout 20 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

hv() {
	jq -r ".verdict | $1" "$VDIR/$ID/verdict.json"
}

@test "hook under runc: kill -9 of init is Killed by SIGKILL (exit status from the pidfd)" {
	hook_bundle sleeper
	runc_detached
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	if kernel_keeps_exit_status; then
		assert_eq "$(hv .reason)" Killed
		assert_eq "$(hv .signal)" SIGKILL
		assert_eq "$(hv .exit_code)" 137
	else
		assert_eq "$(hv .reason)" Unknown
		assert_contains "$(hv .message)" "not known"
	fi
	# The unified cgroup the hook watches here has no memory files; the
	# kernel log, read from arming on, holds no OOM kill of the container:
	# no OOM kill, on that witness alone.
	assert_eq "$(hv .oom_killed)" false
	assert_eq "$(hv '.witnesses | join(",")')" kmsg
}

@test "hook under runc: init exiting 3 is Exited 3" {
	hook_bundle exit3
	runc_detached
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	if kernel_keeps_exit_status; then
		assert_eq "$(hv .reason)" Exited
		assert_eq "$(hv .exit_code)" 3
	else
		assert_eq "$(hv .reason)" Unknown
	fi
}
