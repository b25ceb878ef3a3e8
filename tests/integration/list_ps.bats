#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim list` (table, --format json, -q) shows the containers under
# --root, sorted by id as runc; `shim ps ID` (ps -ef's table, --format json) the processes of
# one container's cgroup.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

# two: $ID running, $ID-b created.
two() {
	ct_up
	ct_create_ok -- "$ID-b"
}

@test "list: a table with a header and a row per container" {
	two
	run --separate-stderr shim list
	assert_status 0
	assert_eq "$(head -1 <<<"$output" | tr -s ' ')" "ID PID STATUS BUNDLE CREATED OWNER"
	assert_eq "$(wc -l <<<"$output")" 3 "lines"
	local row
	row=$(awk -v id="$ID" '$1 == id' <<<"$output")
	assert_eq "$(awk '{ print $2, $3, $4, $6 }' <<<"$row")" "$(ct_field pid) running $(realpath "$BUNDLE") root"
	row=$(awk -v id="$ID-b" '$1 == id' <<<"$output")
	assert_eq "$(awk '{ print $2, $3 }' <<<"$row")" "$(ct_field pid "$ID-b") created"
	ct_cleanup "$ID" "$ID-b"
}

@test "list --format json: the state of each container" {
	two
	run --separate-stderr shim list --format json
	assert_status 0
	jq -e 'type == "array" and length == 2' <<<"$output" >/dev/null
	local id
	for id in "$ID" "$ID-b"; do
		assert_eq "$(jq -c --arg id "$id" '.[] | select(.id == $id) | {id, pid, status, bundle}' <<<"$output")" \
			"$(shim state "$id" | jq -c '{id, pid, status, bundle}')" "list entry of $id vs its state"
	done
	ct_cleanup "$ID" "$ID-b"
}

@test "list -q and --quiet: the ids only" {
	two
	run --separate-stderr shim list -q
	assert_status 0
	assert_eq "$(sort <<<"$output")" "$(printf '%s\n' "$ID" "$ID-b" | sort)"
	run --separate-stderr shim list --quiet
	assert_eq "$(sort <<<"$output")" "$(printf '%s\n' "$ID" "$ID-b" | sort)"
	ct_cleanup "$ID" "$ID-b"
}

@test "list: rows sorted by id, not by creation, as runc 1.1.5 lists them" {
	# created c, a, d, b: runc lists a, b, c, d (Go's ReadDir sorts by name)
	local id
	for id in c a d b; do
		ct_create_ok -- "$ID-$id"
	done
	local want
	want=$(printf '%s\n' "$ID-a" "$ID-b" "$ID-c" "$ID-d")
	run --separate-stderr shim list -q
	assert_status 0
	assert_eq "$output" "$want" "list -q"
	run --separate-stderr shim list
	assert_eq "$(tail -n +2 <<<"$output" | awk '{ print $1 }')" "$want" "the table"
	run --separate-stderr shim list --format json
	assert_eq "$(jq -r '.[].id' <<<"$output")" "$want" "--format json"
	ct_cleanup "$ID-c" "$ID-a" "$ID-d" "$ID-b"
}

@test "list shows a stopped container as stopped, pid 0" {
	ct_up
	ct_stop
	run --separate-stderr shim list --format json
	assert_eq "$(jq -c '.[] | {status, pid}' <<<"$output")" '{"status":"stopped","pid":0}'
	ct_cleanup
}

@test "list of an empty or missing root: nothing" {
	run --separate-stderr shim list --format json
	assert_status 0
	assert_eq "$output" "[]"
	run --separate-stderr shim list -q
	assert_status 0
	assert_eq "$output" ""
	run --separate-stderr shim list
	assert_status 0
	assert_eq "$(wc -l <<<"$output")" 1 "the header only"
}

@test "list leaves out a state dir that is half made" {
	ct_up
	mkdir -p "$STATE/$ID-half"
	run --separate-stderr shim list -q
	assert_status 0
	assert_eq "$output" "$ID"
	rmdir "$STATE/$ID-half"
	ct_cleanup
}

@test "list --format that is neither table nor json is refused" {
	run --separate-stderr shim list --format yaml
	assert_error 'list: --format `yaml`: table or json'
}

@test "ps --format json: init's pid, and an exec'd process's" {
	ct_up
	local init
	init=$(ct_field pid)
	run --separate-stderr shim ps --format json "$ID"
	assert_status 0
	assert_eq "$output" "[$init]"
	shim exec --detach --pid-file "$T/exec.pid" "$ID" /bin/sleep 1000 </dev/null >/dev/null 2>&1 3>&-
	run --separate-stderr shim ps --format json "$ID"
	assert_status 0
	assert_eq "$(jq -c 'sort' <<<"$output")" "$(jq -nc --argjson a "$init" --argjson b "$(cat "$T/exec.pid")" '[$a, $b] | sort')"
	ct_cleanup
}

@test "ps ID: ps -ef's columns, the container's processes only, as runc" {
	ct_up
	# start returns once init is told to go: its `sh -c` may not have
	# exec'd sleep yet (seen: "PID /bin/sh -c exec sleep 1000"), so ps is
	# asked again until it has (bounded).
	local init i
	init=$(ct_field pid)
	for ((i = 0; i < 100; i++)); do
		run --separate-stderr shim ps "$ID"
		[[ $output != UID* ]] && break
		[ "$(sed -n 2p <<<"$output" | awk '{ print $2, $(NF-1), $NF }')" = "$init sleep 1000" ] && break
		sleep 0.05
	done
	assert_status 0
	assert_eq "$(head -1 <<<"$output" | tr -s ' ')" "UID PID PPID C STIME TTY TIME CMD"
	assert_eq "$(wc -l <<<"$output")" 2 "the header and init's line"
	assert_eq "$(sed -n 2p <<<"$output" | awk '{ print $1, $2, $(NF-1), $NF }')" "root $init sleep 1000"
	ct_cleanup
}

@test "ps of a created container lists its waiting init; of a stopped one, nothing" {
	ct_create_ok
	assert_eq "$(shim ps --format json "$ID")" "[$(ct_field pid)]"
	ct_stop
	run --separate-stderr shim ps --format json "$ID"
	assert_status 0
	assert_eq "$output" "[]"
	ct_cleanup
}

@test "ps of a missing container, or without an id, fails" {
	run --separate-stderr shim ps "$ID"
	assert_error "container \`$ID\` does not exist"
	run --separate-stderr shim ps
	assert_error 'ps: a container id is required'
}
