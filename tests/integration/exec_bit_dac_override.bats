#!/usr/bin/env bats
# A program only its owner (root) may execute, run as another user: refused
# without CAP_DAC_OVERRIDE, run with it (execve allows any x bit then).
# shim's own look-up must not refuse it first: access(2) asks with the real
# uid, without capabilities.

load helpers
load security_helpers

setup() {
	shim_setup
	private_rootfs
	# Named busybox-..., so that it runs its argv[1] applet.
	cp "$T/rootfs/bin/busybox" "$T/rootfs/bin/busybox-owner-only"
	chown 0:0 "$T/rootfs/bin/busybox-owner-only"
	chmod 0744 "$T/rootfs/bin/busybox-owner-only"
	cfg '.process.user = {uid: 1000, gid: 100}'
	set_args /bin/busybox-owner-only echo Hello
}

@test "no exec bit for the user, no CAP_DAC_OVERRIDE: permission denied" {
	cfg '.process.capabilities = {bounding: [], effective: [], permitted: []}'
	run_shim
	assert_status 1
	assert_contains "$stderr" 'process.args[0] "/bin/busybox-owner-only": exec: Permission denied'
}

@test "no exec bit for the user, but CAP_DAC_OVERRIDE: it runs" {
	cfg '.process.capabilities = {bounding: ["CAP_DAC_OVERRIDE"], effective: ["CAP_DAC_OVERRIDE"],
		permitted: ["CAP_DAC_OVERRIDE"]}'
	run_shim
	assert_status 0
	assert_eq "$output" "Hello"
}

@test "found through PATH as well" {
	cfg '.process.capabilities = {bounding: ["CAP_DAC_OVERRIDE"], effective: ["CAP_DAC_OVERRIDE"],
		permitted: ["CAP_DAC_OVERRIDE"]}'
	set_args busybox-owner-only echo Hello
	run_shim
	assert_status 0
	assert_eq "$output" "Hello"
}

@test "no exec bit at all: refused even with CAP_DAC_OVERRIDE" {
	chmod 0644 "$T/rootfs/bin/busybox-owner-only"
	cfg '.process.capabilities = {bounding: ["CAP_DAC_OVERRIDE"], effective: ["CAP_DAC_OVERRIDE"],
		permitted: ["CAP_DAC_OVERRIDE"]}'
	run_shim
	assert_status 1
	assert_contains "$stderr" 'process.args[0] "/bin/busybox-owner-only": exec: Permission denied'
}
