#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# hooks[].timeout: a hook still running after it is killed (SIGKILL) and
# counts as failed -- create or start fails, poststart and poststop warn.
# The hooks sleep 30 s against a timeout of 1 s: an ignored timeout shows
# as a create that succeeds (late), not as a race.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	share_dir
	sh_cmd 'echo ran >/tmp/share/ran; exec sleep 1000'
}

# sleep_hook STAGE: /bin/sleep 30 with a timeout of 1 s, tagged (teardown
# finds it if it is not killed).
sleep_hook() {
	add_hook "$1" "$(hook_json /bin/sleep sleep 30 --env "SHIM_TEST_TAG=$TAG" | jq -c '.timeout = 1')"
}

timed_out_create() {
	sleep_hook "$1"
	ct_create
	assert_status 1
	assert_eq "$stderr" "shim: error running hook #0: hooks.$1[0] \"/bin/sleep\": timed out after 1 s"
	nothing_left
	[ ! -e "$T/share/ran" ]
}

@test "a prestart hook past its timeout is killed and fails create" {
	timed_out_create prestart
}

@test "a createRuntime hook past its timeout is killed and fails create" {
	timed_out_create createRuntime
}

@test "a createContainer hook past its timeout is killed and fails create" {
	timed_out_create createContainer
}

@test "a startContainer hook past its timeout is killed and fails start" {
	sleep_hook startContainer
	ct_create_ok --pid-file "$T/pid"
	run --separate-stderr shim start "$ID"
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.startContainer[0] "/bin/sleep": timed out after 1 s'
	wait_status stopped
	[ ! -e "$T/share/ran" ]
	ct_cleanup
	nothing_left
}

@test "a poststart hook past its timeout is killed, with a warning; the container runs" {
	sleep_hook poststart
	sh_hook poststart "echo next >>$T/share/hooks.log"
	ct_create_ok
	run --separate-stderr shim start "$ID"
	assert_status 0
	assert_eq "$stderr" 'shim: warning: error running hook #0: hooks.poststart[0] "/bin/sleep": timed out after 1 s'
	assert_eq "$(cat "$T/share/hooks.log")" next
	wait_file "$T/share/ran"
	assert_eq "$(ct_status)" running
	# the hook's sleep is gone: only the container and its watcher are left
	local p
	for p in $(tagged_pids); do
		assert_not_contains "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" "sleep 30" "process $p"
	done
	ct_cleanup
}

@test "a poststop hook past its timeout is killed, with a warning; delete succeeds" {
	sleep_hook poststop
	sh_hook poststop "echo next >>$T/share/hooks.log"
	ct_up
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$stderr" 'shim: warning: error running hook #0: hooks.poststop[0] "/bin/sleep": timed out after 1 s'
	assert_eq "$(cat "$T/share/hooks.log")" next
	nothing_left
}

@test "a hook that ends within its timeout is fine" {
	add_hook prestart "$(hook_json /bin/sh sh -c "echo ok >$T/share/hook" | jq -c '.timeout = 30')"
	ct_create_ok
	assert_eq "$(cat "$T/share/hook")" ok
	ct_cleanup
}

@test "a hook that exits leaving a child on its output does not hold create up" {
	# No timeout: only the hook's own exit counts, not the end of its stdout.
	sh_hook prestart 'sleep 30 & echo forked'
	ct_create
	assert_status 0
	assert_eq "$(ct_status)" created
	# the hook's child is the test's to kill
	local p
	for p in $(tagged_pids); do
		if [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 30 " ]; then
			kill -9 "$p"
		fi
	done
	ct_cleanup
}

# runtime_ticks: what the hook's parent (the runtime waiting for it) has
# used of the CPU so far, in clock ticks (utime + stime of /proc/PPID/stat,
# fields 14 and 15: the 12th and 13th after the ") " that ends comm).
runtime_ticks='ticks() { sed "s/.*) //" /proc/$PPID/stat | cut -d" " -f12,13 | tr " " +; }'

@test "a hook that closes its stdout and stderr and keeps running is waited for without spinning" {
	# The runtime waits 2 s for it: a runtime that polls the closed pipe
	# in a loop burns those 2 s of CPU (~200 ticks at USER_HZ 100), one
	# that waits on the hook's exit burns none.
	sh_hook createRuntime "$runtime_ticks; a=\$(ticks); exec >/dev/null 2>&1; sleep 2; echo \"\$a \$(ticks)\" >$T/share/ticks"
	ct_create_ok
	read -r before after <"$T/share/ticks"
	local used=$(($after - $before))
	echo "the runtime used $used ticks while the hook ran" >&2
	[ "$used" -lt 20 ]
	ct_cleanup
}

@test "a hook that closes its stdout and stderr is still killed at its timeout" {
	sh_hook createRuntime 'exec >/dev/null 2>&1; exec sleep 30' 1
	ct_create
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.createRuntime[0] "/bin/sh": timed out after 1 s'
	nothing_left
}
