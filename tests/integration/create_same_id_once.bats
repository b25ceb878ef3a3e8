#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# An id names one container: of two creates of the same id exactly one
# succeeds, the other fails with a clear error and leaves the winner's
# state and processes alone.

load helpers
load lifecycle_helpers

# bg_create N: a create of $ID in the background, released by $T/go;
# exit status in $T/rc.N, stderr in $T/err.N, pid file $T/pid.N.
bg_create() {
	(
		timeout "$WAIT_SECS" sh -c 'until [ -e "$1" ]; do sleep 0.005; done' _ "$T/go" || exit 99
		rc=0
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" create --bundle "$BUNDLE" \
			--pid-file "$T/pid.$1" "$ID" </dev/null >>"$T/ct.out" 2>"$T/err.$1" 3>&- || rc=$?
		echo "$rc" >"$T/rc.$1"
	) 3>&- &
	BG_PIDS+=($!)
}

@test "two concurrent creates of one id: exactly one succeeds, the state is the winner's" {
	sh_cmd 'exec sleep 1000'
	bg_create 1
	bg_create 2
	touch "$T/go"
	wait "${BG_PIDS[@]}"
	local r1 r2 win lose
	r1=$(cat "$T/rc.1")
	r2=$(cat "$T/rc.2")
	if [ "$r1" = 0 ] && [ "$r2" = 1 ]; then
		win=1 lose=2
	elif [ "$r1" = 1 ] && [ "$r2" = 0 ]; then
		win=2 lose=1
	else
		echo "exit statuses: $r1 and $r2; stderr: $(cat "$T/err.1") / $(cat "$T/err.2")" >&2
		false
	fi
	assert_eq "$(cat "$T/err.$lose")" "shim: container \`$ID\` already exists (state in \`$STATE/$ID\`)" \
		"the loser's error"
	assert_eq "$(cat "$T/err.$win")" "" "the winner's stderr"
	[ ! -e "$T/pid.$lose" ]
	assert_eq "$(ct_status)" created
	assert_eq "$(ct_field pid)" "$(cat "$T/pid.$win")" "state's pid vs the winner's pid file"
	alive "$(cat "$T/pid.$win")"
	# one init only, in the container's cgroup
	local cg
	cg=$(cgroup2_mount)
	if [ -n "$cg" ]; then
		assert_eq "$(cat "$cg/shim/$ID/cgroup.procs")" "$(cat "$T/pid.$win")" "the cgroup's processes"
	fi
	ct_start_ok
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "a create while another of the same id is half-way fails, and the first completes" {
	sh_cmd 'exec sleep 1000'
	mkfifo "$T/gate"
	# The first create waits in its prestart hook until the test opens the
	# gate: its state dir exists, its init is cloned.
	sh_hook prestart "touch '$T/in-hook'; read x <'$T/gate'"
	(
		rc=0
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" create --bundle "$BUNDLE" \
			--pid-file "$T/pid.1" "$ID" </dev/null >>"$T/ct.out" 2>"$T/err.1" 3>&- || rc=$?
		echo "$rc" >"$T/rc.1"
	) 3>&- &
	BG_PIDS+=($!)
	timeout "$WAIT_SECS" sh -c 'until [ -e "$1" ]; do sleep 0.05; done' _ "$T/in-hook"
	local before
	before=$(cat "$STATE/$ID/state.json")

	cfg 'del(.hooks)'
	ct_create --pid-file "$T/pid.2"
	assert_status 1
	assert_eq "$stderr" "shim: container \`$ID\` already exists (state in \`$STATE/$ID\`)"
	[ ! -e "$T/pid.2" ]
	assert_eq "$(cat "$STATE/$ID/state.json")" "$before" "the first create's state.json"

	echo go >"$T/gate"
	wait "${BG_PIDS[0]}"
	assert_eq "$(cat "$T/rc.1")" 0 "the first create's exit status ($(cat "$T/err.1"))"
	assert_eq "$(ct_status)" created
	assert_eq "$(ct_field pid)" "$(cat "$T/pid.1")"
	ct_start_ok
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "the id of an existing container is refused until it is deleted" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	ct_create
	assert_status 1
	assert_eq "$stderr" "shim: container \`$ID\` already exists (state in \`$STATE/$ID\`)"
	assert_eq "$(ct_status)" stopped
	run --separate-stderr shim delete "$ID"
	assert_status 0
	wait_no_tagged
	ct_create_ok
	assert_eq "$(ct_status)" created
	ct_cleanup
}
