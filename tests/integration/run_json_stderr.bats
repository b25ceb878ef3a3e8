#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --json`: shim writes exactly one JSON line on stderr, always:
# the verdict's fields (none when the run failed before a verdict, or with
# --detach), "warnings" (every error and warning logged on the way) and
# "error" (what made the run fail, or null).  It is the last line on
# stderr: the workload's own stderr (shim's, shared) comes before it.  With
# --log FILE the file keeps its own records and format.

load helpers
load lifecycle_helpers

# one_line TEXT: TEXT is exactly one line, a JSON object.
one_line() {
	assert_eq "$(wc -l <<<"$1")" 1 "lines on stderr"
	jq -e 'type == "object"' <<<"$1" >/dev/null || {
		echo "not a JSON object: $1" >&2
		return 1
	}
}

# A limit this host cannot enforce: memory.high is a cgroup v2 file, and
# the memory controller is on cgroup v1 here.
unenforceable() {
	cfg '.linux.resources.unified = {"memory.high": "104857600"}'
}

@test "run --json: an error before a verdict is the line's error, with no verdict fields" {
	unenforceable
	run --separate-stderr shim run --json --bundle "$BUNDLE" "$ID"
	assert_status 1
	one_line "$stderr"
	assert_contains "$(jq -r .error <<<"$stderr")" "memory.high: cannot enforce it"
	assert_eq "$(jq -c .warnings <<<"$stderr")" "[]"
	assert_eq "$(jq -c 'has("reason")' <<<"$stderr")" false
}

@test "run --json: a warning is in the verdict's line, error null" {
	unenforceable
	set_args /bin/true
	run --separate-stderr shim run --json --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	one_line "$stderr"
	assert_eq "$(jq -r .reason <<<"$stderr")" Exited
	assert_eq "$(jq -r '.warnings | length' <<<"$stderr")" 1
	assert_contains "$(jq -r '.warnings[0]' <<<"$stderr")" "the memory.high limit is NOT enforced"
	assert_eq "$(jq -c .error <<<"$stderr")" null
}

@test "run --json: a bad option, after --json or before it, is the line's error" {
	run --separate-stderr shim run --json --no-such-option --bundle "$BUNDLE" "$ID"
	assert_status 1
	one_line "$stderr"
	assert_eq "$(jq -r .error <<<"$stderr")" 'run: unknown option `--no-such-option` (see `shim run --help`)'
	run --separate-stderr shim run --no-such-option --json --bundle "$BUNDLE" "$ID"
	assert_status 1
	one_line "$stderr"
	assert_eq "$(jq -r .error <<<"$stderr")" 'run: unknown option `--no-such-option` (see `shim run --help`)'
}

@test "run --json with --log FILE: one line on stderr, the log file keeps its text format" {
	unenforceable
	set_args /bin/true
	run --separate-stderr shim --log "$T/log" run --json --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	one_line "$stderr"
	assert_contains "$(cat "$T/log")" 'level=warning msg="linux.resources: the memory.high limit is NOT enforced'
}

@test "run --json --debug without --log: still one line (debug lines go only to a --log file)" {
	set_args /bin/true
	run --separate-stderr shim --debug run --json --bundle "$BUNDLE" "$ID"
	assert_status 0
	one_line "$stderr"
	assert_eq "$(jq -r .reason <<<"$stderr")" Exited
}

@test "run --json: the workload's own stderr comes first, shim's line is the last" {
	set_args /bin/sh -c 'echo "from the workload" >&2; exit 3'
	run --separate-stderr shim run --json --bundle "$BUNDLE" "$ID"
	assert_status 3
	assert_eq "$(head -1 <<<"$stderr")" "from the workload"
	assert_eq "$(wc -l <<<"$stderr")" 2 "lines on stderr"
	assert_eq "$(tail -1 <<<"$stderr" | jq -r .reason)" Exited
	assert_eq "$(tail -1 <<<"$stderr" | jq -r .exit_code)" 3
}

@test "run --json --detach: one line, no verdict yet" {
	sh_cmd 'exec sleep 1000'
	status=0
	shim run --json --detach --bundle "$BUNDLE" "$ID" </dev/null >"$T/out" 2>"$T/err" 3>&- || status=$?
	assert_status 0
	stderr=$(cat "$T/err")
	one_line "$stderr"
	assert_eq "$(jq -c . <<<"$stderr")" '{"warnings":[],"error":null}'
	assert_eq "$(ct_status)" running
	ct_cleanup
}
