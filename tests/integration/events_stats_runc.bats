#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim events --stats`: runc's stats event, with the fields runc's users
# read where the cgroup has them cheaply: cpu usage total, kernel and user
# (ns), cpu throttling, memory usage and swap, pids, and runc's blkio and
# hugetlb sections.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exec sleep 1000'
}

# has_pids_cgroup: the pids controller on cgroup2, or a v1 pids hierarchy.
has_pids_cgroup() {
	local cg
	cg=$(cgroup2_mount)
	{ [ -n "$cg" ] && grep -qw pids "$cg/cgroup.controllers"; } || [ -n "$(cgroup_v1_mount pids)" ]
}

@test "events --stats: runc's sections and fields" {
	ct_up
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" events --stats "$ID"
	assert_status 0
	jq -e --arg id "$ID" '
		.type == "stats" and .id == $id
		and ([.data.cpu.usage.total, .data.cpu.usage.kernel, .data.cpu.usage.user] | all(type == "number"))
		and ([.data.cpu.throttling.periods, .data.cpu.throttling.throttled_periods,
		      .data.cpu.throttling.throttled_time] | all(type == "number"))
		and ([.data.memory.usage.usage, .data.memory.usage.max, .data.memory.usage.limit,
		      .data.memory.usage.failcnt] | all(type == "number"))
		and ([.data.memory.swap.usage, .data.memory.swap.limit] | all(type == "number"))
		and ([.data.pids.current, .data.pids.limit] | all(type == "number"))
		and (.data.blkio | type == "object") and (.data.hugetlb | type == "object")' <<<"$output" >/dev/null
	if [ -n "$(cgroup_v1_mount cpuacct)" ]; then
		# cgroup v1: cpuacct.usage is ns, cpuacct.stat's user and system are
		# USER_HZ ticks of the same time, each floored to a tick: the two
		# parts add up to the total or less, by under two ticks.
		jq -e --argjson tick "$((1000000000 / $(getconf CLK_TCK)))" '
			(.data.cpu.usage.total - .data.cpu.usage.kernel - .data.cpu.usage.user) as $d
			| $d >= 0 and $d < 2 * $tick and .data.cpu.usage.total > 0' <<<"$output" >/dev/null
	else
		# cgroup v2's usage is user + system time, but cpu.stat floors each of
		# the three to microseconds on its own: the two parts add up to the
		# total or to 1 us less (seen once, under the sanitizer build).
		jq -e '(.data.cpu.usage.total - .data.cpu.usage.kernel - .data.cpu.usage.user) as $d
			| ($d == 0 or $d == 1000) and .data.cpu.usage.total > 0' <<<"$output" >/dev/null
	fi
	ct_cleanup
}

@test "events --stats: memory and pids of the container's cgroup, whichever cgroup version holds them" {
	if ! has_memory_cgroup && ! has_pids_cgroup; then
		skip "no memory or pids controller on this host"
	fi
	cfg '.linux.resources.memory = {limit: 67108864} | .linux.resources.pids = {limit: 32}'
	ct_up
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" events --stats "$ID"
	assert_status 0
	if has_memory_cgroup; then
		jq -e '.data.memory.usage.usage > 0 and .data.memory.usage.max >= .data.memory.usage.usage' \
			<<<"$output" >/dev/null
		assert_eq "$(jq .data.memory.usage.limit <<<"$output")" 67108864
	fi
	if has_pids_cgroup; then
		jq -e '.data.pids.current >= 1' <<<"$output" >/dev/null
		assert_eq "$(jq .data.pids.limit <<<"$output")" 32
	fi
	ct_cleanup
}
