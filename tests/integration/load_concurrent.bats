#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# 32 containers created, started, killed and deleted at the same time, on
# one --root: each succeeds, and nothing is left (the teardown checks state
# dirs, mounts, processes and cgroups).  Two creates of one id racing:
# create_same_id_once.bats.

load helpers
load lifecycle_helpers

N=32

# cycle K: create, start, kill -9, wait stopped, delete $ID-K; its log in
# $T/cycle.K, its exit status in $T/rc.K (0, or the failed command's).
cycle() {
	local id=$ID-$1 rc=0
	# One && list, its status taken as a whole: errexit does not apply in a
	# subshell whose status is tested, so `set -e` there would not stop it.
	exec </dev/null >"$T/cycle.$1" 2>&1 3>&-
	sh_ create --bundle "$BUNDLE" "$id" &&
		sh_ start "$id" &&
		sh_ kill "$id" KILL &&
		wait_status stopped "$id" &&
		sh_ delete "$id" || rc=$?
	echo "$rc" >"$T/rc.$1"
}

sh_() {
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" "$@"
}

@test "32 concurrent create, start, kill -9 and delete: all succeed, nothing left" {
	sh_cmd 'exec sleep 1000'
	local k pids=() bad=()
	for ((k = 1; k <= N; k++)); do
		cycle "$k" &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k"
	done
	for ((k = 1; k <= N; k++)); do
		[ "$(cat "$T/rc.$k")" = 0 ] || bad+=("container $k: exit status $(cat "$T/rc.$k"): $(cat "$T/cycle.$k")")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >&2
		false
	fi
	wait_no_tagged
	assert_eq "$(ls -A "$STATE")" "" "state dirs left"
}
