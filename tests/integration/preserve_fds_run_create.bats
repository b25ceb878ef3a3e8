#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# runc's --preserve-fds N on run and create: fds 3 to 3+N-1 of shim's
# caller reach the container's process (podman run --preserve-fds 1 ...
# 'cat <&3'), no other; a closed one is an error, as for exec
# (exec_flags_runc.bats).

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	echo three >"$T/3"
	echo four >"$T/4"
	echo five >"$T/5"
	sh_cmd 'cat <&3; cat <&4; if [ -e /proc/self/fd/5 ]; then echo 5 open; fi'
}

@test "run --preserve-fds 2: fds 3 and 4 reach the process, fd 5 does not" {
	run --separate-stderr shim run --preserve-fds 2 --bundle "$BUNDLE" "$ID" 3<"$T/3" 4<"$T/4" 5<"$T/5"
	assert_status 0
	assert_eq "$output" "three
four"
}

@test "create --preserve-fds 2: fds 3 and 4 reach init, fd 5 does not" {
	status=0
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" create --preserve-fds 2 --bundle "$BUNDLE" "$ID" \
		</dev/null >"$T/ct.out" 2>"$T/ct.err" 3<"$T/3" 4<"$T/4" 5<"$T/5" || status=$?
	assert_status 0
	ct_start_ok
	wait_status stopped
	assert_eq "$(cat "$T/ct.out")" "three
four"
	ct_cleanup
}

@test "run --preserve-fds of a closed fd, or not a number, is an error" {
	run --separate-stderr shim run --preserve-fds 1 --bundle "$BUNDLE" "$ID" 3<&-
	assert_status 1
	assert_contains "$stderr" "run: --preserve-fds 1: fd 3"
	run --separate-stderr shim create --preserve-fds many --bundle "$BUNDLE" "$ID"
	assert_error 'create: --preserve-fds `many`: a number of fds'
}
