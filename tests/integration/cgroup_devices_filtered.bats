#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# linux.resources.devices: a device cgroup program on the container's
# cgroup v2 (tests/vm/devices_cgroup.bats), or on a hybrid or v1 host such
# as this one the v1 devices hierarchy's devices.deny/devices.allow, decides
# every open and mknod of a device node, with the same outcome.  The node under test is
# /dev/kmsg (c 1:11), not on runc's default list; `: >` and `: <` open it
# without writing or reading anything.

load helpers

setup() {
	shim_setup
	cfg '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]'
	# Reading /dev/kmsg also needs CAP_SYSLOG (Debian sets
	# kernel.dmesg_restrict=1), and the container has no capability it is
	# not granted: without it every read open is EPERM, program or not.
	cfg '.process.capabilities = {bounding: ["CAP_SYSLOG"], effective: ["CAP_SYSLOG"], permitted: ["CAP_SYSLOG"]}'
}

# try: open /dev/kmsg for writing, reading, both; then /dev/null, /dev/zero.
try() {
	sh_cmd 'for m in w r rw; do
			case $m in w) (: >/dev/kmsg) ;; r) (: </dev/kmsg) ;; rw) (: <>/dev/kmsg) ;; esac 2>/dev/null &&
				echo "kmsg $m ok" || echo "kmsg $m refused"
		done
		(: <>/dev/kmsg) 2>&1 | grep -o "Operation not permitted"
		echo x >/dev/null && echo "null w ok"; head -c 2 /dev/zero | od -An -tx1'
}

# expected W R RW: what try prints when the three opens of /dev/kmsg give
# W, R and RW (ok or refused).
expected() {
	printf 'kmsg w %s\nkmsg r %s\nkmsg rw %s\n' "$1" "$2" "$3"
	[ "$3" = ok ] || echo "Operation not permitted"
	printf 'null w ok\n 00 00'
}

@test "deny all: a node off the list is refused with EPERM; runc's defaults still work" {
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"}]'
	try
	run_shim
	assert_status 0
	assert_eq "$output" "$(expected refused refused refused)"
}

@test "deny all, then allow c 1:11 w: writing opens pass, reading ones are refused" {
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"},
		{allow: true, type: "c", major: 1, minor: 11, access: "w"}]'
	try
	run_shim
	assert_status 0
	assert_eq "$output" "$(expected ok refused refused)"
}

@test "allow all, then deny c 1:11 w: a read+write open is refused too (per access bit, as runc)" {
	cfg '.linux.resources.devices = [{allow: true, access: "rwm"},
		{allow: false, type: "c", major: 1, minor: 11, access: "w"}]'
	try
	run_shim
	assert_status 0
	assert_eq "$output" "$(expected refused ok refused)"
}

@test "a rule cannot deny runc's default nodes: /dev/null stays writable, as under runc" {
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"}, {allow: false, type: "c", major: 1, minor: 3, access: "w"}]'
	sh_cmd 'echo x >/dev/null && echo "null w ok"'
	run_shim
	assert_status 0
	assert_eq "$output" "null w ok"
}

@test "without linux.resources.devices there is no program: every node opens" {
	try
	run_shim
	assert_status 0
	assert_eq "$output" "$(expected ok ok ok)"
}
