#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# --pid-file: where engines learn init's pid the moment create returns.

load helpers
load lifecycle_helpers

@test "create --pid-file holds init's pid, the pid of the state" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok --pid-file "$T/init.pid"
	[ -f "$T/init.pid" ]
	local pid
	pid=$(cat "$T/init.pid")
	[[ "$pid" =~ ^[0-9]+$ ]]
	assert_eq "$pid" "$(ct_field pid)" "pid file vs state"
	alive "$pid"
	# init is in the container's cgroup
	local cg
	cg=$(cgroup2_mount)
	if [ -n "$cg" ]; then
		grep -qx "$pid" "$cg/shim/$ID/cgroup.procs"
	fi
	ct_start_ok
	assert_eq "$(cat "$T/init.pid")" "$(ct_field pid)" "pid file vs state once running"
	ct_cleanup
}

@test "a relative --pid-file is relative to the caller's directory" {
	sh_cmd 'exec sleep 1000'
	mkdir "$T/cwd"
	(cd "$T/cwd" && ct_create --pid-file rel.pid && [ "$status" = 0 ])
	[ -f "$T/cwd/rel.pid" ]
	assert_eq "$(cat "$T/cwd/rel.pid")" "$(ct_field pid)"
	ct_cleanup
}

@test "an existing pid file is replaced" {
	sh_cmd 'exec sleep 1000'
	echo 999999999 >"$T/init.pid"
	ct_create_ok --pid-file "$T/init.pid"
	assert_eq "$(cat "$T/init.pid")" "$(ct_field pid)"
	ct_cleanup
}

@test "run --detach --pid-file holds the pid of the running init" {
	sh_cmd 'exec sleep 1000'
	status=0
	shim run --detach --pid-file "$T/init.pid" --bundle "$BUNDLE" "$ID" \
		</dev/null >"$T/out" 2>"$T/err" 3>&- || status=$?
	assert_status 0
	assert_eq "$(ct_status)" running
	assert_eq "$(cat "$T/init.pid")" "$(ct_field pid)"
	alive "$(cat "$T/init.pid")"
	ct_cleanup
}

@test "a pid file that cannot be written fails create, and nothing is left" {
	sh_cmd 'exec sleep 1000'
	ct_create --pid-file "$T/no/such/dir/init.pid"
	assert_status 1
	assert_contains "$stderr" "$T/no/such/dir/init.pid"
	[ ! -e "$STATE/$ID" ]
	wait_no_tagged
	assert_eq "$(tagged_pids)" "" "processes left"
}

@test "a failed create writes no pid file" {
	cfg '.process.cwd = "/nowhere"'
	ct_create --pid-file "$T/init.pid"
	assert_status 1
	assert_eq "$stderr" 'shim: process.cwd `/nowhere`: No such file or directory'
	[ ! -e "$T/init.pid" ]
	[ ! -e "$STATE/$ID" ]
}
