#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --keep` then `shim state ID`: the stopped container's state
# carries the verdict of the run in its annotations (the same verdict run
# printed), until `delete` removes it; its cgroup stays too, emptied, in
# every hierarchy, with its values (runc's "check cgroup exists").

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
	# The line is the verdict plus run's own "warnings" and "error": the
	# verdict part is the annotation, exactly, and the two are the line's only.
	assert_eq "$(jq -c '."io.github.shim.verdict" | fromjson' <<<"$a")" "$(jq -c 'del(.warnings, .error)' <<<"$printed")" "the verdict run printed"
	assert_eq "$(jq -c '."io.github.shim.verdict" | fromjson | has("warnings") or has("error")' <<<"$a")" false
	assert_eq "$(jq -c '[.warnings, .error]' <<<"$printed")" '[[],null]'
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

@test "run --keep: the cgroup stays in every hierarchy with its values, until delete (as runc)" {
	cfg '.linux.resources = {memory: {limit: 67108864}, pids: {limit: 42}}'
	sh_cmd 'exit 0'
	run --separate-stderr shim run --keep --bundle "$BUNDLE" "$ID"
	assert_status 0
	# every hierarchy the container had a cgroup in: cgroup2, and on this
	# hybrid host each v1 one that carries a controller (not name=systemd)
	local want
	want=$({
		cgroup2_mount
		awk '$(NF-2) == "cgroup" && $NF !~ /name=/ { print $5 }' /proc/self/mountinfo
	} | sed "s|\$|/shim/$ID|")
	assert_eq "$(cgroup_dirs)" "$want" "the container's cgroups after run --keep"
	if [ -n "$(cgroup_v1_mount memory)" ]; then
		assert_eq "$(cat "$(cgroup_v1_dir memory)/memory.limit_in_bytes")" 67108864
		assert_eq "$(cat "$(cgroup_v1_dir pids)/pids.max")" 42
		assert_eq "$(cat "$(cgroup_v1_dir pids)/cgroup.procs")" "" "emptied"
	fi
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(cgroup_dirs)" "" "the cgroups after delete"
}
