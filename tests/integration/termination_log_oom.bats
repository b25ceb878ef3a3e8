#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Kubernetes' termination-log: kubelet bind-mounts a host file at
# /dev/termination-log and shows its text as the container's termination
# message (`kubectl describe pod`).  When the container was OOM-killed,
# shim writes its one-line verdict message into that host file, if the
# workload left it empty, so the message stands next to Kubernetes' own
# OOMKilled reason.  A file the workload wrote is left as it is; nothing is
# written for any other death; a source that is a symlink is not followed.
# (Hybrid or v1 host: the memory limit is enforced by the v1 memory
# hierarchy, as in verdict_v1_host.bats; a cgroup v2 host: tests/vm.)

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	require_cgroup_v1_memory
	TLOG=$T/termination-log
	: >"$TLOG"
}

teardown() {
	# A test that failed half-way leaves its container: not for the next one
	# to trip over (a passing test deleted it, and checked that it could).
	if [ -d "$STATE/$ID" ]; then
		ct_cleanup
	fi
	shim_teardown
}

# tlog_mount [SOURCE]: the mount kubelet asks for (the host file $TLOG).
tlog_mount() {
	add_mount /dev/termination-log bind "${1:-$TLOG}" rbind rprivate rw
}

# memhog_bundle: memhog over a 32 MiB limit, with the termination-log.
memhog_bundle() {
	make_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432}'
	tlog_mount "$@"
}

# verdict_field FILTER: from the verdict, the last line of $stderr.
verdict_field() {
	tail -1 <<<"$stderr" | jq -r "$1"
}

# lines FILE: how many lines FILE holds.
lines() {
	wc -l <"$1"
}

@test "termination-log: shim run of memhog OOM-killed, the file holds the verdict's message, one line" {
	memhog_bundle
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" OOMKilled
	assert_eq "$(cat "$TLOG")" "$(verdict_field .message)"
	assert_eq "$(lines "$TLOG")" 1
	assert_contains "$(cat "$TLOG")" "was OOM-killed: it hit its 32 MiB memory limit"
}

@test "termination-log: the workload's own message is left exactly as it wrote it" {
	memhog_bundle
	sh_cmd 'echo "my own last words" >/dev/termination-log && exec /bin/memhog -s 8 -n 256'
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" OOMKilled
	assert_eq "$(cat "$TLOG")" "my own last words"
	assert_eq "$(lines "$TLOG")" 1
}

@test "termination-log: kill -9 from outside is no OOM kill, the file stays empty" {
	memhog_bundle
	ready_cmd 'ready; sleep 1000 & wait'
	ct_up
	wait_ready_ct
	kill -9 "$(ct_field pid)"
	wait_status stopped
	# The watcher, state and delete each had their chance to write.
	wait_no_tagged
	assert_eq "$(ct_field 'annotations["io.github.shim.reason"]')" Killed
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(stat -c %s "$TLOG")" 0
}

@test "termination-log: a source that is a symlink is not followed" {
	ln -s "$TLOG" "$T/link"
	memhog_bundle "$T/link"
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" OOMKilled
	assert_eq "$(stat -c %s "$TLOG")" 0
}

@test "termination-log: create/start, the watcher writes the message when memhog is OOM-killed" {
	memhog_bundle
	ct_up
	# Nothing of ours runs but the detached watcher: `state` (which writes
	# it too) is asked only once the file has its text.
	wait_file "$TLOG"
	wait_status stopped
	assert_eq "$(lines "$TLOG")" 1
	assert_contains "$(cat "$TLOG")" "container $ID was OOM-killed"
	assert_contains "$(cat "$TLOG")" ": it hit its 32 MiB memory limit"
	# Neither state nor delete (which write it too) adds a second line.
	wait_no_tagged
	assert_eq "$(ct_field 'annotations["io.github.shim.reason"]')" OOMKilled
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(lines "$TLOG")" 1
}
