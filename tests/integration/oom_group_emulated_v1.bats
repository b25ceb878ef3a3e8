#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# memory.oom.group emulated on cgroup v1.  v1 has no group kill: a
# container whose child is OOM-killed would keep its other processes, unlike
# on v2, where shim sets memory.oom.group=1.  The runtime's monitor (the
# foreground run's, create's detached watcher) emulates it: on the first
# OOM kill counted in the container's v1 memory cgroup it kills the rest
# (cgroup.kill on a hybrid host, the freezer on a pure v1 one), and the
# verdict says the runtime did it (oom.group_kill_by "runtime";
# oom.group_kill stays the kernel's counter: null on v1).
# linux.resources.unified {"memory.oom.group": "0"} opts out: the survivors
# are left alone, as on v2.  Here init is `sh` running memhog (OOM-killed at
# 32 MiB) and then `exec sleep 30` (bounded: without the emulation init exits 0 after it).

load helpers
load lifecycle_helpers
load pure_v1_helpers

EMULATED="; the runtime then killed the 1 process left in it, emulating memory.oom.group on cgroup v1"

setup() {
	shim_setup
	BG_PIDS=()
	require_cgroup_v1_memory
	make_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432} | .process.args = ["sh", "-c", "memhog -n 100 & exec sleep 30"]'
}

opt_out() {
	cfg '.linux.resources.unified = {"memory.oom.group": "0"}'
}

# verdict_field JQ: of the verdict, the last line of $stderr.
verdict_field() {
	tail -1 <<<"$stderr" | jq -c "$1"
}

state_verdict() {
	shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"]' | jq -c "$1"
}

# wait_oom_kill: until the container's v1 memory cgroup counts an OOM kill
# (bounded).  The directory may not be there yet: start_bg returns at once.
wait_oom_kill() {
	local d
	d=$(cgroup_v1_mount memory)/shim/$ID
	timeout 20 sh -c 'until [ "$(awk "\$1 == \"oom_kill\" { print \$2 }" "$1/memory.oom_control" 2>/dev/null)" -ge 1 ] 2>/dev/null; do sleep 0.05; done' _ "$d"
}

