#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim events ID`: runc's event stream -- a stats event (cpu, memory, pids
# of the container's cgroup) every --interval, an oom event per OOM kill,
# the end when the cgroup empties; `--stats` prints one stats event and
# returns.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

# is_stats LINE: a stats event of $ID.
is_stats() {
	jq -e --arg id "$ID" '
		.type == "stats" and .id == $id
		and (.data.cpu.usage.total | type == "number")
		and (.data.memory.usage.usage | type == "number")
		and (.data.memory.usage.limit | type == "number")
		and (.data.pids.current | type == "number")' <<<"$1" >/dev/null || {
		echo "not a stats event of $ID: $1" >&2
		false
	}
}

@test "events --stats prints one stats event as JSON and returns" {
	ct_up
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" events --stats "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(wc -l <<<"$output")" 1 "lines"
	is_stats "$output"
	# the container's cgroup has run a process: some cpu time
	jq -e '.data.cpu.usage.total > 0' <<<"$output" >/dev/null
	ct_cleanup
}

@test "events --stats of a created container" {
	ct_create_ok
	run --separate-stderr timeout "$WAIT_SECS" "$SHIM_BIN" --root "$STATE" events --stats "$ID"
	assert_status 0
	is_stats "$output"
	ct_cleanup
}

@test "events streams a stats event every --interval" {
	ct_up
	run --separate-stderr bash -c 'timeout "$1" "$2" --root "$3" events --interval 100ms "$4" | head -n 3' \
		_ "$WAIT_SECS" "$SHIM_BIN" "$STATE" "$ID"
	assert_eq "$(wc -l <<<"$output")" 3 "events in the stream"
	local line
	while IFS= read -r line; do
		is_stats "$line"
	done <<<"$output"
	ct_cleanup
}

@test "the event stream ends, with status 0, when the container stops" {
	ct_up
	"$SHIM_BIN" --root "$STATE" events --interval 1m "$ID" </dev/null >"$T/events.out" 2>"$T/events.err" 3>&- &
	local ev=$!
	BG_PIDS+=("$ev")
	# events has the cgroup open once it reads it: wait for that.
	timeout "$WAIT_SECS" sh -c 'until ls -l /proc/$1/fd 2>/dev/null | grep -q "cgroup.events"; do sleep 0.05; done' _ "$ev"
	shim kill "$ID" KILL
	local i rc=0
	for ((i = 0; i < WAIT_SECS * 20; i++)); do
		kill -0 "$ev" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$ev" 2>/dev/null; then
		echo "events still running after the container stopped" >&2
		false
	fi
	wait "$ev" || rc=$?
	assert_eq "$rc" 0 "events' exit status ($(cat "$T/events.err"))"
	# no oom event for a kill
	run grep -c '"type":"oom"' "$T/events.out"
	assert_eq "$output" 0
	ct_cleanup
}

@test "an OOM kill of the container is one oom event, and the stream ends" {
	share_dir
	cfg '.linux.resources.memory = {limit: 33554432}'
	# The hog starts once events watches (the file `go` in the shared dir).
	sh_cmd 'while [ ! -e /tmp/share/go ]; do sleep 0.05; done; exec /bin/memhog -s 8 -n 256'
	ct_up
	"$SHIM_BIN" --root "$STATE" events --interval 1m "$ID" </dev/null >"$T/events.out" 2>"$T/events.err" 3>&- &
	local ev=$! rc=0
	BG_PIDS+=("$ev")
	timeout "$WAIT_SECS" sh -c 'until ls -l /proc/$1/fd 2>/dev/null | grep -q "cgroup.events"; do sleep 0.05; done' _ "$ev"
	touch "$T/share/go"
	timeout "$WAIT_SECS" tail --pid="$ev" -f /dev/null
	wait "$ev" || rc=$?
	assert_eq "$rc" 0 "events' exit status ($(cat "$T/events.err"))"
	cat "$T/events.out"
	run grep -c '"type":"oom"' "$T/events.out"
	assert_eq "$output" 1
	ct_cleanup
}

@test "events of a stopped or missing container fails" {
	ct_up
	ct_stop
	run --separate-stderr shim events --stats "$ID"
	assert_error "events: container \`$ID\` is not running"
	run --separate-stderr shim events "$ID-missing"
	assert_error "container \`$ID-missing\` does not exist"
	run --separate-stderr shim events --stats
	assert_error 'events: a container id is required'
	ct_cleanup
}

@test "events --interval that is not a duration is refused" {
	ct_up
	run --separate-stderr shim events --interval soon "$ID"
	assert_error 'events: --interval `soon`: e.g. 5s, 500ms'
	run --separate-stderr shim events --interval 0s "$ID"
	assert_error 'events: --interval `0s`: e.g. 5s, 500ms'
	ct_cleanup
}
