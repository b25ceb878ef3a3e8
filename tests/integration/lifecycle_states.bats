#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The runc lifecycle as engines drive it: `create` leaves init blocked
# before the exec (status created), `start` runs the process (running),
# its exit makes the container stopped; `state` prints the OCI state.

load helpers
load lifecycle_helpers

@test "create: status created, init's pid alive and blocked before the exec" {
	share_dir
	sh_cmd 'echo started >/tmp/share/started; exec sleep 1000'
	ct_create_ok
	assert_eq "$stderr" "" "create's stderr"
	assert_eq "$(ct_status)" created
	local pid
	pid=$(ct_field pid)
	[ "$pid" -gt 0 ]
	alive "$pid"
	# Still the runtime's clone (the binary through its detached
	# read-only mount, whose root is the file: "/"), not the workload:
	# nothing exec'd yet.
	assert_eq "$(readlink "/proc/$pid/exe")" "/" "init's executable"
	[ ! -e "$T/share/started" ]
	# and it stays so: a second look finds the same.
	assert_eq "$(ct_status)" created
	[ ! -e "$T/share/started" ]
	ct_cleanup
}

@test "start: status running, the workload runs as init" {
	share_dir
	sh_cmd 'echo "started $$" >/tmp/share/started; exec sleep 1000'
	ct_create_ok
	local pid
	pid=$(ct_field pid)
	run --separate-stderr shim start "$ID"
	assert_status 0
	assert_eq "$output" "" "start's stdout"
	assert_eq "$stderr" "" "start's stderr"
	wait_file "$T/share/started"
	# pid 1 of its own pid namespace
	assert_eq "$(cat "$T/share/started")" "started 1"
	assert_eq "$(ct_status)" running
	assert_eq "$(ct_field pid)" "$pid" "pid after start"
	[ "$(readlink "/proc/$pid/exe")" != "$(readlink -f "$SHIM_BIN")" ]
	ct_cleanup
}

@test "the container's output goes to create's stdout, once started" {
	set_args /bin/echo "hello from init"
	ct_create_ok
	[ ! -s "$T/ct.out" ]
	ct_start_ok
	wait_status stopped
	assert_eq "$(cat "$T/ct.out")" "hello from init"
	run --separate-stderr shim delete "$ID"
	assert_status 0
	wait_no_tagged
}

@test "stopped once the process exits: pid 0, delete without --force removes it" {
	share_dir
	sh_cmd 'echo done >/tmp/share/done'
	ct_up
	wait_file "$T/share/done"
	wait_status stopped
	assert_eq "$(ct_field pid)" 0 "pid of a stopped container"
	[ -d "$STATE/$ID" ]
	run --separate-stderr shim delete "$ID"
	assert_status 0
	[ ! -e "$STATE/$ID" ]
	run --separate-stderr shim state "$ID"
	assert_error "container \`$ID\` does not exist"
	wait_no_tagged
}

@test "state JSON: ociVersion, id, status, pid, bundle, rootfs, created" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	run --separate-stderr shim state "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	jq -e . <<<"$output" >/dev/null
	assert_eq "$(jq -r .ociVersion <<<"$output")" 1.2.0
	assert_eq "$(jq -r .id <<<"$output")" "$ID"
	assert_eq "$(jq -r .status <<<"$output")" created
	jq -e '.pid | type == "number" and . > 0' <<<"$output" >/dev/null
	assert_eq "$(jq -r .bundle <<<"$output")" "$(realpath "$BUNDLE")"
	assert_eq "$(jq -r .rootfs <<<"$output")" "$ROOTFS"
	jq -e '.created | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$")' \
		<<<"$output" >/dev/null
	ct_start_ok
	assert_eq "$(ct_field status)" running
	ct_cleanup
}

@test "state carries the config's annotations" {
	sh_cmd 'exec sleep 1000'
	cfg '.annotations = {"org.example.a": "1", "org.example.b": "two"}'
	ct_create_ok
	assert_eq "$(shim state "$ID" | jq -c '.annotations')" '{"org.example.a":"1","org.example.b":"two"}'
	ct_cleanup
}

@test "start is refused for a running, a stopped and a missing container" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim start "$ID"
	assert_error "cannot start container \`$ID\`: it is running"
	shim kill "$ID" KILL
	wait_status stopped
	run --separate-stderr shim start "$ID"
	assert_error "cannot start container \`$ID\`: it is stopped"
	run --separate-stderr shim start "$ID-missing"
	assert_error "container \`$ID-missing\` does not exist"
	ct_cleanup
}

@test "state of a missing container fails" {
	run --separate-stderr shim state "$ID"
	assert_error "container \`$ID\` does not exist"
}

@test "--root: the state lives there and only there" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	[ -f "$STATE/$ID/state.json" ]
	run --separate-stderr "$SHIM_BIN" --root "$T/other-root" state "$ID"
	assert_error "container \`$ID\` does not exist"
	run --separate-stderr "$SHIM_BIN" --root "$STATE" state "$ID"
	assert_status 0
	ct_cleanup
}

@test "an invalid container id is refused before anything is made" {
	ct_create -- ../escape
	assert_status 1
	assert_eq "$stderr" 'shim: container id `../escape`: only letters, digits and `_-.+` are allowed'
	[ ! -e "$STATE/../escape" ]
	[ -z "$(ls -A "$STATE" 2>/dev/null)" ]
}