# create_under_subreaper: as in verdict_v1_host.bats (the watcher learns
# init's status from the kernel); $REAPER_PID.
create_under_subreaper() {
	env SHIM_TEST_TAG="$TAG" "$REPO/tests/helpers/subreaper" "$SHIM_BIN" --root "$STATE" create \
		--bundle "$BUNDLE" --pid-file "$T/pid" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- &
	REAPER_PID=$!
	BG_PIDS+=("$REAPER_PID")
	timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

wait_recorded() {
	timeout 20 sh -c 'until [ "$(jq -r .ended "$1" 2>/dev/null)" = true ]; do sleep 0.05; done' \
		_ "$STATE/$ID/record.json"
}

@test "run, v1: a child OOM-killed takes init with it; the verdict says the runtime emulated the group kill" {
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" '"OOMKilled"'
	assert_eq "$(verdict_field .oom_killed)" true
	assert_eq "$(verdict_field .oom.group_kill)" null "the kernel counted no group kill"
	assert_eq "$(verdict_field .oom.group_kill_by)" '"runtime"'
	assert_eq "$(verdict_field '.oom.victims[0].command')" '"memhog"'
	assert_contains "$(verdict_field .message)" "$EMULATED"
}

@test "run, v1: a shell waiting for the child the kernel kills is taken too, before it can exit 0" {
	# The runtime freezes the container when the OOM eventfd fires, before
	# the kill: without that, the shell woke at its child's death and
	# exited 0 first (4 runs in 6 here), where cgroup v2 gives 137.
	cfg '.process.args = ["sh", "-c", "memhog -n 100 & wait; echo init survived; exit 0"]'
	run_shim --json
	assert_status 137
	assert_not_contains "$output" "init survived"
	assert_eq "$(verdict_field .reason)" '"OOMKilled"'
	assert_eq "$(verdict_field .oom.group_kill_by)" '"runtime"'
}

@test "run, v1, unified memory.oom.group 0: init survives its child's OOM kill; killed later it is Killed" {
	opt_out
	start_bg --json
	wait_oom_kill
	# The OOM kill is counted and init still runs.
	assert_eq "$(ct_field status)" running
	local init
	init=$(ct_field pid)
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_shim
	assert_status 137
	stderr=$(cat "$T/err")
	assert_eq "$(verdict_field .reason)" '"Killed"'
	assert_eq "$(verdict_field .killed_by)" '"runtime"'
	assert_eq "$(verdict_field .oom.group_kill_by)" null
	assert_eq "$(verdict_field .oom.kills)" 1
	# The kill was of another process than init.
	assert_eq "$(verdict_field '.oom.victims[0].command')" '"memhog"'
	[ "$(verdict_field '.oom.victims[0].pid')" != "$init" ]
	assert_not_contains "$(verdict_field .message)" "emulating"
}

@test "create/start, v1: a child OOM-killed takes init with it; state and delete say the runtime emulated the group kill" {
	create_under_subreaper
	shim start "$ID"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(jq -c .oom_group_emulated "$STATE/$ID/record.json")" true
	assert_eq "$(state_verdict .reason)" '"OOMKilled"'
	assert_eq "$(state_verdict .oom_killed)" true
	assert_eq "$(state_verdict .oom.group_kill)" null
	assert_eq "$(state_verdict .oom.group_kill_by)" '"runtime"'
	assert_contains "$(state_verdict .message)" "$EMULATED"
	run --separate-stderr shim --log "$T/log.json" --log-format json delete "$ID"
	assert_status 0
	assert_contains "$(jq -r 'select(.level == "info") | .msg' "$T/log.json")" "$EMULATED"
}

@test "create/start, v1, unified memory.oom.group 0: init survives its child's OOM kill; killed later it is Killed" {
	opt_out
	ct_up
	wait_oom_kill
	assert_eq "$(ct_field status)" running
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	timeout 20 sh -c 'until [ "$(jq -r .ended "$1" 2>/dev/null)" = true ]; do sleep 0.05; done' _ "$STATE/$ID/record.json"
	assert_eq "$(jq -c .oom_group_emulated "$STATE/$ID/record.json")" false
	assert_eq "$(state_verdict .reason)" '"Killed"'
	assert_eq "$(state_verdict .killed_by)" '"runtime"'
	assert_eq "$(state_verdict .oom.group_kill_by)" null
	assert_eq "$(state_verdict .oom.kills)" 1
	assert_eq "$(state_verdict '.oom.victims[0].command')" '"memhog"'
	ct_cleanup
}

@test "create/start, pure v1: the group kill is emulated through the freezer" {
	in_pure_v1 '
		create_sr
		shim start "$ID" || exit 1
		wait "$REAPER_PID"
		wait_recorded || { echo "record not ended"; exit 1; }
		echo "emulated $(jq -c .oom_group_emulated "$STATE/$ID/record.json")"
		echo "reason $(state_verdict .reason)"
		echo "by $(state_verdict .oom.group_kill_by)"
		echo "message $(state_verdict .message)"
		delete_logged "[.reason, .oom.group_kill_by]"
	'
	assert_status 0
	assert_eq "$(pv1 emulated)" true
	assert_eq "$(pv1 reason)" '"OOMKilled"'
	assert_eq "$(pv1 by)" '"runtime"'
	assert_contains "$(pv1 message)" "$EMULATED"
	assert_eq "$(pv1 delete)" 0
	assert_eq "$(pv1 deleted)" '["OOMKilled","runtime"]'
}

@test "v1: unified memory.oom.group other than 0 or 1 is still refused by name" {
	cfg '.linux.resources.unified = {"memory.oom.group": "2"}'
	ct_create
	assert_status 1
	assert_contains "$stderr" "linux.resources.unified.memory.oom.group: cannot enforce it"
}

# The parent cgroup a test makes at the top of every hierarchy ($ID-p):
# reported and removed when a failed test left it.
teardown() {
	local p d left=
	for p in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do
		kill -9 "$p" 2>/dev/null || true
	done
	shim_teardown
	for d in /sys/fs/cgroup/*/"$ID-p" /sys/fs/cgroup/"$ID-p"; do
		[ -d "$d" ] || continue
		echo "cgroup left behind: $d" >&2
		find "$d" -depth -type d -exec rmdir {} +
		left=1
	done
	[ -z "$left" ]
}

# monitor_idle PID: until the runtime PID has read its OOM eventfd and is
# back in poll(2) (bounded): it has handled the notification.
monitor_idle() {
	local fd
	fd=$(find "/proc/$1/fd" -lname 'anon_inode:\[eventfd\]' -printf '%f\n' | head -n 1)
	[ -n "$fd" ]
	timeout 10 sh -c 'until grep -q "^eventfd-count: *0$" "/proc/$1/fdinfo/$2" && grep -q poll "/proc/$1/wchan"; do sleep 0.02; done' \
		_ "$1" "$fd"
}

# v1 notifies every cgroup below the one whose limit ran out: a parent's
# OOM wakes the container's monitor.  The emulation's freeze and thaw must
# leave a container the user paused paused.
@test "run, v1: a parent's OOM wakes a paused container's monitor; it stays paused" {
	local mem p
	mem=$(cgroup_v1_mount memory)
	p=$ID-p
	mkdir "$mem/$p"
	echo 33554432 >"$mem/$p/memory.limit_in_bytes"
	cfg --arg cg "/$p/c" '.linux.cgroupsPath = $cg | del(.linux.resources.memory) | .process.args = ["sleep", "1000"]'
	start_bg --json
	wait_status running
	run --separate-stderr shim pause "$ID"
	assert_status 0
	# A sibling under the same parent, without a limit of its own.
	mkdir "$T/sib"
	jq --arg cg "/$p/s" '.linux.cgroupsPath = $cg | .process.args = ["memhog", "-n", "100"]' \
		"$BUNDLE/config.json" >"$T/sib/config.json"
	run --separate-stderr shim run --bundle "$T/sib" "$ID-s"
	assert_status 137
	monitor_idle "$SHIM_PID"
	assert_eq "$(ct_field status)" paused
	run --separate-stderr shim resume "$ID"
	assert_status 0
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_shim
	rmdir "$mem/$p"
}
