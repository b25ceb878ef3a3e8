#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The verdict's sentence as a person reads it: two memory
# figures in one sentence say whose each is (the container's memory.stat,
# the victim's own rss from the kernel log); the victim's pid is the
# host's and the text says so; the runtime's emulated group kill is told
# only when it found something left to kill; a container that hit its pids
# limit says so, whatever the reason of its death; a `shim run` by hand
# leaves no podman `oom` marker in the bundle.

load helpers

# verdict_field JQ: of the verdict, the last line of $stderr.
verdict_field() {
	tail -1 <<<"$stderr" | jq -r "$1"
}

@test "memhog alone OOM-killed: whose memory is whose, the host's pid, nothing left for the runtime to kill" {
	require_cgroup_v1_memory
	make_bundle memhog
	run_shim --json
	assert_status 137
	assert_eq "$(verdict_field .reason)" OOMKilled
	assert_eq "$(verdict_field '.oom.victims | length')" 1
	local pid anon msg
	pid=$(verdict_field '.oom.victims[0].pid')
	msg=$(verdict_field .message)
	# The victim's own figure, named as its own, with the host's pid.
	[[ "$msg" =~ \;\ the\ kernel\ killed\ \`memhog\`\ \(host\ pid\ $pid,\ holding\ [0-9.]+\ MiB\ anonymous\ memory\ of\ its\ own\)$ ]] || {
		echo "message: $msg" >&2
		return 1
	}
	# Every figure is someone's: the container's memory.stat figure (there
	# when a read caught the memory still charged) is "the container held".
	local figures named
	figures=$(grep -o '[0-9.]* [KMG]iB anonymous' <<<"$msg" | wc -l)
	named=$(grep -oE '(the container held|holding) [0-9.]+ [KMG]iB anonymous' <<<"$msg" | wc -l)
	assert_eq "$named" "$figures" "anonymous figures said as someone's"
	# init was the only process: the OOM kill left nothing to kill.
	assert_not_contains "$msg" "emulating"
	assert_not_contains "$msg" "whatever was left"
}

@test "shim run by hand: an OOM kill leaves no podman oom marker in the bundle" {
	require_cgroup_v1_memory
	make_bundle memhog
	run_shim
	assert_status 137
	assert_contains "$stderr" "was OOM-killed"
	run ls -A "$BUNDLE"
	assert_status 0
	assert_eq "$output" config.json
}

@test "a fork bomb at its pids limit: it exited 1, and the sentence says it hit its pids limit" {
	make_bundle forkbomb
	run_shim --json
	assert_status 1
	assert_eq "$(verdict_field .reason)" Exited
	assert_eq "$(verdict_field .pids_limit)" 32
	local n
	n=$(verdict_field .pids_max_events)
	[ "$n" -ge 1 ]
	assert_eq "$(verdict_field .message)" \
		"container $ID exited with code 1; it hit its pids limit of 32 ($n $([ "$n" = 1 ] && echo fork || echo forks) refused)"
}

@test "a clean exit under a pids limit: pids_max_events 0, nothing said" {
	make_bundle hello
	cfg '.linux.resources.pids = {limit: 32}'
	run_shim --json
	assert_status 0
	assert_eq "$(verdict_field .pids_max_events)" 0
	assert_eq "$(verdict_field .pids_limit)" 32
	assert_not_contains "$(verdict_field .message)" "pids"
}
