#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim update --resources FILE` with linux.resources.devices: the rules
# replace the container's device program (they were silently dropped: the
# update succeeded and changed nothing).  An access string other than r, w
# and m (e.g. "rwa") is refused and changes nothing.  /dev/kmsg (c 1:11)
# is the node under test: not on runc's default list, which is always
# allowed (see cgroup_devices_filtered.bats).

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	cfg '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]'
	cfg '.linux.resources.devices = [{allow: true, access: "rwm"}]'
	sh_cmd 'exec sleep 1000'
}

# kmsg_write: whether the container may open /dev/kmsg for writing.
kmsg_write() {
	shim exec "$ID" /bin/sh -c '(: >/dev/kmsg) 2>/dev/null && echo ok || echo refused'
}

@test "update --resources with device rules: they are applied" {
	ct_up
	assert_eq "$(kmsg_write)" ok "before the update"
	echo '{"devices": [{"allow": false, "access": "rwm"}]}' >"$T/deny.json"
	run --separate-stderr shim update --resources "$T/deny.json" "$ID"
	assert_status 0
	assert_eq "$(kmsg_write)" refused "after deny all"
	echo '{"devices": [{"allow": false, "access": "rwm"},
		{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "w"}]}' >"$T/allow.json"
	shim update -r - "$ID" <"$T/allow.json"
	assert_eq "$(kmsg_write)" ok "after allowing c 1:11 w again"
	ct_cleanup
}

@test "update with an access string of other letters (rwa) is refused and changes nothing" {
	ct_up
	echo '{"devices": [{"allow": false, "access": "rwa"}]}' >"$T/bad.json"
	run --separate-stderr shim update --resources "$T/bad.json" "$ID"
	assert_error "update: $T/bad.json: resources.devices[0].access: \`rwa\` is not made of r, w and m"
	assert_eq "$(kmsg_write)" ok
	ct_cleanup
}
