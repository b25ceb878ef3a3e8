#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# delete removes a stopped (or never started) container; a running one
# only with --force, which kills it first.  --force of a missing id is no
# error, as in runc.

load helpers
load lifecycle_helpers

# A second container, $ID-b, that a failing test leaves: teardown's checks
# look for $ID only.  (--force of a missing id is no error.)
teardown() {
	shim delete --force "$ID-b" </dev/null >/dev/null 2>&1 3>&-
	local p
	for p in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do
		kill -9 "$p" 2>/dev/null || true
	done
	shim_teardown
}

# gone_for_good PID...: the container's state dir, cgroup and processes
# are gone.
gone_for_good() {
	[ ! -e "$STATE/$ID" ]
	local cg p
	cg=$(cgroup2_mount)
	[ -z "$cg" ] || [ ! -e "$cg/shim/$ID" ]
	wait_gone "$@"
	for p; do
		dead "$p"
	done
}

@test "delete of a running container is refused without --force; it keeps running" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim delete "$ID"
	assert_error "cannot delete container \`$ID\`: it is running (stop it first, or use delete --force)"
	assert_eq "$(ct_status)" running
	alive "$pid"
	[ -f "$STATE/$ID/state.json" ]
	ct_cleanup
}

@test "delete --force kills a running container and removes it" {
	# init ignores TERM and has children: KILL, and for all of them.
	sh_cmd 'trap "" TERM; sleep 1000 & sleep 1000 & wait'
	ct_up
	timeout "$WAIT_SECS" bash -c 'until [ "$("$@" | jq length)" -ge 3 ]; do sleep 0.05; done' \
		_ env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" ps --format json "$ID"
	local pids
	pids=$(shim ps --format json "$ID" | jq -r '.[]')
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	assert_eq "$output" ""
	assert_eq "$stderr" ""
	# shellcheck disable=SC2086
	gone_for_good $pids
	run --separate-stderr shim state "$ID"
	assert_error "container \`$ID\` does not exist"
	wait_no_tagged
}

@test "delete (without --force) of a created container kills its waiting init" {
	share_dir
	sh_cmd 'echo ran >/tmp/share/ran'
	ct_create_ok
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim delete "$ID"
	assert_status 0
	gone_for_good "$pid"
	[ ! -e "$T/share/ran" ]
	wait_no_tagged
}

@test "delete of a stopped container" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr shim delete "$ID"
	assert_status 0
	gone_for_good
	wait_no_tagged
}

@test "delete --force of a missing id succeeds silently" {
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	assert_eq "$output" ""
	assert_eq "$stderr" ""
	run --separate-stderr shim delete -f "$ID-other"
	assert_status 0
}

@test "delete of a missing id fails" {
	run --separate-stderr shim delete "$ID"
	assert_error "container \`$ID\` does not exist"
}

@test "delete twice: the second fails, with --force it does not" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	run --separate-stderr shim delete "$ID"
	assert_error "container \`$ID\` does not exist"
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	wait_no_tagged
}

# The detached watcher create leaves (it records the container's end for the
# verdict) must go with the container: delete removes the cgroup it
# watches.

# no_process_left: after a bounded wait, none of the test's processes.
no_process_left() {
	wait_no_tagged
	local p left=""
	for p in $(tagged_pids); do
		left+="  $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"$'\n'
	done
	assert_eq "$left" "" "processes left after delete --force"
}

# The watcher misses the end when delete follows quickly what it last saw
# change; a few rounds, back to back, as an engine's `rm -f` of a container
# that just started.
@test "delete --force right after create leaves no process behind (10 rounds)" {
	sh_cmd 'exec sleep 1000'
	local round
	for ((round = 1; round <= 10; round++)); do
		shim create --bundle "$BUNDLE" "$ID" </dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&-
		shim delete --force "$ID"
	done
	[ ! -e "$STATE/$ID" ]
	no_process_left
}

@test "delete --force right after start leaves no process behind (10 rounds)" {
	sh_cmd 'exec sleep 1000'
	local round
	for ((round = 1; round <= 10; round++)); do
		shim create --bundle "$BUNDLE" "$ID" </dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&-
		shim start "$ID"
		shim delete --force "$ID"
	done
	[ ! -e "$STATE/$ID" ]
	no_process_left
}

@test "delete --force right after pause leaves no process behind" {
	ready_cmd 'ready; exec sleep 1000'
	ct_up
	wait_ready_ct
	run --separate-stderr shim pause "$ID"
	assert_status 0
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	[ ! -e "$STATE/$ID" ]
	no_process_left
}

@test "delete --force of a running container succeeds every time (300 rounds)" {
	# Each round: a container that is up and has said so, deleted while
	# its watcher sees it end.  SHIM_TEST_SOAK_ROUNDS: fewer rounds for the
	# sanitizer build, which hunts memory errors, not this race.
	ready_cmd 'ready; exec sleep 1000'
	# (not $i: bats' run sets an i of its own)
	local round failures="" rounds=${SHIM_TEST_SOAK_ROUNDS:-300}
	for ((round = 1; round <= rounds; round++)); do
		ct_up
		wait_ready_ct
		run --separate-stderr shim delete --force "$ID"
		if [ "$status" != 0 ] || [ -e "$STATE/$ID" ]; then
			failures+="round $round: status $status: $stderr; left in the state dir: $(ls -A "$STATE/$ID" 2>&1)"$'\n'
			# A second delete --force clears what is left for the next round.
			shim delete --force "$ID" || true
		fi
	done
	assert_eq "$failures" "" "failed deletes"
	no_process_left
}

# runc 1.1 (urfave/cli): `delete -f A B` is "Incorrect Usage" ("delete"
# requires exactly 1 argument(s)), status 1, and neither is deleted; a
# flag after the id counts, as before it.
@test "delete -f A B is refused as in runc; neither is deleted" {
	sh_cmd 'exec sleep 1000'
	ct_up
	ct_create_ok -- "$ID-b"
	run --separate-stderr shim delete -f "$ID" "$ID-b"
	assert_error "delete: unexpected argument \`$ID-b\`: it takes exactly one container id"
	assert_eq "$(ct_status)" running
	assert_eq "$(ct_status "$ID-b")" created
	ct_cleanup "$ID" "$ID-b"
}

@test "delete ID --force: the flag after the id counts, as in runc" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim delete "$ID" --force
	assert_status 0
	assert_eq "$stderr" ""
	gone_for_good "$pid"
}
