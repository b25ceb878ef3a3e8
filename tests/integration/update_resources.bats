#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim update`: new resources for a created, running or paused
# container, as runc takes them -- `--resources FILE` / `-` (containerd
# writes the JSON to stdin) or flags (--memory, --pids-limit, ...).
# Written to the container's cgroup2 cgroup.  A limit that cannot be
# enforced there is an error, as it is for create.
#
# On a hybrid host (controllers on v1, an empty cgroup2) the limits go to
# the v1 hierarchies (/sys/fs/cgroup/memory/shim/ID/memory.limit_in_bytes)
# and the files that need no controller (cgroup.max.*) to the cgroup2 one.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	need_cgroup2 update
	sh_cmd 'exec sleep 1000'
}

# has_ctrl NAME: the container's cgroup offers controller NAME (in
# cgroup2, or its v1 hierarchy).
has_ctrl() {
	[ -n "$(cgroup_v1_dir "$1")" ] || grep -qw "$1" "$CG/shim/$ID/cgroup.controllers"
}

# memory_limit: the container's memory limit as the kernel has it.
memory_limit() {
	local d
	d=$(cgroup_v1_dir memory)
	if [ -n "$d" ]; then cat "$d/memory.limit_in_bytes"; else cat "$CG/shim/$ID/memory.max"; fi
}

@test "update --resources - reads the JSON from stdin and writes the cgroup" {
	ct_up
	run --separate-stderr shim update --resources - "$ID" <<<'{"unified": {"cgroup.max.descendants": "7"}}'
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(cat "$CG/shim/$ID/cgroup.max.descendants")" 7
	ct_cleanup
}

@test "update --resources FILE" {
	ct_up
	echo '{"unified": {"cgroup.max.depth": "3"}}' >"$T/res.json"
	run --separate-stderr shim update --resources "$T/res.json" "$ID"
	assert_status 0
	assert_eq "$(cat "$CG/shim/$ID/cgroup.max.depth")" 3
	ct_cleanup
}

@test "update of a created and of a paused container" {
	ct_create_ok
	run --separate-stderr shim update --resources - "$ID" <<<'{"unified": {"cgroup.max.descendants": "11"}}'
	assert_status 0
	assert_eq "$(cat "$CG/shim/$ID/cgroup.max.descendants")" 11
	ct_start_ok
	shim pause "$ID"
	run --separate-stderr shim update --resources - "$ID" <<<'{"unified": {"cgroup.max.descendants": "12"}}'
	assert_status 0
	assert_eq "$(cat "$CG/shim/$ID/cgroup.max.descendants")" 12
	shim resume "$ID"
	ct_cleanup
}

@test "update --memory: memory.max where the memory controller is, refused where it is not" {
	ct_up
	run --separate-stderr shim update --memory 67108864 "$ID"
	if has_ctrl memory; then
		assert_status 0
		assert_eq "$(memory_limit)" 67108864
	else
		assert_error "invalid configuration: cannot enforce the memory limit: the controller is not enabled for cgroup \`/shim/$ID\`"
	fi
	# runc's sizes: 64M is the same limit.
	run --separate-stderr shim update --memory 64M "$ID"
	if has_ctrl memory; then
		assert_status 0
		assert_eq "$(memory_limit)" 67108864
	else
		assert_error "invalid configuration: cannot enforce the memory limit: the controller is not enabled for cgroup \`/shim/$ID\`"
	fi
	# the same limit as JSON on stdin: the same outcome
	run --separate-stderr shim update --resources - "$ID" <<<'{"memory": {"limit": 67108864}}'
	if has_ctrl memory; then
		assert_status 0
	else
		assert_error "invalid configuration: cannot enforce the memory limit: the controller is not enabled for cgroup \`/shim/$ID\`"
	fi
	ct_cleanup
}

