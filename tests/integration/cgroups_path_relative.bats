#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A relative linux.cgroupsPath is under the runtime's own cgroup in *each*
# hierarchy, as runc resolves it: its /proc/self/cgroup line for that
# controller (v1), and the `0::` line for the unified one.  shim runs here
# from a v1 memory cgroup of the test's own, different from its cpu one;
# the later commands, run from elsewhere, find every directory again (the
# state keeps them) and delete removes them all.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	MEM=$(cgroup_v1_mount memory)
	if [ -z "$MEM" ] || [ -z "$(cgroup_v1_mount cpu)" ]; then
		skip "no cgroup v1 memory and cpu hierarchies on this host (cgroup v2: tests/vm)"
	fi
	REL="shimrel-$ID/ct"
	# The memory cgroup shim runs from: made by the test, removed by it.
	OWNMEM="$MEM/shimrel-own-$ID"
	mkdir "$OWNMEM"
}

teardown() {
	local d
	for p in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do
		kill -9 "$p" 2>/dev/null || true
	done
	if [ -d "$STATE/$ID" ]; then
		shim delete -f "$ID" || true
	fi
	# Whatever a failed test left, in every hierarchy: reported, removed.
	for d in "$OWNMEM/$REL" "$OWNMEM/${REL%/*}" $(own_dirs "$REL") $(own_dirs "${REL%/*}") "$OWNMEM"; do
		if [ -d "$d" ]; then
			[ "$d" = "$OWNMEM" ] || echo "cgroup left behind: $d" >&2
			rmdir "$d" || echo "cannot remove $d" >&2
			[ "$d" = "$OWNMEM" ] || LEFT=1
		fi
	done
	shim_teardown
	[ -z "${LEFT:-}" ]
}

# own_dirs PATH: PATH under this process's own cgroup in every hierarchy
# (v1 controllers and the unified one), as runc would place it.
own_dirs() {
	local line ctrls path mnt c
	while IFS= read -r line; do
		ctrls=${line#*:}
		ctrls=${ctrls%%:*}
		path=${line#*:*:}
		[ "$path" = / ] && path=
		case $ctrls in
		'') mnt=$(cgroup2_mount) ;;
		name=*) continue ;;
		*) mnt=$(cgroup_v1_mount "${ctrls%%,*}") ;;
		esac
		[ -n "$mnt" ] && echo "$mnt$path/$1"
	done </proc/self/cgroup
}

# In the test's memory cgroup, then exec shim.
shim_in_own_memcg() {
	env SHIM_TEST_TAG="$TAG" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$OWNMEM" \
		"$SHIM_BIN" --root "$STATE" "$@"
}

@test "a relative cgroupsPath lands under the runtime's own cgroup in each hierarchy; delete removes every one" {
	cfg --arg p "$REL" '.linux.cgroupsPath = $p | .linux.resources.memory = {limit: 67108864}'
	sh_cmd 'exec sleep 1000'
	status=0
	shim_in_own_memcg create --bundle "$BUNDLE" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
	cat "$T/ct.err" >&2
	assert_status 0
	local pid cpu
	pid=$(ct_field pid)
	# memory: under the memory cgroup shim ran from, with the limit.
	[ -d "$OWNMEM/$REL" ]
	assert_eq "$(cat "$OWNMEM/$REL/cgroup.procs")" "$pid" "memory: init in $OWNMEM/$REL"
	assert_eq "$(cat "$OWNMEM/$REL/memory.limit_in_bytes")" 67108864
	# cpu (and the unified one): under the cgroup shim ran from there, the
	# test's own, not under the memory one's path.
	cpu=$(own_dirs "$REL" | grep "^$(cgroup_v1_mount cpu)/")
	assert_eq "$(cat "$cpu/cgroup.procs")" "$pid" "cpu: init in $cpu"
	[ ! -e "$(cgroup_v1_mount cpu)${OWNMEM#"$MEM"}" ]
	# Later commands from another memory cgroup (this one) find it all.
	run --separate-stderr shim start "$ID"
	assert_status 0
	run --separate-stderr shim update --memory 33554432 "$ID"
	assert_status 0
	assert_eq "$(cat "$OWNMEM/$REL/memory.limit_in_bytes")" 33554432 "update reached the memory hierarchy's directory"
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	run --separate-stderr shim delete "$ID"
	assert_status 0
	local d
	for d in "$OWNMEM/$REL" "$OWNMEM/${REL%/*}" $(own_dirs "$REL") $(own_dirs "${REL%/*}"); do
		if [ -e "$d" ]; then
			echo "left after delete: $d" >&2
			return 1
		fi
	done
}

@test "create killed before state.json (fault points): delete --force finds the directory in every hierarchy as create made it" {
	# One level: the container's own directory, which delete removes (a
	# parent create made is not known to be its own without state.json).
	REL="shimrel-$ID"
	cfg --arg p "$REL" '.linux.cgroupsPath = $p | .linux.resources.memory = {limit: 67108864}'
	sh_cmd 'exec sleep 1000'
	local phase d
	for phase in create:after-cgroup create:after-spawn; do
		status=0
		env SHIM_TEST_FAULT="$phase" SHIM_TEST_TAG="$TAG" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
			_ "$OWNMEM" "$SHIM_BIN" --root "$STATE" create --bundle "$BUNDLE" "$ID" \
			</dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
		assert_eq "$status" 137 "create stopped at $phase"
		assert_eq "$(ct_status)" creating
		[ -d "$OWNMEM/$REL" ]
		run --separate-stderr shim_in_own_memcg delete --force "$ID"
		assert_status 0
		for d in "$OWNMEM/$REL" $(own_dirs "$REL"); do
			if [ -e "$d" ]; then
				echo "$phase: left after delete --force: $d" >&2
				return 1
			fi
		done
	done
}

# The kernel names a v1 memory cgroup by its path in the memory hierarchy:
# here under the test's own memory cgroup, not the unified path.  Matched
# on the unified path, the log's records were another cgroup's, and the
# counters' kill and the log "disagreed".
@test "run, relative cgroupsPath: the kernel log is matched on the memory hierarchy's path" {
	make_bundle memhog
	cfg --arg p "$REL" '.linux.cgroupsPath = $p'
	status=0
	shim_in_own_memcg run --json --bundle "$BUNDLE" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
	assert_status 137
	local v
	v=$(tail -n 1 "$T/ct.err")
	echo "$v"
	assert_eq "$(jq -r .reason <<<"$v")" OOMKilled
	assert_eq "$(jq -c .witnesses <<<"$v")" '["counters","kmsg"]'
	assert_eq "$(jq -r '.oom.victims[0].command' <<<"$v")" memhog
	assert_eq "$(jq -r .oom.oom_memcg <<<"$v")" .
}
