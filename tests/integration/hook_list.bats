#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook's poststop keeps its verdict in the same history as shim
# (--history-dir, given on the hook's command line: runc passes a hook
# only the config's env), and `shim-oom-hook list` reads it with the same
# code as `shim verdicts`.

load helpers
load hook_helpers

@test "poststop under runc: the verdict kept in the history; list, list --json, list NAME" {
	hook_bundle exit3
	cfg '.annotations["io.kubernetes.cri.container-name"] = "web"'
	runc_detached
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	run --separate-stderr "$HOOK" --history-dir "$SHIM_HISTORY_DIR" list --json
	assert_status 0
	assert_eq "$(jq length <<<"$output")" 1
	assert_eq "$(jq -r '.[0].id' <<<"$output")" "$ID"
	assert_eq "$(jq -r '.[0].source' <<<"$output")" hook
	assert_eq "$(jq -r '.[0].name' <<<"$output")" web
	# The record's verdict is the hook's own stored verdict.
	assert_eq "$(jq -c '.[0].verdict' <<<"$output")" "$(jq -c .verdict "$VDIR/$ID/verdict.json")"
	run --separate-stderr "$HOOK" --history-dir "$SHIM_HISTORY_DIR" list web
	assert_status 0
	assert_eq "$(tr -s ' ' <<<"${lines[0]}")" "TIME ID NAME REASON OOM_KILLED EXIT PEAK SOURCE"
	assert_contains "${lines[1]}" "$ID"
	assert_eq "${#lines[@]}" 2
	run --separate-stderr "$HOOK" --history-dir "$SHIM_HISTORY_DIR" list --json nomatch
	assert_eq "$output" "[]"
	# One store, one format: shim reads the hook's records too.
	run --separate-stderr shim verdicts --json "$ID"
	assert_eq "$(jq -r '.[0].source' <<<"$output")" hook
}

@test "list: a bad --since is refused, naming it" {
	run --separate-stderr "$HOOK" --history-dir "$SHIM_HISTORY_DIR" list --since soon
	assert_status 1
	assert_contains "$stderr" "--since: \`soon\`"
}
