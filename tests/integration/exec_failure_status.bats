#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# runc's exit status of `exec`: 255 when the exec itself fails (no such
# binary, a paused or stopped container), so a caller tells it from the
# process's own exit code, which passes through (even 1 and 254); a bad
# option is a usage error, status 1.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

@test "exec of a binary that does not exist exits 255" {
	ct_up
	run --separate-stderr shim exec "$ID" /no/such/binary
	assert_status 255
	assert_contains "$stderr" "/no/such/binary"
	ct_cleanup
}

# podman reads the runtime's words, not its status: "no such file or
# directory" or "executable file not found in" make its exec exit 127,
# "permission denied" 126, as with runc (whose own status is 255).
@test "exec failures carry the words podman turns into 127 and 126" {
	ct_up
	run --separate-stderr shim exec "$ID" /no/such/binary
	assert_status 255
	assert_contains "$stderr" "\"/no/such/binary\": not found in the container: no such file or directory"
	run --separate-stderr shim exec "$ID" nosuchcommand
	assert_status 255
	assert_contains "$stderr" "\"nosuchcommand\": executable file not found in \$PATH in the container"
	run --separate-stderr shim exec "$ID" /etc/passwd
	assert_status 255
	assert_contains "$stderr" "\"/etc/passwd\": exec: Permission denied"
	ct_cleanup
}

@test "exec into a paused container is refused with 255, naming --ignore-paused" {
	ct_up
	shim pause "$ID"
	run --separate-stderr shim exec "$ID" /bin/true
	assert_error_status 255 "cannot exec in container \`$ID\`: it is paused (use --ignore-paused to override)"
	shim resume "$ID"
	ct_cleanup
}

@test "exec: the process's own exit codes pass through, 1 and 254 too" {
	ct_up
	run --separate-stderr shim exec "$ID" /bin/sh -c 'exit 1'
	assert_status 1
	run --separate-stderr shim exec "$ID" /bin/sh -c 'exit 254'
	assert_status 254
	run --separate-stderr shim exec "$ID" /bin/sh -c 'exit 255'
	assert_status 255
	ct_cleanup
}

@test "exec with an unknown option is a usage error, status 1" {
	ct_up
	run --separate-stderr shim exec --no-such-option "$ID" /bin/true
	assert_error 'exec: unknown option `--no-such-option`'
	ct_cleanup
}
