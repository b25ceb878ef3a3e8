#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# runc's exec flags that change the process: --preserve-fds N (fds 3 to
# 3+N-1 of shim's caller passed on, no other), -g/--additional-gids
# (repeatable, numeric; added to the process's groups).  --cgroup is
# exec_sub_cgroup.bats'.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

@test "exec --preserve-fds 2: fds 3 and 4 reach the process, fd 5 does not" {
	ct_up
	echo three >"$T/3"
	echo four >"$T/4"
	echo five >"$T/5"
	run --separate-stderr shim exec --preserve-fds 2 "$ID" \
		/bin/sh -c 'cat <&3; cat <&4; if [ -e /proc/self/fd/5 ]; then echo 5 open; fi' \
		3<"$T/3" 4<"$T/4" 5<"$T/5"
	assert_status 0
	assert_eq "$output" "three
four"
	# without the flag, none of them
	run --separate-stderr shim exec "$ID" /bin/sh -c 'ls /proc/self/fd | tr "\n" " "' 3<"$T/3"
	assert_status 0
	assert_eq "$output" "0 1 2 3 "
	ct_cleanup
}

@test "exec --preserve-fds of a closed fd, or not a number, is an error" {
	ct_up
	run --separate-stderr shim exec --preserve-fds 1 "$ID" /bin/true 3<&-
	assert_status 1
	assert_contains "$stderr" "exec: --preserve-fds 1: fd 3"
	run --separate-stderr shim exec --preserve-fds many "$ID" /bin/true
	assert_error 'exec: --preserve-fds `many`: a number of fds'
	ct_cleanup
}

@test "exec -g / --additional-gids: repeatable, added to the process's groups" {
	cfg '.process.user.additionalGids = [7]'
	ct_up
	run --separate-stderr shim exec -g 10 --additional-gids 20 "$ID" /bin/sh -c 'grep ^Groups: /proc/self/status'
	assert_status 0
	assert_eq "$(tr -s '\t ' ' ' <<<"$output")" "Groups: 7 10 20 "
	run --separate-stderr shim exec -u 1000:1000 -g 30 "$ID" /bin/sh -c 'id -u; id -G'
	assert_status 0
	assert_eq "$output" "1000
1000 7 30"
	run --separate-stderr shim exec -g wheel "$ID" /bin/true
	assert_error 'exec: --additional-gids `wheel`: a numeric group id'
	ct_cleanup
}
