#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim ps ID PS_ARGS...` (ps ID -ef, ps ID -e -x) as runc's: ps(1) runs
# with the arguments, and its table is printed cut down to the header and
# the lines whose PID column is one of the container's processes.  With
# --format json, the pid list whatever the arguments.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

# pid_lines OUTPUT COLUMN: the PID column of each line but the header.
pid_lines() {
	tail -n +2 <<<"$1" | awk -v c="$2" '{ print $c }' | sort -n | tr '\n' ' '
}

@test "ps ID -ef: ps's header, then the container's processes only" {
	ct_up
	local init exec_pid
	init=$(ct_field pid)
	shim exec --detach --pid-file "$T/exec.pid" "$ID" /bin/sleep 1001 </dev/null >/dev/null 2>&1 3>&-
	exec_pid=$(cat "$T/exec.pid")
	run --separate-stderr shim ps "$ID" -ef
	assert_status 0
	assert_eq "$(head -1 <<<"$output" | tr -s ' ')" "UID PID PPID C STIME TTY TIME CMD"
	assert_eq "$(pid_lines "$output" 2)" "$(printf '%s\n' "$init" "$exec_pid" | sort -n | tr '\n' ' ')"
	assert_contains "$output" "sleep 1001"
	# not the host's processes: not this test's shell
	assert_not_contains "$(pid_lines "$output" 2)" " $$ "
	ct_cleanup
}

@test "ps ID -e -x: arguments pass through to ps" {
	ct_up
	local init
	init=$(ct_field pid)
	run --separate-stderr shim ps "$ID" -e -x
	assert_status 0
	assert_eq "$(head -1 <<<"$output" | tr -s ' ' | sed 's/^ //')" "PID TTY STAT TIME COMMAND"
	assert_eq "$(pid_lines "$output" 1)" "$init "
	# -x: ps prints the environment after the command
	assert_contains "$output" "SHIM_TEST_TAG=$TAG"
	ct_cleanup
}

@test "ps ID -o pid,comm; --format json ignores the arguments" {
	ct_up
	local init
	init=$(ct_field pid)
	run --separate-stderr shim ps "$ID" -o pid,comm
	assert_status 0
	assert_eq "$(tr -s ' ' <<<"$output" | sed 's/^ //')" "PID COMMAND
$init sleep"
	run --separate-stderr shim ps --format json "$ID" -ef
	assert_status 0
	assert_eq "$output" "[$init]"
	ct_cleanup
}

@test "ps ID with arguments that print no PID column, or that ps refuses, fails" {
	ct_up
	run --separate-stderr shim ps "$ID" -o comm
	assert_error "ps: no PID column in ps's output (give ps options that print it)"
	run --separate-stderr shim ps "$ID" --no-such-ps-option
	assert_status 1
	assert_contains "$stderr" "shim: ps: exited with 1"
	ct_cleanup
}

@test "ps -- ID ARGS: ARGS go to ps; ps ID -- ARGS hands \`--\` to ps too, which refuses it (runc 1.1.5 alike)" {
	ct_up
	local init
	init=$(ct_field pid)
	run --separate-stderr shim ps -- "$ID" -o pid,comm
	assert_status 0
	assert_eq "$(tr -s ' ' <<<"$output" | sed 's/^ //')" "PID COMMAND
$init sleep"
	run --separate-stderr shim ps "$ID" -- -o pid,comm
	assert_status 1
	assert_contains "$stderr" "shim: ps: exited with 1: error: garbage option"
	ct_cleanup
}
