#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A tmpfs mount's mode, as runc's "runc run with tmpfs perms": mode= of the
# options always; without one, a directory the image already has keeps its
# mode (0710 stays 0710, not tmpfs' 1777), and a directory made for the
# mount is tmpfs' own 1777.  The "image" here is a host directory bound at
# /tmp/img, its subdirectories made beforehand with their modes.

load helpers

setup() {
	shim_setup
	mkdir -p "$T/img/pre" "$T/img/pre-mode" "$T/img/sticky"
	chmod 0710 "$T/img/pre" "$T/img/pre-mode"
	chmod 1730 "$T/img/sticky"
	add_mount /tmp/img bind "$T/img" rbind
}

@test "tmpfs without mode= on a directory of the image keeps the directory's mode" {
	add_mount /tmp/img/pre tmpfs tmpfs nosuid
	add_mount /tmp/img/sticky tmpfs tmpfs
	sh_cmd 'stat -c "%a %n" /tmp/img/pre /tmp/img/sticky; touch /tmp/img/pre/x && echo written'
	run_shim
	assert_status 0
	assert_eq "$output" "710 /tmp/img/pre
1730 /tmp/img/sticky
written"
	# The mount covered the host's directory; it is unchanged.
	assert_eq "$(stat -c %a "$T/img/pre")" 710
	[ ! -e "$T/img/pre/x" ]
}

@test "tmpfs with mode= on a directory of the image: mode= wins" {
	add_mount /tmp/img/pre-mode tmpfs tmpfs mode=0410 size=64k
	sh_cmd 'stat -c %a /tmp/img/pre-mode'
	run_shim
	assert_status 0
	assert_eq "$output" 410
}

@test "tmpfs on a directory made for it: mode= when given, else tmpfs' 1777" {
	add_mount /tmp/img/new-mode tmpfs tmpfs mode=0444
	add_mount /tmp/img/new tmpfs tmpfs
	sh_cmd 'stat -c "%a %n" /tmp/img/new-mode /tmp/img/new'
	run_shim
	assert_status 0
	assert_eq "$output" "444 /tmp/img/new-mode
1777 /tmp/img/new"
}
