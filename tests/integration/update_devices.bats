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

# runc's update.bats "update devices [minimal transition rules]": after
# deny-all, a deny rule for c 1:11 with access "rwa" denies what is denied
# already; runc accepts it, and so must shim (with a warning naming it).
@test "runc's redundant deny with access rwa is accepted; kmsg stays denied, /dev/null works, update goes through" {
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"},
		{allow: false, type: "c", major: 1, minor: 11, access: "rwa"}]'
	ct_create_ok
	assert_contains "$stderr" 'linux.resources.devices[1].access: letters other than r, w and m ignored'
	ct_start_ok
	assert_eq "$(kmsg_write)" refused
	run shim exec "$ID" /bin/sh -c 'echo x >/dev/null && echo null-ok'
	assert_eq "$output" null-ok
	local n
	for n in 1 2 3; do
		run --separate-stderr shim update --pids-limit 30 "$ID"
		assert_status 0
	done
	assert_eq "$(kmsg_write)" refused "after the updates"
	ct_cleanup
}

@test "other letters in a rule that is not redundant are still refused" {
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"},
		{allow: true, type: "c", major: 1, minor: 11, access: "rwa"}]'
	ct_create
	assert_status 1
	assert_contains "$stderr" 'linux.resources.devices[1].access: `rwa` is not made of r, w and m'
	cfg '.linux.resources.devices = [{allow: false, access: "rwm"},
		{allow: true, type: "c", major: 1, minor: 11, access: "w"},
		{allow: false, type: "c", major: 1, minor: -1, access: "rwa"}]'
	ct_create
	assert_status 1
	assert_contains "$stderr" 'linux.resources.devices[2].access: `rwa` is not made of r, w and m'
	[ ! -e "$STATE/$ID" ]
}
