#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# After `create` + `start`, shim is not init's parent: the watcher `create`
# armed learns init's wait status from the kernel (a pidfd opened at
# create, PIDFD_INFO_EXIT once the reaper has reaped it: Linux 6.15 and
# later), and the verdict in `state` is made from it.  Before 6.15 the
# verdict says the status was not known.  The reaper here is
# tests/helpers/subreaper, which reaps at once as conmon and
# containerd-shim do.  The watcher itself never outlives `delete`.

load helpers

SUBREAPER=$REPO/tests/helpers/subreaper

# create_under_subreaper: `shim create` as a child of the subreaper, which
# then inherits init; $REAPER_PID.
create_under_subreaper() {
	env SHIM_TEST_TAG="$TAG" "$SUBREAPER" "$SHIM_BIN" --root "$STATE" create --bundle "$BUNDLE" \
		--pid-file "$T/pid" "$ID" 3>&- &
	REAPER_PID=$!
	timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

# wait_recorded: until the watcher wrote its last record.
wait_recorded() {
	timeout 20 sh -c 'until [ "$(jq -r .ended "$1" 2>/dev/null)" = true ]; do sleep 0.05; done' \
		_ "$STATE/$ID/record.json"
}

verdict_field() {
	shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"]' | jq -r "$1"
}

@test "init exiting 3 after create/start: Exited, exit code 3, from the kernel's record of it" {
	make_bundle exit3
	create_under_subreaper
	shim start "$ID"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(shim state "$ID" | jq -r .status)" stopped
	if kernel_keeps_exit_status; then
		assert_eq "$(verdict_field .reason)" Exited
		assert_eq "$(verdict_field .exit_code)" 3
		assert_eq "$(jq -r .status "$STATE/$ID/record.json")" 768
	else
		assert_eq "$(verdict_field .reason)" Unknown
		assert_contains "$(verdict_field .message)" "exit status was not known"
	fi
	shim delete "$ID"
}

@test "kill -9 of init from outside after create/start: Killed by SIGKILL, not sent by the runtime" {
	make_bundle sleeper
	create_under_subreaper
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	wait_recorded
	if kernel_keeps_exit_status; then
		assert_eq "$(verdict_field .reason)" Killed
		assert_eq "$(verdict_field .signal)" SIGKILL
		assert_eq "$(verdict_field .exit_code)" 137
		# No OOM kill: false from the container's memory cgroup (cgroup2
		# with the memory controller, or cgroup v1's memory hierarchy);
		# without one the OOM question stays open.
		local want=null
		if has_memory_cgroup; then
			want=false
		fi
		assert_eq "$(verdict_field .oom_killed)" "$want"
	else
		assert_eq "$(verdict_field .reason)" Unknown
	fi
	shim delete "$ID"
}

@test "the watcher ends with delete, even right after create" {
	make_bundle sleeper
	shim create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID"
	# init (blocked before start) and the watcher carry the test's tag.
	[ "$(tagged_pids | wc -l)" -eq 2 ]
	shim delete --force "$ID"
	timeout 10 sh -c 'while grep -lsaF "SHIM_TEST_TAG=$1" /proc/[0-9]*/environ | grep -q .; do sleep 0.05; done' \
		_ "$TAG"
}
