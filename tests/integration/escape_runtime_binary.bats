#!/usr/bin/env bats
# CVE-2019-5736: the runtime's binary is not reachable from inside the
# container, through /proc/PID/exe or any open fd.  `shim run` execs the
# process directly, so /proc/1/exe is the container's own program; the
# check walks every process and fd so that it covers `exec` once it exists
# (which will need a sealed copy of the binary if it re-execs itself).

load helpers
load security_helpers

@test "/proc/1/exe is the container's program, and nothing in /proc leads to the shim binary" {
	local shim_id
	shim_id=$(stat -L -c '%d:%i' "$SHIM_BIN")
	sh_cmd 'readlink /proc/1/exe
		for f in /proc/[0-9]*/exe /proc/[0-9]*/fd/* /proc/[0-9]*/map_files/*; do
			stat -L -c "%d:%i %n" "$f" 2>/dev/null
		done; :'
	run_shim
	assert_status 0
	assert_eq "${lines[0]}" /bin/busybox "/proc/1/exe"
	assert_not_contains "$output" "$shim_id " "the shim binary (dev:ino $shim_id) is reachable"
	# The walk did see something: the shell's own binary.
	assert_contains "$output" "/proc/1/exe"
}
