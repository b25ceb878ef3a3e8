#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --json`: every line shim writes on stderr is JSON (errors and
# warnings as runc's --log-format json records, then the verdict), so that
# `2>&1 | jq` always works; with --log FILE the file keeps its own format.

load helpers

# all_json TEXT: each line of TEXT is a JSON object; $n_lines counts them.
all_json() {
	local line
	n_lines=0
	while IFS= read -r line; do
		jq -e 'type == "object"' <<<"$line" >/dev/null || {
			echo "not a JSON object: $line" >&2
			return 1
		}
		n_lines=$((n_lines + 1))
	done <<<"$1"
}

# A limit this host cannot enforce: memory.high is a cgroup v2 file, and
# the memory controller is on cgroup v1 here.
unenforceable() {
	cfg '.linux.resources.unified = {"memory.high": "104857600"}'
}

@test "run --json: an error is a JSON record" {
	unenforceable
	run --separate-stderr shim run --json --bundle "$BUNDLE" "$ID"
	assert_status 1
	all_json "$stderr"
	assert_eq "$(jq -r .level <<<"$stderr")" error
	assert_contains "$(jq -r .msg <<<"$stderr")" "memory.high: cannot enforce it"
}

@test "run --json: a warning is a JSON record, then the verdict" {
	unenforceable
	set_args /bin/true
	run --separate-stderr shim run --json --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	all_json "$stderr"
	assert_eq "$n_lines" 2 "lines on stderr"
	assert_eq "$(head -1 <<<"$stderr" | jq -r .level)" warning
	assert_eq "$(tail -1 <<<"$stderr" | jq -r .reason)" Exited
}

@test "run --json: a bad option after --json is a JSON record" {
	run --separate-stderr shim run --json --no-such-option --bundle "$BUNDLE" "$ID"
	assert_status 1
	all_json "$stderr"
	assert_eq "$(jq -r .msg <<<"$stderr")" 'run: unknown option `--no-such-option` (see `shim run --help`)'
}

@test "run --json with --log FILE: stderr JSON, the log file keeps its text format" {
	unenforceable
	set_args /bin/true
	run --separate-stderr shim --log "$T/log" run --json --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	all_json "$stderr"
	assert_contains "$(cat "$T/log")" 'level=warning msg="linux.resources: the memory.high limit is NOT enforced'
}
