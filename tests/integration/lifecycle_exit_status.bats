#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# After `create` + `start`, shim is not init's parent: the watcher `create`
# armed learns init's wait status from the kernel (a pidfd opened at
# create, PIDFD_INFO_EXIT once the reaper has reaped it: Linux 6.15 and
# later; the kernel's taskstats record of init's exit before), and the
# verdict in `state` is made from it.  The reaper here is
# tests/helpers/subreaper, which reaps at once as conmon and
# containerd-shim do.  The watcher itself never outlives `delete`.

load helpers

SUBREAPER=$REPO/tests/helpers/subreaper

# create_under_subreaper: `shim create` as a child of the subreaper, which
# then inherits init; $REAPER_PID.  $WATCHER_ENV: VAR=VALUE words for it
# (and so its watcher).  $HOLD: a fifo; init stays a zombie until
# release_hold.
create_under_subreaper() {
	env SHIM_TEST_TAG="$TAG" ${WATCHER_ENV:-} "$SUBREAPER" ${HOLD:+--hold "$HOLD"} "$SHIM_BIN" --root "$STATE" \
		create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID" 3>&- &
	REAPER_PID=$!
	timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

# wait_recorded: until the watcher wrote its last record.
wait_recorded() {
	timeout 20 sh -c 'until [ "$(jq -r .ended "$1" 2>/dev/null)" = true ]; do sleep 0.05; done' \
		_ "$STATE/$ID/record.json"
}

verdict_field() {
	shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"]' | jq -r "$1"
}

@test "init exiting 3 after create/start: Exited, exit code 3, from the kernel's record of it" {
	make_bundle exit3
	create_under_subreaper
	shim start "$ID"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(shim state "$ID" | jq -r .status)" stopped
	assert_eq "$(verdict_field .reason)" Exited
	assert_eq "$(verdict_field .exit_code)" 3
	assert_eq "$(jq -r .status "$STATE/$ID/record.json")" 768
	shim delete "$ID"
}

@test "kill -9 of init from outside after create/start: Killed by SIGKILL, not sent by the runtime" {
	make_bundle sleeper
	create_under_subreaper
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(verdict_field .reason)" Killed
	assert_eq "$(verdict_field .signal)" SIGKILL
	assert_eq "$(verdict_field .exit_code)" 137
	# No OOM kill: false from the container's memory cgroup (cgroup2
	# with the memory controller, or cgroup v1's memory hierarchy);
	# without one the OOM question stays open.
	local want=null
	if has_memory_cgroup; then
		want=false
	fi
	assert_eq "$(verdict_field .oom_killed)" "$want"
	shim delete "$ID"
}

@test "the watcher ends with delete, even right after create" {
	make_bundle sleeper
	shim create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID"
	# init (blocked before start) and the watcher carry the test's tag.
	[ "$(tagged_pids | wc -l)" -eq 2 ]
	shim delete --force "$ID"
	timeout 10 sh -c 'while grep -lsaF "SHIM_TEST_TAG=$1" /proc/[0-9]*/environ | grep -q .; do sleep 0.05; done' \
		_ "$TAG"
}

# delete's own end for the watcher, apart from the cgroup emptying: the
# state file's removal (an inotify watch the watcher opens itself), here
# while init still runs.
@test "the watcher ends when the state file is removed, although init still runs" {
	make_bundle sleeper
	shim create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID"
	shim start "$ID"
	[ "$(tagged_pids | wc -l)" -eq 2 ]
	cp "$STATE/$ID/state.json" "$T/state.json"
	rm "$STATE/$ID/state.json"
	timeout 10 sh -c 'until [ "$(grep -lsaF "SHIM_TEST_TAG=$1" /proc/[0-9]*/environ | wc -l)" -eq 1 ]; do sleep 0.05; done' \
		_ "$TAG"
	assert_eq "$(tagged_pids)" "$(cat "$T/pid")" "what is left: init alone"
	cp "$T/state.json" "$STATE/$ID/state.json"
	shim delete --force "$ID"
}

# watcher_pid: the tagged process that is neither init nor the subreaper.
# The watcher runs in a session of its own (setsid);
# `shim create`, the same program with the same arguments, may still be
# exiting in the test's session (seen under ASan).
watcher_pid() {
	local p ours
	ours=$(cut -d' ' -f6 "/proc/$REAPER_PID/stat")
	for p in $(tagged_pids | grep -vxe "$(cat "$T/pid")" -e "$REAPER_PID"); do
		local sid
		sid=$(cut -d' ' -f6 "/proc/$p/stat" 2>/dev/null) || continue
		if [ -n "$sid" ] && [ "$sid" != "$ours" ]; then
			echo "$p"
			return 0
		fi
	done
}

# delete_verdict FILTER: from the verdict `delete` logged.
delete_verdict() {
	grep -F '; verdict {' "$T/delete.log" | tail -n 1 | sed 's/.*; verdict //; s/"[,}]$//; s/\\"/"/g' | jq -r "$1"
}

# kill_and_reap: kill -9 init and wait (bounded) until the subreaper has
# reaped it; the subreaper itself waits for the watcher too, its orphan.
kill_and_reap() {
	local pid
	pid=$(cat "$T/pid")
	kill -9 "$pid"
	timeout 10 sh -c 'while [ -e /proc/$1 ]; do sleep 0.02; done' _ "$pid"
}

# stopped_watcher_then_reap: a running sleeper whose watcher ($w) is held
# up with SIGSTOP, then init killed and reaped.
stopped_watcher_then_reap() {
	make_bundle sleeper
	create_under_subreaper
	shim start "$ID"
	w=$(watcher_pid)
	[ -n "$w" ]
	kill -STOP "$w"
	kill_and_reap
}

# An engine calls `delete` as soon as its subreaper has reaped init; the
# watcher learns init's status from its pidfd a moment later.  Held up
# with SIGSTOP, the watcher is still writing when `delete` reads.
@test "delete right after init's reap waits for the watcher's last record" {
	stopped_watcher_then_reap
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" --log "$T/delete.log" --log-format json \
		delete "$ID" &
	del=$!
	# delete has opened the watcher's lock: it is waiting for it.
	timeout 10 sh -c 'until ls -l /proc/$1/fd 2>/dev/null | grep -q watcher.lock; do sleep 0.02; done' _ "$del"
	kill -CONT "$w"
	wait "$del"
	wait "$REAPER_PID"
	cat "$T/delete.log"
	assert_eq "$(delete_verdict .provisional)" false
	assert_eq "$(delete_verdict .reason)" Killed
	assert_eq "$(delete_verdict .exit_code)" 137
}

@test "a watcher that has not finished makes state's verdict provisional, and says so" {
	stopped_watcher_then_reap
	v=$(shim state "$ID" | jq -r '.annotations["io.github.shim.verdict"]')
	kill -CONT "$w"
	wait "$REAPER_PID"
	echo "$v"
	assert_eq "$(jq -r .provisional <<<"$v")" true
	assert_contains "$(jq -r .message <<<"$v")" "(provisional: the watcher had not written its last record)"
	shim delete "$ID"
}

# Kernels before 6.15 keep no exit status for a pidfd; there the watcher
# listens to the kernel's taskstats record of init's exit instead.  This
# host's kernel does keep it: SHIM_TEST_NO_PIDFD_EXIT makes the watcher
# act as on an older one.
@test "a pidfd that keeps no status (before 6.15): init's exit 3 from its taskstats record" {
	make_bundle exit3
	WATCHER_ENV=SHIM_TEST_NO_PIDFD_EXIT=1 create_under_subreaper
	shim start "$ID"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(verdict_field .reason)" Exited
	assert_eq "$(verdict_field .exit_code)" 3
	assert_eq "$(jq -r .status "$STATE/$ID/record.json")" 768
	shim delete "$ID"
}

@test "a pidfd that keeps no status (before 6.15): kill -9 from outside is Killed by SIGKILL, from taskstats" {
	make_bundle sleeper
	WATCHER_ENV=SHIM_TEST_NO_PIDFD_EXIT=1 create_under_subreaper
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(verdict_field .reason)" Killed
	assert_eq "$(verdict_field .signal)" SIGKILL
	assert_eq "$(verdict_field .killed_by)" outside
	shim delete "$ID"
}

# release_hold: let the subreaper reap the zombie it holds.
release_hold() {
	timeout 10 sh -c 'echo > "$1"' _ "$HOLD"
}

# Without both (before 6.15, rootless: no CAP_NET_ADMIN), init's zombie
# tells, read before the subreaper reaps it; conmon races that read.
@test "neither a pidfd status nor taskstats: kill -9 from outside, read from init's zombie, is Killed by SIGKILL" {
	make_bundle sleeper
	HOLD=$T/hold
	mkfifo "$HOLD"
	WATCHER_ENV="SHIM_TEST_NO_PIDFD_EXIT=1 SHIM_TEST_NO_TASKSTATS=1" create_under_subreaper
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait_recorded
	release_hold
	wait "$REAPER_PID"
	assert_eq "$(verdict_field .reason)" Killed
	assert_eq "$(verdict_field .signal)" SIGKILL
	assert_eq "$(verdict_field .killed_by)" outside
	assert_eq "$(jq -r .status "$STATE/$ID/record.json")" 9
	shim delete "$ID"
}

@test "neither a pidfd status nor taskstats: init's exit 3, read from its zombie" {
	make_bundle exit3
	HOLD=$T/hold
	mkfifo "$HOLD"
	WATCHER_ENV="SHIM_TEST_NO_PIDFD_EXIT=1 SHIM_TEST_NO_TASKSTATS=1" create_under_subreaper
	shim start "$ID"
	wait_recorded
	release_hold
	wait "$REAPER_PID"
	assert_eq "$(verdict_field .reason)" Exited
	assert_eq "$(verdict_field .exit_code)" 3
	shim delete "$ID"
}

# The reaper first: the watcher, held up with SIGSTOP, finds no zombie.
@test "neither a pidfd status nor taskstats, init reaped before the watcher looks: the status was not known" {
	make_bundle exit3
	WATCHER_ENV="SHIM_TEST_NO_PIDFD_EXIT=1 SHIM_TEST_NO_TASKSTATS=1" create_under_subreaper
	w=$(watcher_pid)
	[ -n "$w" ]
	kill -STOP "$w"
	shim start "$ID"
	timeout 10 sh -c 'while [ -e /proc/$1 ]; do sleep 0.02; done' _ "$(cat "$T/pid")"
	kill -CONT "$w"
	wait "$REAPER_PID"
	wait_recorded
	assert_eq "$(verdict_field .reason)" Unknown
	assert_contains "$(verdict_field .message)" "its exit status was not known: the engine reaped init before the watcher read it"
	assert_eq "$(jq -r .status "$STATE/$ID/record.json")" null
	assert_eq "$(jq -r .status_reaped_first "$STATE/$ID/record.json")" true
	shim delete "$ID"
}
