#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `exec --cgroup` as runc 1.1's: PATH alone moves the process into that
# sub-cgroup of the container's in every hierarchy (every v1 one and the
# unified one on this hybrid host; the one there is on cgroup v2);
# CTRL[,CTRL]:PATH, repeatable, moves it in those v1 hierarchies only.  A
# path whose `..` leads out of the container's cgroup is "not a sub cgroup
# path"; a leading `/` is the container's own cgroup, as runc's path.Join.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

# mk_sub: a sub-cgroup `sub` of the container's in every hierarchy; a v1
# cpuset one gets its parent's cpus and mems, without which no task may
# join it (runc then fails with ENOSPC, as shim does).
mk_sub() {
	local d
	for d in $(cgroup_dirs); do
		mkdir "$d/sub"
		if [ -f "$d/sub/cpuset.cpus" ]; then
			cat "$d/cpuset.cpus" >"$d/sub/cpuset.cpus"
			cat "$d/cpuset.mems" >"$d/sub/cpuset.mems"
		fi
	done
}

# ct_hierarchies: the hierarchies init is in at the container's cgroup, as
# /proc/PID/cgroup names them ("memory", "cpu,cpuacct"; "cgroup2" for the
# unified one), sorted.
ct_hierarchies() {
	awk -F: -v p="/shim/$ID" '$3 == p { print ($2 == "" ? "cgroup2" : $2) }' "/proc/$(ct_field pid)/cgroup" |
		LC_ALL=C sort
}

# at OUTPUT: the lines of a /proc/self/cgroup in OUTPUT of the container's
# hierarchies, "memory /sub", sorted.
at() {
	awk -F: -v hs="$(ct_hierarchies)" '
		BEGIN { n = split(hs, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		{ k = ($2 == "" ? "cgroup2" : $2); if (k in want) print k, $3 }' <<<"$1" | LC_ALL=C sort
}

# all_at PATH [HIERARCHY=PATH...]: what `at` says when the process is at
# PATH in every hierarchy of the container but those named.
all_at() {
	local all=$1 h p kv
	shift
	for h in $(ct_hierarchies); do
		p=$all
		for kv; do
			[ "$h" = "${kv%%=*}" ] && p=${kv#*=}
		done
		echo "$h $p"
	done
}

@test "exec --cgroup SUB: the process is in SUB of the container's cgroup in every hierarchy" {
	ct_up
	mk_sub
	# this host: cgroup2 (unified) and the v1 hierarchies, memory among them
	assert_contains "$(ct_hierarchies)" cgroup2
	run --separate-stderr shim exec --cgroup sub "$ID" cat /proc/self/cgroup
	assert_status 0
	assert_eq "$(at "$output")" "$(all_at /sub)"
	# a leading / is the container's cgroup (runc's path.Join)
	run --separate-stderr shim exec --cgroup /sub "$ID" cat /proc/self/cgroup
	assert_status 0
	assert_eq "$(at "$output")" "$(all_at /sub)"
	run --separate-stderr shim exec --cgroup / "$ID" cat /proc/self/cgroup
	assert_status 0
	assert_eq "$(at "$output")" "$(all_at /)"
	ct_cleanup
}

@test "exec --cgroup CTRL:PATH (repeatable, CTRL,CTRL:PATH): those v1 hierarchies only" {
	[ -n "$(cgroup_v1_mount memory)" ] && [ -n "$(cgroup_v1_mount cpu)" ] ||
		skip "no cgroup v1 memory and cpu hierarchies (cgroup v2: PATH alone)"
	ct_up
	local mem cpu cpuacct
	mem=$(cgroup_v1_dir memory)
	cpu=$(cgroup_v1_dir cpu)
	cpuacct=$(cgroup_v1_dir cpuacct)
	mkdir "$mem/submem" "$cpu/subcpu"
	[ "$cpu" = "$cpuacct" ] || mkdir "$cpuacct/subcpu"
	run --separate-stderr shim exec --cgroup memory:submem --cgroup cpu,cpuacct:subcpu "$ID" cat /proc/self/cgroup
	assert_status 0
	assert_eq "$(at "$output")" "$(all_at / memory=/submem cpu=/subcpu cpuacct=/subcpu cpu,cpuacct=/subcpu)"
	assert_contains "$(at "$output")" "memory /submem"
	ct_cleanup
}

@test "exec --cgroup: out of the container's cgroup, missing, or an unknown controller is refused (255)" {
	ct_up
	mk_sub
	run --separate-stderr shim exec --cgroup .. "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" " .. is not a sub cgroup path"
	run --separate-stderr shim exec --cgroup sub/../../x "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" "sub/../../x is not a sub cgroup path"
	run --separate-stderr shim exec --cgroup "../$ID-x" "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" "../$ID-x is not a sub cgroup path"
	run --separate-stderr shim exec --cgroup nonexistent "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" 'exec: --cgroup: nonexistent: open `nonexistent` under the container'"'"'s cgroup'
	run --separate-stderr shim exec --cgroup whaaat:/ "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" "unknown controller whaaat"
	run --separate-stderr shim exec --cgroup sub --cgroup memory:sub "$ID" /bin/true
	assert_status 255
	assert_contains "$stderr" "invalid --cgroup argument: sub (missing <controller>: prefix)"
	ct_cleanup
}

@test "ps lists a process exec'd into a sub-cgroup, as runc's (every cgroup below the container's)" {
	ct_up
	local init
	mk_sub
	init=$(ct_field pid)
	shim exec --detach --cgroup sub --pid-file "$T/exec.pid" "$ID" /bin/sleep 1001 </dev/null >/dev/null 2>&1 3>&-
	run --separate-stderr shim ps --format json "$ID"
	assert_status 0
	assert_eq "$(jq -c 'sort' <<<"$output")" "$(jq -nc --argjson a "$init" --argjson b "$(cat "$T/exec.pid")" '[$a, $b] | sort')"
	ct_cleanup
}
