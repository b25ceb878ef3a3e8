#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run DIR` by hand, without an id: the container is named after the
# bundle directory's real name and a random suffix, so `shim run .` in the
# bundle gives a name `list` shows (not a hidden ".-xxxxxxxx").

load helpers

# kept_id: the one container `run --keep` left under $STATE.
kept_id() {
	run shim list -q
	assert_status 0
	printf '%s' "$output"
}

@test "shim run . is named after the bundle directory" {
	cd "$BUNDLE"
	run --separate-stderr shim run --keep .
	assert_status 0
	local id
	id=$(kept_id)
	[[ "$id" =~ ^bundle-[0-9a-f]{8}$ ]]
	run shim delete "$id"
	assert_status 0
}

@test "shim run ./ and shim run DIR/ give the same kind of name" {
	cd "$BUNDLE"
	run --separate-stderr shim run --keep ./
	assert_status 0
	local id
	id=$(kept_id)
	[[ "$id" =~ ^bundle-[0-9a-f]{8}$ ]]
	run shim delete "$id"
	assert_status 0
	cd /
	run --separate-stderr shim run --keep "$BUNDLE/"
	assert_status 0
	id=$(kept_id)
	[[ "$id" =~ ^bundle-[0-9a-f]{8}$ ]]
	run shim delete "$id"
	assert_status 0
}
