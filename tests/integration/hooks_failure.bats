#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A failing prestart, createRuntime, createContainer or startContainer hook
# fails the command and stops the container (create leaves nothing behind;
# after start the container is stopped, for delete); a failing poststart or
# poststop hook is only a warning, and the hooks after it still run.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	share_dir
	sh_cmd 'echo ran >/tmp/share/ran; exec sleep 1000'
}

# failing_create STAGE: a STAGE hook that exits 3 fails create, nothing is
# left, the process never ran.
failing_create() {
	sh_hook "$1" 'echo "hook says no"; exit 3'
	ct_create --pid-file "$T/pid"
	assert_status 1
	assert_eq "$stderr" "shim: error running hook #0: hooks.$1[0] \"/bin/sh\": exited with status 3: hook says no" "create's error"
	nothing_left
	[ ! -e "$T/share/ran" ]
	run --separate-stderr shim state "$ID"
	assert_error "container \`$ID\` does not exist"
}

@test "a failing prestart hook fails create and leaves nothing" {
	failing_create prestart
}

@test "a failing createRuntime hook fails create and leaves nothing" {
	failing_create createRuntime
}

@test "a failing createContainer hook fails create and leaves nothing" {
	failing_create createContainer
}

@test "after a failing prestart hook the next ones do not run" {
	sh_hook prestart "echo one >>$T/share/hooks.log; exit 1"
	sh_hook prestart "echo two >>$T/share/hooks.log"
	sh_hook createRuntime "echo three >>$T/share/hooks.log"
	ct_create
	assert_status 1
	assert_eq "$(cat "$T/share/hooks.log")" one
	nothing_left
}

@test "a hook killed by a signal, a hook that cannot be run: create fails" {
	sh_hook prestart 'kill -9 $$'
	ct_create
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.prestart[0] "/bin/sh": killed by signal 9'
	nothing_left
	cfg 'del(.hooks)'
	add_hook createRuntime "$(hook_json /no/such/hook)"
	ct_create
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.createRuntime[0] "/no/such/hook": exited with status 127: exec: No such file or directory'
	nothing_left
}

@test "a failing startContainer hook fails start; the container is stopped and the process never ran" {
	sh_hook startContainer 'echo "not today"; exit 4'
	ct_create_ok --pid-file "$T/pid"
	local pid
	pid=$(cat "$T/pid")
	run --separate-stderr shim start "$ID"
	assert_status 1
	assert_eq "$stderr" 'shim: error running hook #0: hooks.startContainer[0] "/bin/sh": exited with status 4: not today'
	wait_gone "$pid"
	dead "$pid"
	[ ! -e "$T/share/ran" ]
	wait_status stopped
	# runtime-spec: the lifecycle goes on with delete
	wait_no_tagged
	run --separate-stderr shim delete "$ID"
	assert_status 0
	nothing_left
}

@test "a failing poststart hook is a warning; the next poststart hook runs, the container runs" {
	sh_hook poststart "echo first >>$T/share/hooks.log; echo broken; exit 5"
	sh_hook poststart "echo second >>$T/share/hooks.log"
	ct_create_ok
	run --separate-stderr shim start "$ID"
	assert_status 0
	assert_eq "$stderr" 'shim: warning: error running hook #0: hooks.poststart[0] "/bin/sh": exited with status 5: broken'
	assert_eq "$(cat "$T/share/hooks.log")" $'first\nsecond'
	wait_file "$T/share/ran"
	assert_eq "$(ct_status)" running
	ct_cleanup
}

@test "a failing poststop hook is a warning; the next poststop hook runs, delete succeeds" {
	sh_hook poststop "echo first >>$T/share/hooks.log; exit 6"
	sh_hook poststop "echo second >>$T/share/hooks.log"
	ct_up
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$stderr" 'shim: warning: error running hook #0: hooks.poststop[0] "/bin/sh": exited with status 6'
	assert_eq "$(cat "$T/share/hooks.log")" $'first\nsecond'
	nothing_left
}

@test "a failing poststop hook in a foreground run: a warning, the exit code is the container's" {
	sh_cmd 'exit 4'
	sh_hook poststop "exit 1"
	sh_hook poststop "echo second >>$T/share/hooks.log"
	run_shim
	assert_status 4
	assert_contains "$stderr" 'shim: warning: error running hook #0: hooks.poststop[0] "/bin/sh": exited with status 1'
	assert_eq "$(cat "$T/share/hooks.log")" second
	nothing_left
}
