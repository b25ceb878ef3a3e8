#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run DIR` by hand, without an id: the container is named after the
# bundle directory's real name and a random suffix, so `shim run .` in the
# bundle gives a name `list` shows (not a hidden ".-xxxxxxxx").

load helpers

# run_named [DIR]: `shim run --keep [DIR]` from the cwd; the one container
# it kept must be named bundle-XXXXXXXX; then it is deleted.
run_named() {
	run --separate-stderr shim run --keep "$@"
	assert_status 0
	run shim list -q
	assert_status 0
	local id=$output
	[[ "$id" =~ ^bundle-[0-9a-f]{8}$ ]]
	run shim delete "$id"
	assert_status 0
}

@test "shim run . is named after the bundle directory" {
	cd "$BUNDLE"
	run_named .
}

@test "shim run ./ and shim run DIR/ give the same kind of name" {
	cd "$BUNDLE"
	run_named ./
	cd /
	run_named "$BUNDLE/"
}

@test "shim run without an argument, in the bundle: the same" {
	cd "$BUNDLE"
	run_named
}
