#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A task stuck in the kernel must not hang pause or delete --force: each
# waits a few seconds and then fails, naming what did not happen.
#
# The stuck task is the container's init frozen by a cgroup v1 freezer
# (a hybrid host has one): frozen there, it neither reaches the cgroup2
# freezer's stop nor dies of SIGKILL until it is thawed.

load helpers
load lifecycle_helpers

V1_FREEZER=/sys/fs/cgroup/freezer

setup() {
	shim_setup
	need_cgroup2 "pause and delete --force"
	V1=""
	if ! grep -qs "^cgroup $V1_FREEZER cgroup .*freezer" /proc/mounts; then
		skip "no cgroup v1 freezer at $V1_FREEZER to hold a task stuck"
	fi
	ready_cmd 'ready; while :; do sleep 0.1; done'
}

teardown() {
	local left=""
	# Thawed first: the pending SIGKILL then ends init, and the cgroup goes.
	if [ -n "$V1" ] && [ -d "$V1" ]; then
		echo THAWED >"$V1/freezer.state"
		ct_cleanup
		timeout "$WAIT_SECS" sh -c 'until rmdir "$1" 2>/dev/null; do sleep 0.05; done' _ "$V1" ||
			left="cgroup left behind: $V1"
	fi
	shim_teardown
	if [ -n "$left" ]; then
		echo "teardown: $left" >&2
		return 1
	fi
}

# stick_init: init frozen in a v1 freezer cgroup of the test's own.
stick_init() {
	local pid
	pid=$(ct_field pid)
	V1=$V1_FREEZER/shim-test-$ID
	mkdir "$V1"
	echo "$pid" >"$V1/cgroup.procs"
	echo FROZEN >"$V1/freezer.state"
	timeout "$WAIT_SECS" sh -c 'until [ "$(cat "$1")" = FROZEN ]; do sleep 0.05; done' _ "$V1/freezer.state"
}

@test "pause of a container whose task cannot stop fails within its bound, naming the cgroup" {
	ct_up
	wait_ready_ct
	stick_init
	run --separate-stderr timeout 30 "$SHIM_BIN" --root "$STATE" pause "$ID"
	assert_status 1
	assert_eq "$stderr" "shim: cgroup \`/shim/$ID\` did not freeze within 5 s"
	# A pause that failed changed nothing: the container is not frozen
	# later, when the task comes out.
	assert_eq "$(cat "$CG/shim/$ID/cgroup.freeze")" 0 "cgroup.freeze"
	assert_eq "$(ct_status)" running
}

@test "delete --force of a container whose init cannot die fails within its bound, naming init" {
	ct_up
	wait_ready_ct
	stick_init
	local pid
	pid=$(ct_field pid)
	run --separate-stderr timeout 30 "$SHIM_BIN" --root "$STATE" delete --force "$ID"
	assert_status 1
	assert_eq "$stderr" "shim: container \`$ID\`: init (pid $pid) did not exit within 5 s of SIGKILL"
	# Nothing was removed: the container is still there to delete again.
	[ -e "$STATE/$ID/state.json" ]
}
