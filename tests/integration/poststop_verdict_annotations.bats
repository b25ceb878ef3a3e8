#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# poststop hooks get the stopped state, with the verdict in three
# annotations: io.github.shim.verdict (the verdict JSON, as a string),
# io.github.shim.oom-killed (true|false|null) and io.github.shim.reason
# (OOMKilled|Killed|Signaled|Exited|Unknown).  `state` of a stopped
# container shows the same.

load helpers
load lifecycle_helpers

V=io.github.shim.verdict
OOM=io.github.shim.oom-killed
REASON=io.github.shim.reason

setup() {
	shim_setup
	BG_PIDS=()
	share_dir
	sh_hook poststop "cat >$T/share/poststop.json"
}

# ann KEY [FILE]: an annotation of the poststop state.
ann() {
	jq -r --arg k "$1" '.annotations[$k]' "${2:-$T/share/poststop.json}"
}

# verdict FILTER: of the verdict JSON in the poststop state.
verdict() {
	ann "$V" | jq -r "$1"
}

# no_oom_kill: the oom-killed annotation of a container nothing OOM-killed:
# false where the container has a memory cgroup (cgroup2 with the memory
# controller: its memory.events tells; a cgroup v1 memory hierarchy: its
# memory.oom_control), null where it has none: then the question stays open.
no_oom_kill() {
	if has_memory_cgroup; then
		echo false
	else
		echo null
	fi
}

# not_the_runtime: killed_by of a SIGKILL the runtime did not send:
# "outside" when the counters prove no OOM kill, else null.
not_the_runtime() {
	if [ "$(no_oom_kill)" = false ]; then echo outside; else echo null; fi
}

# consistent: the three annotations agree with each other.
consistent() {
	local f=${1:-$T/share/poststop.json}
	ann "$V" "$f" | jq -e . >/dev/null
	assert_eq "$(ann "$REASON" "$f")" "$(ann "$V" "$f" | jq -r .reason)" "reason annotation vs verdict"
	assert_eq "$(ann "$OOM" "$f")" "$(ann "$V" "$f" | jq -r '.oom_killed | if . == null then "null" else tostring end')" \
		"oom-killed annotation vs verdict"
	[[ "$(ann "$OOM" "$f")" =~ ^(true|false|null)$ ]]
}

@test "killed by shim kill KILL: poststop sees stopped, reason Killed, by the runtime" {
	sh_cmd 'exec sleep 1000'
	cfg '.annotations = {"org.example.keep": "me"}'
	ct_up
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	wait_no_tagged
	run --separate-stderr shim delete "$ID"
	assert_status 0
	local f=$T/share/poststop.json
	assert_eq "$(jq -r .status "$f")" stopped
	assert_eq "$(jq -r .id "$f")" "$ID"
	assert_eq "$(ann "$REASON")" Killed
	assert_eq "$(verdict .killed_by)" runtime
	assert_contains "$(verdict .message)" "$ID"
	consistent
	# the config's own annotations are kept
	assert_eq "$(ann org.example.keep)" me
	# not the OOM killer's
	assert_eq "$(ann "$OOM")" "$(no_oom_kill)" "oom-killed"
}

@test "delete --force of a running container: reason Killed, by the runtime" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim delete --force "$ID"
	assert_status 0
	assert_eq "$(jq -r .status "$T/share/poststop.json")" stopped
	assert_eq "$(ann "$REASON")" Killed
	assert_eq "$(verdict .killed_by)" runtime
	consistent
	wait_no_tagged
}

@test "a detached container that exited by itself: not Killed, nobody killed it" {
	sh_cmd 'echo done >/tmp/share/done; exit 3'
	ct_up
	wait_status stopped
	wait_no_tagged
	run --separate-stderr shim delete "$ID"
	assert_status 0
	# Exactly Exited with its code: "not Killed" would let Unknown, a
	# wrong reason or a wrong oom_killed pass.
	assert_eq "$(ann "$REASON")" Exited
	assert_eq "$(verdict .exit_code)" 3
	assert_eq "$(verdict .signal)" null
	assert_eq "$(ann "$OOM")" "$(no_oom_kill)" "oom-killed"
	assert_eq "$(verdict .killed_by)" null
	consistent
}

@test "the state of a stopped container carries the annotations poststop gets" {
	sh_cmd 'exec sleep 1000'
	ct_up
	shim kill "$ID" KILL
	wait_status stopped
	wait_no_tagged
	shim state "$ID" >"$T/state.json"
	assert_eq "$(jq -r .status "$T/state.json")" stopped
	consistent "$T/state.json"
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(jq -c .annotations "$T/state.json")" "$(jq -c .annotations "$T/share/poststop.json")" \
		"state's annotations vs poststop's"
}

@test "no verdict annotations while the container runs" {
	sh_cmd 'exec sleep 1000'
	ct_up
	assert_eq "$(shim state "$ID" | jq -c .annotations)" "{}"
	ct_cleanup
}

@test "foreground run: poststop's verdict has the exit code" {
	sh_cmd 'exit 3'
	run_shim
	assert_status 3
	assert_eq "$(ann "$REASON")" Exited
	assert_eq "$(verdict .exit_code)" 3
	consistent
}

@test "foreground run, init killed by a signal: poststop's verdict names it" {
	del_namespace pid
	sh_cmd 'kill -9 $$'
	run_shim
	assert_status 137
	assert_eq "$(verdict .signal)" SIGKILL
	assert_eq "$(verdict .exit_code)" 137
	assert_eq "$(verdict .killed_by)" "$(not_the_runtime)"
	consistent
}
