#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook inside Debian's runc on a hybrid (or pure v1) host: runc
# keeps the container's memory limit in the v1 memory hierarchy
# (/sys/fs/cgroup/memory/shimhook-ID), so the hook's watcher must read the
# counters there (memory.oom_control's oom_kill, memory.failcnt,
# memory.max_usage_in_bytes, the limit) and be woken by the v1 OOM eventfd,
# not arm on the unified cgroup, which has no memory files.  Then the
# counters witness the verdict next to the kernel log.  (A cgroup v2 host has
# no v1 hierarchy: tests/vm/hook_runc_crun.bats covers it.)

load helpers
load hook_helpers

setup() {
	hook_setup
	require_cgroup_v1_memory
}

teardown() {
	hook_runc_teardown
}

# shown JQ: a field of `shim-oom-hook show --json ID`.
shown() {
	"$HOOK" --dir "$VDIR" show --json "$ID" | jq -c "$1"
}

@test "hook under runc, v1 memory cgroup: memhog over its 32 MiB limit is OOMKilled, the counters witness it" {
	hook_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432}'
	runc_detached
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	"$HOOK" --dir "$VDIR" show --json "$ID" >&2
	# The watcher armed on the container's v1 memory cgroup, not the
	# unified one (which has no memory files here).
	assert_eq "$(jq -r .cgroup "$VDIR/$ID/meta.json")" "/shimhook-$ID"
	assert_eq "$(shown .oom_killed)" true
	assert_eq "$(shown .reason)" '"OOMKilled"'
	assert_eq "$(shown .memory_limit)" 33554432
	assert_eq "$(shown .oom.scope)" '"container"'
	assert_eq "$(shown .oom.group_kill)" null "no group kill on v1"
	assert_eq "$(shown '.witnesses | index("counters") != null')" true
	assert_eq "$(jq -r .record "$VDIR/$ID/verdict.json")" complete
}

@test "hook under runc, v1 memory cgroup: kill -9 of init is no OOM kill" {
	hook_bundle sleeper
	cfg '.linux.resources.memory = {limit: 33554432}'
	runc_detached
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	"$HOOK" --dir "$VDIR" show --json "$ID" >&2
	assert_eq "$(shown .oom_killed)" false
	assert_eq "$(shown .memory_limit)" 33554432
	assert_eq "$(shown '.witnesses | index("counters") != null')" true
	assert_eq "$(shown .reason)" '"Killed"'
	assert_eq "$(shown .signal)" '"SIGKILL"'
}

@test "hook under runc, v1 memory cgroup: a foreground runc run removes the cgroups at once, the kill is still told" {
	hook_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432}'
	# runc reaps init and removes every cgroup right away, then runs poststop.
	# The watcher reads the counters when the OOM eventfd fires; a slow one
	# (seen under the ASan build) finds the cgroup gone, and the kernel log
	# alone tells the kill: OOMKilled either way, never a guess.
	run bash -c 'cd "$1" && exec runc --root "$2" run "$3" </dev/null' _ "$BUNDLE" "$RUNC_ROOT" "$ID"
	assert_status 137
	"$HOOK" --dir "$VDIR" show --json "$ID" >&2
	assert_eq "$(shown .oom_killed)" true
	assert_eq "$(shown .reason)" '"OOMKilled"'
	assert_eq "$(shown '.witnesses | index("kmsg") != null')" true
	assert_eq "$(shown .memory_limit)" 33554432
}
