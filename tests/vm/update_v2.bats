#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# `update` on a pure cgroup v2 kernel writes only what it is given (issue
# 23, "The update path"), as runc's fs2 does.  Runs INSIDE the VM:
#
#   tests/vm/run -- bats tests/vm/update_v2.bats
#
# create's defaults stay the container's: memory.oom.group as created (1,
# or a user's `unified` "0"), memory.swap.max as created (an update
# without swap wrote 0, taking the container's swap away).

load helpers

setup() {
	require_cgroup2_memory
	ID=upd-$BATS_TEST_NUMBER-$$
	S=$BATS_TEST_TMPDIR/state
}

teardown() {
	"$SHIM" --root "$S" kill "$ID" KILL 2>/dev/null || true
	"$SHIM" --root "$S" delete --force "$ID" 2>/dev/null || true
	assert_no_leftovers "$ID"
}

# up JQ_FILTER: a sleeping container $ID created and started, its
# resources from the filter.
up() {
	make_bundle hello "$(args_filter /bin/sleep 1000)" "$1"
	"$SHIM" --root "$S" create --bundle "$BUNDLE" "$ID" </dev/null >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- || {
		cat "$BATS_TEST_TMPDIR/out" >&2
		return 1
	}
	"$SHIM" --root "$S" start "$ID"
}

# file NAME: the container's cgroup file NAME.
file() {
	cat "$CGROOT/shim/$ID/$1"
}

@test "update of other fields keeps a unified memory.oom.group \"0\"; unified in the update sets it" {
	up '.linux.resources = {memory: {limit: 67108864}, unified: {"memory.oom.group": "0"}}'
	[ "$(file memory.oom.group)" = 0 ]
	run "$SHIM" --root "$S" update --pids-limit 50 "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.oom.group)" = 0 ] || { echo "update --pids-limit: memory.oom.group $(file memory.oom.group)" >&2; return 1; }
	run "$SHIM" --root "$S" update --memory 33554432 "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.oom.group)" = 0 ] || { echo "update --memory: memory.oom.group $(file memory.oom.group)" >&2; return 1; }
	run "$SHIM" --root "$S" update --resources - "$ID" <<<'{"unified": {"memory.oom.group": "1"}}'
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.oom.group)" = 1 ]
}

@test "create still sets memory.oom.group=1 and memory.swap.max=0 under a limit" {
	up '.linux.resources = {memory: {limit: 67108864}}'
	[ "$(file memory.oom.group)" = 1 ]
	[ "$(file memory.swap.max)" = 0 ]
	run "$SHIM" --root "$S" update --memory 134217728 "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.max)" = 134217728 ]
	[ "$(file memory.swap.max)" = 0 ]
}

@test "update --memory without --memory-swap leaves memory.swap.max as created; --memory -1 lifts both" {
	up '.linux.resources = {memory: {limit: 67108864, swap: 268435456}}'
	[ "$(file memory.swap.max)" = 201326592 ]
	run "$SHIM" --root "$S" update --memory 33554432 "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.max)" = 33554432 ]
	[ "$(file memory.swap.max)" = 201326592 ] || { echo "memory.swap.max $(file memory.swap.max)" >&2; return 1; }
	run "$SHIM" --root "$S" update --memory -1 "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(file memory.max)" = max ]
	[ "$(file memory.swap.max)" = max ]
}
