#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# pause / resume: the container's cgroup2 freezer (cgroup.freeze).  Works
# wherever the container has a cgroup2 cgroup, even one without
# controllers (a hybrid host's /sys/fs/cgroup/unified).

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	need_cgroup2 pause/resume
	# init answers USR1 through the fifo
	ready_cmd 'trap "echo got USR1 >/tmp/share/ready" USR1; ready; while :; do sleep 0.1; done'
}

frozen() {
	grep '^frozen ' "$CG/shim/$ID/cgroup.events" | cut -d' ' -f2
}

@test "pause freezes the container's cgroup; resume thaws it and the processes run again" {
	ct_up
	wait_ready_ct
	run --separate-stderr shim pause "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(ct_status)" paused
	assert_eq "$(frozen)" 1 "cgroup.events frozen"
	assert_eq "$(cat "$CG/shim/$ID/cgroup.freeze")" 1
	# A signal to the frozen init waits until it is thawed: still pending
	# (SIGUSR1 is bit 9 of ShdPnd), not taken by a running init.
	shim kill "$ID" USR1
	local pnd
	pnd=$(awk '$1 == "ShdPnd:" { print $2 }' "/proc/$(ct_field pid)/status")
	assert_eq "$(( 0x$pnd & 0x200 ))" $((0x200)) "SIGUSR1 pending in init (ShdPnd $pnd)"
	assert_eq "$(frozen)" 1 "cgroup.events frozen"
	run --separate-stderr shim resume "$ID"
	assert_status 0
	assert_eq "$(ct_status)" running
	assert_eq "$(frozen)" 0 "cgroup.events frozen"
	local got
	got=$(timeout "$WAIT_SECS" cat "$T/share/ready") || true
	assert_eq "$got" "got USR1" "init's answer after resume"
	ct_cleanup
}

@test "list shows a paused container as paused" {
	ct_up
	wait_ready_ct
	shim pause "$ID"
	assert_eq "$(shim list --format json | jq -r --arg id "$ID" '.[] | select(.id == $id) | .status')" paused
	shim resume "$ID"
	ct_cleanup
}

@test "pause of a paused, resume of a running container are refused" {
	ct_up
	wait_ready_ct
	run --separate-stderr shim resume "$ID"
	assert_error "cannot resume container \`$ID\`: it is running"
	shim pause "$ID"
	run --separate-stderr shim pause "$ID"
	assert_error "cannot pause container \`$ID\`: it is paused"
	assert_eq "$(ct_status)" paused
	shim resume "$ID"
	ct_cleanup
}

@test "pause of a created or a stopped container is refused" {
	ct_create_ok
	run --separate-stderr shim pause "$ID"
	assert_error "cannot pause container \`$ID\`: it is created"
	ct_stop
	run --separate-stderr shim pause "$ID"
	assert_error "cannot pause container \`$ID\`: it is stopped"
	run --separate-stderr shim resume "$ID"
	assert_error "cannot resume container \`$ID\`: it is stopped"
	run --separate-stderr shim pause "$ID-missing"
	assert_error "container \`$ID-missing\` does not exist"
	ct_cleanup
}

@test "exec into a paused container is refused" {
	ct_up
	wait_ready_ct
	shim pause "$ID"
	run --separate-stderr shim exec "$ID" /bin/true
	assert_error_status 255 "cannot exec in container \`$ID\`: it is paused (use --ignore-paused to override)"
	shim resume "$ID"
	ct_cleanup
}

@test "delete --force of a paused container kills and removes everything" {
	ct_up
	wait_ready_ct
	local pid
	pid=$(ct_field pid)
	shim pause "$ID"
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	wait_gone "$pid"
	dead "$pid"
	[ ! -e "$STATE/$ID" ]
	[ ! -e "$CG/shim/$ID" ]
	wait_no_tagged
}
