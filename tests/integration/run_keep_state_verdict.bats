#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --keep` then `shim state ID`: the stopped container's state
# carries the verdict of the run in its annotations (the same verdict run
# printed), until `delete` removes it.

load helpers

@test "run --keep: state shows the verdict annotations, delete removes the container" {
	sh_cmd 'exit 3'
	run --separate-stderr shim run --keep --json --bundle "$BUNDLE" "$ID"
	assert_status 3
	local printed=$stderr
	run --separate-stderr shim state "$ID"
	assert_status 0
	assert_eq "$(jq -r .status <<<"$output")" stopped
	local a
	a=$(jq -c .annotations <<<"$output")
	assert_eq "$(jq -r '."io.github.shim.reason"' <<<"$a")" Exited
	assert_eq "$(jq -r '."io.github.shim.verdict" | fromjson | .exit_code' <<<"$a")" 3
	assert_eq "$(jq -c '."io.github.shim.verdict" | fromjson' <<<"$a")" "$(jq -c . <<<"$printed")" "the verdict run printed"
	[ "$(jq -r '."io.github.shim.oom-killed"' <<<"$a")" != "" ]
	run --separate-stderr shim delete "$ID"
	assert_status 0
	[ ! -e "$STATE/$ID" ]
}

@test "run --keep of a killed process: the saved verdict names the signal" {
	sh_cmd 'kill -KILL $$'
	cfg 'del(.linux.namespaces[] | select(.type == "pid"))'
	run --separate-stderr shim run --keep --bundle "$BUNDLE" "$ID"
	assert_status 137
	run --separate-stderr shim state "$ID"
	assert_status 0
	assert_eq "$(jq -r '.annotations."io.github.shim.verdict" | fromjson | .signal' <<<"$output")" SIGKILL
	run --separate-stderr shim delete "$ID"
	assert_status 0
}
