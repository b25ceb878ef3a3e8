#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# linux.resources.devices on a pure cgroup v2 kernel: the device program
# shim attaches to the container's cgroup.  Runs INSIDE the VM:
#
#   tests/vm/run -- bats tests/vm/devices_cgroup.bats
#
# The node under test is /dev/kmsg (c 1:11, from linux.devices), which is
# not on runc's default list; `: >` and `: <` open it without writing or
# reading anything.

load helpers

# What the script prints when every open of /dev/kmsg is refused.
DENIED_ALL="kmsg w refused
kmsg r refused
kmsg rw refused
Operation not permitted
null w ok
 00 00"

setup() {
	[ "$(stat -f -c %T "$CGROOT")" = cgroup2fs ] || {
		echo "not a cgroup v2 host: run through tests/vm/run" >&2
		return 1
	}
	ID=dev-$BATS_TEST_NUMBER-$$
}

teardown() {
	assert_no_leftovers "$ID"
}

# bundle JQ_FILTER...: examples/hello with /dev/kmsg and a script that
# opens it for writing, reading, both, then uses /dev/null and /dev/zero.
# Reading /dev/kmsg needs CAP_SYSLOG (Debian's kernel.dmesg_restrict=1),
# and the container has no capability it is not granted.
bundle() {
	make_bundle hello '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]' \
		'.process.capabilities = {bounding: ["CAP_SYSLOG"], effective: ["CAP_SYSLOG"], permitted: ["CAP_SYSLOG"]}' \
		"$(args_filter /bin/sh -c 'for m in w r rw; do
				case $m in w) (: >/dev/kmsg) ;; r) (: </dev/kmsg) ;; rw) (: <>/dev/kmsg) ;; esac 2>/dev/null &&
					echo "kmsg $m ok" || echo "kmsg $m refused"
			done
			(: <>/dev/kmsg) 2>&1 | grep -o "Operation not permitted"
			echo x >/dev/null && echo "null w ok"; head -c 2 /dev/zero | od -An -tx1
			cat /proc/self/cgroup')" "$@"
}

@test "deny all: /dev/kmsg is refused with EPERM, /dev/null and /dev/zero work" {
	bundle '.linux.resources.devices = [{allow: false, access: "rwm"}]'
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(printf '%s\n' "$output" | head -n 6)" = "$DENIED_ALL" ] || { echo "$output" >&2; return 1; }
	# in its own cgroup, where the program is
	[[ "$output" == *"0::/"* ]]
}

@test "deny all, then allow c 1:11 w: writing opens pass, reading ones are refused" {
	bundle '.linux.resources.devices = [{allow: false, access: "rwm"},
		{allow: true, type: "c", major: 1, minor: 11, access: "w"}]'
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(printf '%s\n' "$output" | head -n 4)" = "kmsg w ok
kmsg r refused
kmsg rw refused
Operation not permitted" ] || { echo "$output" >&2; return 1; }
}

@test "in a user namespace the bound host node is filtered the same" {
	local userns='.linux.namespaces += [{type: "user"}]
		| .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
		| .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]'
	chmod o+x "$BATS_TEST_TMPDIR" "$(dirname "$BATS_TEST_TMPDIR")" "$(dirname "$(dirname "$BATS_TEST_TMPDIR")")"
	# The container's root is an unmapped "other" to the host's node, and
	# reading /dev/kmsg needs CAP_SYSLOG of the host: so the guest's node
	# is made world-writable, and a write-only open needs nothing more.
	chmod 0666 /dev/kmsg
	bundle "$userns"
	run_shim "$ID"
	chmod 0644 /dev/kmsg
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(printf '%s\n' "$output" | head -n 1)" = "kmsg w ok" ] || { echo "$output" >&2; return 1; }
	chmod 0666 /dev/kmsg
	bundle "$userns" '.linux.resources.devices = [{allow: false, access: "rwm"}]'
	run_shim "$ID"
	chmod 0644 /dev/kmsg
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(printf '%s\n' "$output" | head -n 6)" = "$DENIED_ALL" ] || { echo "$output" >&2; return 1; }
}

@test "without linux.resources.devices every node opens" {
	bundle
	run_shim "$ID"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "$(printf '%s\n' "$output" | head -n 3)" = "kmsg w ok
kmsg r ok
kmsg rw ok" ] || { echo "$output" >&2; return 1; }
}