@test "update: values that are not numbers, malformed JSON, unknown options are refused" {
	ct_up
	run --separate-stderr shim update --memory lots "$ID"
	assert_error 'update: --memory `lots`: not a size'
	run --separate-stderr shim update --pids-limit ten "$ID"
	assert_error 'update: --pids-limit `ten`: not a number'
	run --separate-stderr shim update --cpu-quota 1.5 "$ID"
	assert_error 'update: --cpu-quota `1.5`: not a number'
	run --separate-stderr shim update --resources - "$ID" <<<'not json'
	assert_status 1
	assert_contains "$stderr" "shim: update: stdin: "
	assert_contains "$stderr" "malformed JSON"
	run --separate-stderr shim update --resources - "$ID" <<<'{"memory": {"limit": "a lot"}}'
	assert_status 1
	assert_contains "$stderr" "update: stdin: "
	assert_contains "$stderr" "memory.limit"
	run --separate-stderr shim update --resources "$T/missing.json" "$ID"
	assert_status 1
	assert_contains "$stderr" "$T/missing.json"
	run --separate-stderr shim update --frobnicate 1 "$ID"
	assert_error 'update: unknown option `--frobnicate`'
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "update of a stopped or missing container, or without an id, is refused" {
	ct_up
	ct_stop
	run --separate-stderr shim update --resources - "$ID" <<<'{"unified": {"cgroup.max.descendants": "5"}}'
	assert_error "cannot update container \`$ID\`: it is stopped"
	run --separate-stderr shim update --pids-limit 5 "$ID-missing"
	assert_error "container \`$ID-missing\` does not exist"
	run --separate-stderr shim update --pids-limit 5
	assert_error 'update: exactly one container id is required'
	ct_cleanup
}

@test "create refuses a pids limit the cgroup cannot enforce (the reference for update)" {
	cfg '.linux.resources.pids = {limit: 10}'
	ct_create
	if has_ctrl pids 2>/dev/null; then
		assert_status 0
		assert_eq "$(cat "$(cgroup_v1_dir pids || echo "$CG/shim/$ID")/pids.max")" 10
		ct_cleanup
	else
		assert_status 1
		assert_contains "$stderr" "shim: invalid configuration: linux.resources: cannot enforce the pids limit"
		[ ! -e "$STATE/$ID" ]
	fi
}

# The same limit through update: applied, or refused -- never a success
# that changed nothing.
@test "update --pids-limit: pids.max where the pids controller is, refused where it is not" {
	ct_up
	local ctrl=no
	has_ctrl pids && ctrl=yes
	run --separate-stderr shim update --pids-limit 10 "$ID"
	local flag_status=$status flag_err=$stderr
	run --separate-stderr shim update --resources - "$ID" <<<'{"pids": {"limit": 10}}'
	local json_status=$status json_err=$stderr
	ct_cleanup
	if [ "$ctrl" = yes ]; then
		assert_eq "$flag_status" 0 "--pids-limit: exit status"
		assert_eq "$json_status" 0 "pids.limit on stdin: exit status"
	else
		assert_eq "$flag_status" 1 "--pids-limit without a pids controller: exit status (stderr: $flag_err)"
		assert_contains "$flag_err" pids
		assert_eq "$json_status" 1 "pids.limit on stdin without a pids controller: exit status (stderr: $json_err)"
		assert_contains "$json_err" pids
	fi
}

@test "update --cpu-quota: cpu.max where the cpu controller is, refused where it is not" {
	ct_up
	local ctrl=no
	has_ctrl cpu && ctrl=yes
	run --separate-stderr shim update --cpu-quota 50000 --cpu-period 100000 "$ID"
	local st=$status err=$stderr max="" d
	d=$(cgroup_v1_dir cpu) || true
	if [ -n "$d" ]; then
		max="$(cat "$d/cpu.cfs_quota_us") $(cat "$d/cpu.cfs_period_us")"
	elif [ "$ctrl" = yes ]; then
		max=$(cat "$CG/shim/$ID/cpu.max")
	fi
	ct_cleanup
	if [ "$ctrl" = yes ]; then
		assert_eq "$st" 0
		assert_eq "$max" "50000 100000"
	else
		assert_eq "$st" 1 "--cpu-quota without a cpu controller: exit status (stderr: $err)"
		assert_contains "$err" cpu
	fi
}

# swap_limit: the container's swap limit as the kernel has it: v1's
# memory.memsw.limit_in_bytes (memory + swap), v2's memory.swap.max (swap
# alone).
swap_limit() {
	local d
	d=$(cgroup_v1_dir memory)
	if [ -n "$d" ]; then cat "$d/memory.memsw.limit_in_bytes"; else cat "$CG/shim/$ID/memory.swap.max"; fi
}

# need_memory_swap: the container's memory cgroup has a swap limit file.
need_memory_swap() {
	local d
	d=$(cgroup_v1_dir memory)
	[ -f "${d:-$CG/shim/$ID}/memory.memsw.limit_in_bytes" ] || [ -f "$CG/shim/$ID/memory.swap.max" ] || {
		echo "no swap limit file in the container's memory cgroup (no memory controller, or no swap accounting)" >&2
		return 1
	}
}

# `update --memory` without --memory-swap wrote memsw = the
# limit (v1) / memory.swap.max=0 (v2), taking the container's swap away.
# runc 1.1.5 on this host leaves memsw at 268435456 (its fs2 writes no
# memory.swap.max for an unset swap).
@test "update --memory without --memory-swap keeps the swap the container was created with" {
	cfg '.linux.resources.memory = {limit: 67108864, swap: 268435456}'
	ct_up
	need_memory_swap
	local before st err limit after
	before=$(swap_limit)
	run --separate-stderr shim update --memory 33554432 "$ID"
	st=$status err=$stderr
	limit=$(memory_limit)
	after=$(swap_limit)
	ct_cleanup
	assert_eq "$st" 0 "update --memory: exit status (stderr: $err)"
	assert_eq "$limit" 33554432 "the new limit"
	assert_eq "$after" "$before" "the swap limit as created"
}

# A container made without swap (a limit, no swap: memsw = the limit on
# v1, memory.swap.max 0 on v2) stays without swap when the limit grows.
@test "update --memory of a container without swap keeps it without swap" {
	cfg '.linux.resources.memory = {limit: 67108864}'
	ct_up
	need_memory_swap
	local st err limit after
	run --separate-stderr shim update --memory 134217728 "$ID"
	st=$status err=$stderr
	limit=$(memory_limit)
	after=$(swap_limit)
	ct_cleanup
	assert_eq "$st" 0 "update --memory: exit status (stderr: $err)"
	assert_eq "$limit" 134217728 "the new limit"
	if [ -n "$(cgroup_v1_mount memory)" ]; then
		assert_eq "$after" 134217728 "v1: memsw follows the limit (no swap)"
	else
		assert_eq "$after" 0 "v2: memory.swap.max stays 0"
	fi
}

# v1: a limit above the memory+swap limit the container keeps is the
# kernel's bare EINVAL (runc: `failed to write ...: invalid argument`);
# shim names both limits and what to give.
@test "update --memory above the container's memory+swap limit is refused by name (v1)" {
	require_cgroup_v1_memory
	cfg '.linux.resources.memory = {limit: 67108864, swap: 268435456}'
	ct_up
	need_memory_swap
	local limit after
	run --separate-stderr shim update --memory 536870912 "$ID"
	limit=$(memory_limit)
	after=$(swap_limit)
	ct_cleanup
	assert_error "linux.resources.memory.limit: 536870912 is above the container's memory+swap limit 268435456 (memory.memsw.limit_in_bytes): give the swap too (linux.resources.memory.swap, --memory-swap)"
	assert_eq "$limit" 67108864 "the limit as it was"
	assert_eq "$after" 268435456 "memsw as it was"
}
