#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A --root that cannot be written: read-only, or full (a small tmpfs).
# Each is a clear error at once and leaves nothing; a container created
# before the root filled up still starts, and is not killed behind the
# verdict's back.

load helpers
load lifecycle_helpers

# small_root OPTIONS: $STATE becomes a 1 MB tmpfs mounted with OPTIONS.
small_root() {
	STATE=$T/root
	mkdir -p "$STATE"
	mount -t tmpfs -o "size=1m,$1" shim-test-root "$STATE"
	register_mount "$STATE"
}

# fill_root: nothing more fits in $STATE.
fill_root() {
	run dd if=/dev/zero of="$STATE/filler" bs=64k
	[ "$status" -ne 0 ]
	[ "$(df --output=avail "$STATE" | tail -1)" -eq 0 ]
}

@test "a read-only --root: create fails at once naming it; nothing is left" {
	small_root ro
	sh_cmd 'exec sleep 1000'
	ct_create
	assert_status 1
	assert_contains "$stderr" "$STATE"
	assert_contains "$stderr" "Read-only file system"
	[ -z "$(ls -A "$STATE")" ]
	nothing_left
}

@test "a full --root: create fails naming the full device; nothing is left" {
	small_root rw
	fill_root
	sh_cmd 'exec sleep 1000'
	ct_create
	assert_status 1
	assert_contains "$stderr" "No space left on device"
	assert_eq "$(ls -A "$STATE")" filler "what is left in --root"
	nothing_left
}

@test "a --root that fills up after create: start works; kill refuses to send a signal it cannot record" {
	small_root rw
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	fill_root
	ct_start_ok
	assert_eq "$(ct_status)" running
	# The verdict tells a kill by `shim kill` from its record of the signals
	# sent: a signal it cannot record is not sent (a clear error instead).
	run --separate-stderr shim kill "$ID" KILL
	assert_status 1
	assert_contains "$stderr" "No space left on device"
	assert_eq "$(ct_status)" running "status after the refused kill"
	rm "$STATE/filler"
	run --separate-stderr shim kill "$ID" KILL
	assert_status 0
	wait_status stopped
	run --separate-stderr shim delete "$ID"
	assert_status 0
	wait_no_tagged
	nothing_left
}
