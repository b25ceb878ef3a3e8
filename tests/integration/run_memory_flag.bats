#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --memory SIZE` overrides linux.resources.memory.limit for the
# run.  The flag was applied after config.json's swap check, so a limit
# above the config's swap (memory + swap) reached the kernel and came back
# as a bare EINVAL from memory.memsw.limit_in_bytes.  runc has
# no such flag; for the same config (limit above swap) it says `failed to
# write "67108864": write .../memory.memsw.limit_in_bytes: invalid
# argument`.  shim names both values and where each came from, before
# anything is made.

load helpers
load lifecycle_helpers

@test "run --memory above the config's swap is refused by name, before anything is made" {
	cfg '.linux.resources.memory = {limit: 67108864, swap: 134217728}'
	run_shim --memory 256M
	assert_error "linux.resources.memory.swap: 134217728 is below the limit 268435456 of --memory (swap counts memory plus swap): give a larger swap or a smaller --memory"
	[ ! -e "$STATE/$ID" ]
}

@test "run --memory within the config's swap: the flag's limit, the config's swap" {
	require_cgroup_v1_memory
	cfg '.linux.resources.memory = {limit: 67108864, swap: 268435456}'
	sh_cmd 'exec sleep 1000'
	status=0
	shim run --detach --memory 128M --bundle "$BUNDLE" "$ID" </dev/null >"$T/out" 2>"$T/err" 3>&- || status=$?
	local d limit="" memsw=""
	d=$(cgroup_v1_dir memory) || true
	if [ -n "$d" ]; then
		limit=$(cat "$d/memory.limit_in_bytes")
		[ ! -e "$d/memory.memsw.limit_in_bytes" ] || memsw=$(cat "$d/memory.memsw.limit_in_bytes")
	fi
	ct_cleanup
	assert_eq "$status" 0 "run --detach --memory 128M: exit status ($(cat "$T/err"))"
	assert_eq "$limit" 134217728 "memory.limit_in_bytes: the flag's"
	if [ -e "$(cgroup_v1_mount memory)/memory.memsw.limit_in_bytes" ]; then
		assert_eq "$memsw" 268435456 "memory.memsw.limit_in_bytes: the config's swap"
	fi
}
