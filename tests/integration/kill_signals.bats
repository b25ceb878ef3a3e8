#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim kill ID [SIGNAL]`: by name (TERM, SIGTERM), by number, TERM by
# default, real-time signals as RTMIN+n; --all reaches every process of
# the container's cgroup; a stopped container takes no signal.

load helpers
load lifecycle_helpers

# trapping SIGNUM...: init traps each signal number N (answers "got N"
# through the ready fifo, one at a time) and loops.
trapping() {
	local traps="" n
	for n; do
		traps+="trap 'echo got $n >/tmp/share/ready' $n; "
	done
	ready_cmd "$traps ready; while :; do sleep 0.1; done"
}

# kill_and_expect SIGNAL NUMBER: shim kill $ID SIGNAL (no SIGNAL: "-"),
# init reports NUMBER.
kill_and_expect() {
	if [ "$1" = - ]; then
		run --separate-stderr shim kill "$ID"
	else
		run --separate-stderr shim kill "$ID" "$1"
	fi
	assert_status 0
	assert_eq "$stderr" ""
	local got
	got=$(timeout "$WAIT_SECS" cat "$T/share/ready") || true
	assert_eq "$got" "got $2" "init's answer to kill $1"
}

@test "kill by name, SIG-name, number, and TERM by default" {
	trapping 15 10 12
	ct_up
	wait_ready_ct
	kill_and_expect TERM 15
	kill_and_expect SIGTERM 15
	kill_and_expect 15 15
	kill_and_expect - 15
	kill_and_expect USR1 10
	kill_and_expect sigusr2 12
	kill_and_expect 10 10
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "kill RTMIN+n and RTMAX-n" {
	local rt3 rtmax1
	rt3=$(kill -l RTMIN+3)
	rtmax1=$(kill -l RTMAX-1)
	[ "$rt3" -gt 31 ]
	[ "$rtmax1" -gt "$rt3" ]
	trapping "$rt3" "$rtmax1"
	ct_up
	wait_ready_ct
	kill_and_expect RTMIN+3 "$rt3"
	kill_and_expect SIGRTMAX-1 "$rtmax1"
	kill_and_expect "$rt3" "$rt3"
	ct_cleanup
}

@test "kill KILL stops the container" {
	sh_cmd 'exec sleep 1000'
	ct_up
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	wait_gone "$pid"
	dead "$pid"
	ct_cleanup
}

@test "kill of a created container reaches its waiting init" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	dead "$pid"
	run --separate-stderr shim start "$ID"
	assert_error "cannot start container \`$ID\`: it is stopped"
	ct_cleanup
}

@test "kill --all signals every process of the container, not only init" {
	share_dir
	# init and a child shell each log the signals they get; the sleeps
	# they loop on may die of them, the loops go on.
	sh_cmd 'log=/tmp/share/log
		trap "echo init-USR1 >>$log" USR1; trap "echo init-USR2 >>$log" USR2
		sh -c "trap \"echo child-USR1 >>$log\" USR1; trap \"echo child-USR2 >>$log\" USR2
			echo child-ready >>$log; while :; do sleep 0.1; done" &
		echo init-ready >>$log
		while :; do sleep 0.1; done'
	ct_up
	wait_line "$T/share/log" init-ready
	wait_line "$T/share/log" child-ready
	# Without --all: init only.
	run --separate-stderr shim kill "$ID" USR1
	assert_status 0
	wait_line "$T/share/log" init-USR1
	# With --all: both.
	run --separate-stderr shim kill --all "$ID" USR2
	assert_status 0
	wait_line "$T/share/log" init-USR2
	wait_line "$T/share/log" child-USR2
	# A USR1 sent to the child would have been handled before its USR2.
	run grep -c child-USR1 "$T/share/log"
	assert_eq "$output" 0 "the child got init's USR1"
	ct_cleanup
}

@test "kill --all KILL leaves nothing of the container" {
	sh_cmd 'sleep 1000 & sleep 1000 & exec sleep 1000'
	ct_up
	local pids
	# init and its two sleeps
	timeout "$WAIT_SECS" bash -c 'until [ "$("$@" | jq length)" -ge 3 ]; do sleep 0.05; done' \
		_ env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" ps --format json "$ID"
	pids=$(shim ps --format json "$ID" | jq -r '.[]')
	assert_eq "$(wc -w <<<"$pids")" 3 "processes in the container"
	run --separate-stderr shim kill --all "$ID" KILL
	assert_status 0
	# shellcheck disable=SC2086
	wait_gone $pids
	local p
	for p in $pids; do
		dead "$p"
	done
	wait_status stopped
	ct_cleanup
}

@test "kill of a stopped container fails" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr shim kill "$ID" TERM
	assert_error "cannot kill container \`$ID\`: it is stopped"
	run --separate-stderr shim kill "$ID" KILL
	assert_error "cannot kill container \`$ID\`: it is stopped"
	ct_cleanup
}

@test "kill: an unknown signal, a missing container, no id" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim kill "$ID" NOPE
	assert_error 'kill: `NOPE`: not a signal'
	run --separate-stderr shim kill "$ID" 100
	assert_error 'kill: `100`: not a signal'
	run --separate-stderr shim kill "$ID" RTMIN+99
	assert_error 'kill: `RTMIN+99`: not a signal'
	assert_eq "$(ct_status)" running
	run --separate-stderr shim kill "$ID-missing" KILL
	assert_error "container \`$ID-missing\` does not exist"
	run --separate-stderr shim kill
	assert_error 'kill: a container id is required'
	ct_cleanup
}

@test "kill ID 0 tells whether init is alive, sends nothing and records nothing" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim kill "$ID" 0
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(ct_status)" running
	[ ! -e "$STATE/$ID/signals" ]
	ct_stop
	assert_eq "$(ct_status)" stopped
	run --separate-stderr shim kill "$ID" 0
	assert_error "cannot kill container \`$ID\`: it is stopped"
	ct_cleanup
}
