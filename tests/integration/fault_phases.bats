#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The runtime killed with SIGKILL at each named phase of create, start,
# exec and delete (SHIM_TEST_FAULT=PHASE, common/fault.h): afterwards
# `state` tells the truth, `delete --force` removes everything (the
# teardown checks state dir, mounts, processes and cgroups), and the
# verdict already gathered survives a delete killed halfway.

load helpers
load lifecycle_helpers

# faulted PHASE CMD...: run `shim CMD...` stopped at PHASE; it must have
# died of SIGKILL (status 137), and nothing else.
faulted() {
	local phase=$1
	shift
	status=0
	env SHIM_TEST_FAULT="$phase" SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" "$@" \
		</dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&- || status=$?
	assert_eq "$status" 137 "exit status of shim $* stopped at $phase"
}

# The verdict `state` shows (an annotation), "" when none.
verdict_annotation() {
	shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"] // ""'
}

# gone_after_delete: delete --force succeeds, and then state says so.
gone_after_delete() {
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	wait_no_tagged
	run --separate-stderr shim state "$ID"
	assert_status 1
	nothing_left
}

# A create stopped before it wrote the state file leaves a container that is
# `creating` (runc's word for it) and nothing else can be done with it.
@test "create killed after its state dir: state says creating, delete --force removes it" {
	faulted create:after-state-dir create --bundle "$BUNDLE" "$ID"
	assert_eq "$(ct_status)" creating
	gone_after_delete
}

@test "create killed after the cgroup was made: delete --force removes the cgroup too" {
	faulted create:after-cgroup create --bundle "$BUNDLE" "$ID"
	assert_eq "$(ct_status)" creating
	gone_after_delete
}

@test "create killed after init was spawned: no workload ever runs; delete --force removes it all" {
	sh_cmd 'touch /tmp/share/ran; exec sleep 1000'
	share_dir
	faulted create:after-spawn create --bundle "$BUNDLE" "$ID"
	assert_eq "$(ct_status)" creating
	gone_after_delete
	[ ! -e "$T/share/ran" ]
}

@test "create killed after the state was written: state says created, start still works" {
	sh_cmd 'exec sleep 1000'
	faulted create:after-state create --bundle "$BUNDLE" "$ID"
	assert_eq "$(ct_status)" created
	ct_start_ok
	assert_eq "$(ct_status)" running
	ct_cleanup
	nothing_left
}

@test "create killed after its watcher was spawned: created, and the container's end is still told" {
	sh_cmd 'exec sleep 1000'
	faulted create:after-watcher create --bundle "$BUNDLE" "$ID"
	assert_eq "$(ct_status)" created
	ct_start_ok
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	assert_eq "$(verdict_annotation | jq -r .killed_by)" runtime "who killed it, per the verdict"
	gone_after_delete
}

@test "start killed before releasing init: still created, a second start runs it" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	faulted start:before-release start "$ID"
	assert_eq "$(ct_status)" created
	ct_start_ok
	assert_eq "$(ct_status)" running
	ct_cleanup
	nothing_left
}

@test "start killed after releasing init: running, delete --force removes it" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	faulted start:after-release start "$ID"
	assert_eq "$(ct_status)" running
	gone_after_delete
}

@test "exec killed before and after its process was spawned: the container runs on, no exec'd process is left" {
	sh_cmd 'exec sleep 1000'
	ct_up
	faulted exec:before-spawn exec "$ID" /bin/sleep 999
	assert_eq "$(ct_status)" running
	faulted exec:after-spawn exec "$ID" /bin/sleep 998
	assert_eq "$(ct_status)" running
	# The exec'd process dies with its runtime (its parent-death signal).
	local i
	for ((i = 0; i < 200; i++)); do
		[ -z "$(shim ps "$ID" 2>/dev/null | grep -w 998)" ] && break
		sleep 0.05
	done
	run --separate-stderr shim ps --format json "$ID"
	assert_status 0
	assert_eq "$(jq length <<<"$output")" 1 "processes in the container (init only): $output"
	gone_after_delete
}

@test "delete --force killed right after killing a running container: stopped, delete finishes" {
	sh_cmd 'exec sleep 1000'
	ct_up
	faulted delete:after-kill delete --force "$ID"
	assert_eq "$(ct_status)" stopped
	run --separate-stderr shim delete "$ID"
	assert_status 0
	wait_no_tagged
	nothing_left
}

@test "delete killed after the kill and after the cgroup removal: the verdict is kept, and logged by the delete that finishes" {
	local phase v
	for phase in delete:after-kill delete:after-cgroup; do
		ID=$ID-${phase#delete:}
		sh_cmd 'exec sleep 1000'
		ct_up
		run --separate-stderr shim kill "$ID" KILL
		assert_status 0
		wait_status stopped
		wait_no_tagged
		v=$(verdict_annotation)
		assert_eq "$(jq -r .reason <<<"$v")" Killed "the verdict before the delete"
		assert_eq "$(jq -r .killed_by <<<"$v")" runtime "the verdict before the delete"
		faulted "$phase" delete "$ID"
		assert_eq "$(ct_status)" stopped "state after shim delete stopped at $phase"
		assert_eq "$(verdict_annotation)" "$v" "the verdict after shim delete stopped at $phase"
		run --separate-stderr shim --log "$T/log.$phase" --debug delete "$ID"
		assert_status 0
		assert_contains "$(cat "$T/log.$phase")" "container $ID: $(jq -r .message <<<"$v"); verdict "
		nothing_left
	done
}
