#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# On cgroup v1 (this hybrid host) a clone reaches only the cgroup2
# directory; the runtime then writes the child into every v1 hierarchy.
# Until it has, the child must not run anything of the container's: a
# workload exec'd before the move runs outside its memory limit and device
# rules (under the ASan build, memhog once held 72 MiB under 64 MiB).  The
# runtime is held right before that move (SHIM_TEST_STOP, common/fault.h)
# while the test watches what its child does.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	require_cgroup_v1_memory
	share_dir
}

# stopped PID: until PID is stopped (state T), bounded.
stopped() {
	timeout "$WAIT_SECS" sh -c 'until [ "$(cut -d" " -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; do sleep 0.02; done' _ "$1"
}

# workload_pid: the pid of the container's `sleep 4242` (found by the
# test's tag in its environment), or nothing.
workload_pid() {
	local p
	for p in $(tagged_pids); do
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 4242 " ] && echo "$p"
	done
	return 0
}

# poll_workload N: $WORKLOAD, looked for N times 20 ms apart at most.
poll_workload() {
	local i
	for ((i = 0; i < $1; i++)); do
		WORKLOAD=$(workload_pid)
		[ -z "$WORKLOAD" ] || return 0
		sleep 0.02
	done
}

# held_then_released PID: PID is held at the stop point; the workload has
# 1 s to show up meanwhile (it did within 0.1 s before the child waited),
# then PID goes on and the workload appears.  $WORKLOAD: its pid.
held_then_released() {
	stopped "$1"
	poll_workload 50
	kill -CONT "$1"
	if [ -n "$WORKLOAD" ]; then
		echo "the workload ran while the runtime was held: $(grep ':memory:' "/proc/$WORKLOAD/cgroup")"
		return 1
	fi
	poll_workload $((WAIT_SECS * 50))
	[ -n "$WORKLOAD" ]
}

@test "run: init runs the workload only once it is in the v1 memory cgroup" {
	set_args sleep 4242
	START_ENV=(SHIM_TEST_STOP=spawn:before-enter)
	start_bg
	held_then_released "$SHIM_PID"
	assert_eq "$(grep -E '^[0-9]+:memory:' "/proc/$WORKLOAD/cgroup" | cut -d: -f3)" "/shim/$ID"
	shim kill "$ID" KILL
	wait_shim
}

@test "exec: the process runs only once it is in the v1 memory cgroup" {
	sh_cmd 'echo ready >/tmp/share/ready; exec sleep 1000'
	start_bg
	wait_ready
	# Not through the shim function: $! must be the runtime itself.
	env SHIM_TEST_STOP=exec:before-enter SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		exec -d "$ID" sleep 4242 3>&- &
	local exec_pid=$!
	held_then_released "$exec_pid"
	wait "$exec_pid"
	assert_eq "$(grep -E '^[0-9]+:memory:' "/proc/$WORKLOAD/cgroup" | cut -d: -f3)" "/shim/$ID"
	shim kill "$ID" KILL
	wait_shim
}

@test "the cgroup namespace is rooted at the container's cgroup in every v1 hierarchy" {
	# Made after the move, as runc does: cloned with it, its root was the
	# runtime's cgroup, and the container read /../../shim/ID.
	jq -e '.linux.namespaces | any(.type == "cgroup")' "$BUNDLE/config.json" >/dev/null
	sh_cmd 'cat /proc/self/cgroup'
	run_shim
	assert_status 0
	echo "$output"
	[ -n "$output" ]
	[ "$(printf '%s\n' "$output" | cut -d: -f3- | sort -u)" = / ]
}

# What runc's exec does: the process joins init's cgroup in every
# hierarchy, v1 ones included.  A relative cgroupsPath is under shim's own
# cgroup in each hierarchy, which differ here (state.json keeps them).
@test "exec: the process is in init's cgroup in every hierarchy, for a relative cgroupsPath too" {
	local path init
	for path in "" "shim/$ID"; do
		cfg --arg p "$path" 'if $p == "" then del(.linux.cgroupsPath) else .linux.cgroupsPath = $p end'
		sh_cmd 'exec sleep 1000'
		ct_up
		init=$(ct_field pid)
		shim exec -d "$ID" sleep 4242 </dev/null >/dev/null 2>&1 3>&-
		poll_workload $((WAIT_SECS * 50))
		[ -n "$WORKLOAD" ]
		assert_eq "$(cat "/proc/$WORKLOAD/cgroup")" "$(cat "/proc/$init/cgroup")" "exec'd process's cgroups (cgroupsPath \`$path\`)"
		ct_cleanup
	done
}
