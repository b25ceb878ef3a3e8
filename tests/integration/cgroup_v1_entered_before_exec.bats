#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# On cgroup v1 (this hybrid host) a clone reaches only the cgroup2
# directory; the child then puts itself in every v1 hierarchy (cgroup.h,
# cgroup_join_self), first thing, before anything of the container's.  A
# workload that ran before the move would run outside its memory limit and
# device rules (under the ASan build, memhog once held 72 MiB under
# 64 MiB).  Each test reads the workload's cgroups from its own first
# instruction: `cat /proc/self/cgroup` as the process, without a cgroup
# namespace, so the host's paths show.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	require_cgroup_v1_memory
	share_dir
}

# workload_pid: the pid of the container's `sleep 4242` (found by the
# test's tag in its environment), or nothing.
workload_pid() {
	local p
	for p in $(tagged_pids); do
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 4242 " ] && echo "$p"
	done
	return 0
}

# poll_workload N: $WORKLOAD, looked for N times 20 ms apart at most.
poll_workload() {
	local i
	for ((i = 0; i < $1; i++)); do
		WORKLOAD=$(workload_pid)
		[ -n "$WORKLOAD" ] || return 0
		sleep 0.02
	done
}

# mounted_v1: the controllers of each mounted v1 hierarchy, one line each
# ("cpu", "cpu,cpuacct"), as /proc/PID/cgroup names them.  A hierarchy
# can be listed there without a mount (hugetlb, once mounted and unmounted
# by an earlier test, lives on): the manager has no directory in it.
mounted_v1() {
	awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i + 1) == "cgroup") print $(i + 3) }' /proc/self/mountinfo |
		tr ',' '\n' | grep -Ev '^(rw|ro|name=.*|[a-z_]+=.*)$' | sort -u
}

# assert_in_every_v1 TEXT: the line of TEXT (a /proc/PID/cgroup) of every
# mounted v1 controller hierarchy is /shim/$ID; the named (name=systemd)
# and unified ones are not the v1 manager's.
assert_in_every_v1() {
	local lines ctrl
	lines=$(while read -r ctrl; do grep -E "^[0-9]+:([a-z_]+,)*$ctrl(,[a-z_]+)*:" <<<"$1"; done < <(mounted_v1) | sort -u)
	[ "$(wc -l <<<"$lines")" -ge 5 ]
	assert_eq "$(cut -d: -f3 <<<"$lines" | sort -u)" "/shim/$ID" "v1 cgroups of the workload:
$1"
}

@test "run: init is in every v1 hierarchy's cgroup from its first instruction" {
	cfg 'del(.linux.namespaces[] | select(.type == "cgroup"))'
	set_args cat /proc/self/cgroup
	run_shim
	assert_status 0
	assert_in_every_v1 "$output"
}

@test "exec: the process is in every v1 hierarchy's cgroup from its first instruction" {
	cfg 'del(.linux.namespaces[] | select(.type == "cgroup"))'
	sh_cmd 'echo ready >/tmp/share/ready; exec sleep 1000'
	start_bg
	wait_ready
	run shim exec "$ID" cat /proc/self/cgroup
	assert_status 0
	assert_in_every_v1 "$output"
	shim kill "$ID" KILL
	wait_shim
}

@test "the cgroup namespace is rooted at the container's cgroup in every v1 hierarchy" {
	# Made after the move, as runc does: cloned with it, its root was the
	# runtime's cgroup, and the container read /../../shim/ID.
	jq -e '.linux.namespaces | any(.type == "cgroup")' "$BUNDLE/config.json" >/dev/null
	sh_cmd 'cat /proc/self/cgroup'
	run_shim
	assert_status 0
	echo "$output"
	[ -n "$output" ]
	[ "$(printf '%s\n' "$output" | cut -d: -f3- | sort -u)" = / ]
}

# What runc's exec does: the process joins init's cgroup in every
# hierarchy, v1 ones included.  A relative cgroupsPath is under shim's own
# cgroup in each hierarchy, which differ here (state.json keeps them).
@test "exec: the process is in init's cgroup in every hierarchy, for a relative cgroupsPath too" {
	local path init
	for path in "" "shim/$ID"; do
		cfg --arg p "$path" 'if $p == "" then del(.linux.cgroupsPath) else .linux.cgroupsPath = $p end'
		sh_cmd 'exec sleep 1000'
		ct_up
		init=$(ct_field pid)
		shim exec -d "$ID" sleep 4242 </dev/null >/dev/null 2>&1 3>&-
		poll_workload $((WAIT_SECS * 50))
		[ -n "$WORKLOAD" ]
		assert_eq "$(cat "/proc/$WORKLOAD/cgroup")" "$(cat "/proc/$init/cgroup")" "exec'd process's cgroups (cgroupsPath \`$path\`)"
		ct_cleanup
	done
}
