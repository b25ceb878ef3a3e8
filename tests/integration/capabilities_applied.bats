#!/usr/bin/env bats
# process.capabilities: every set applied, in the right order around the
# uid change; absent means none at all, as in runc.

load helpers
load security_helpers

caps_cmd() {
	set_args /bin/grep -E '^(Cap|NoNewPrivs)' /proc/self/status
}

@test "without process.capabilities a root process has no capabilities at all (runc's rule)" {
	caps_cmd
	run_shim
	assert_status 0
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_eq "$(status_field $f)" 0000000000000000 "$f"
	done
}

@test "root with noNewPrivileges: bounding and permitted exactly the config's, exec gains nothing" {
	caps_cmd
	cfg '.process.capabilities = {bounding: ["CAP_KILL", "CAP_CHOWN"], effective: ["CAP_KILL"],
		permitted: ["CAP_KILL"], inheritable: [], ambient: []}'
	run_shim
	assert_status 0
	# CAP_CHOWN is bit 0, CAP_KILL bit 5.
	assert_eq "$(status_field CapBnd)" 0000000000000021 CapBnd
	assert_eq "$(status_field CapPrm)" 0000000000000020 CapPrm
	assert_eq "$(status_field CapEff)" 0000000000000020 CapEff
	assert_eq "$(status_field CapInh)" 0000000000000000 CapInh
	assert_eq "$(status_field CapAmb)" 0000000000000000 CapAmb
}

@test "root without noNewPrivileges: exec grants uid 0 its bounding set, as under runc" {
	caps_cmd
	cfg '.process.noNewPrivileges = false
		| .process.capabilities = {bounding: ["CAP_KILL", "CAP_CHOWN"], effective: ["CAP_KILL"],
			permitted: ["CAP_KILL"]}'
	run_shim
	assert_status 0
	assert_eq "$(status_field CapBnd)" 0000000000000021 CapBnd
	assert_eq "$(status_field CapEff)" 0000000000000021 CapEff
	assert_eq "$(status_field NoNewPrivs)" 0 NoNewPrivs
}

@test "non-root: permitted survives the uid change (keep-caps), inheritable and ambient are exact" {
	caps_cmd
	cfg '.process.user = {uid: 1000, gid: 1000}
		| .process.capabilities = {bounding: ["CAP_KILL", "CAP_CHOWN", "CAP_NET_BIND_SERVICE"],
			effective: ["CAP_KILL", "CAP_NET_BIND_SERVICE"], permitted: ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
			inheritable: ["CAP_KILL", "CAP_NET_BIND_SERVICE"], ambient: ["CAP_NET_BIND_SERVICE"]}'
	run_shim
	assert_status 0
	# Only the ambient set crosses the exec of a non-root program.
	assert_eq "$(status_field CapBnd)" 0000000000000421 CapBnd
	assert_eq "$(status_field CapInh)" 0000000000000420 CapInh
	assert_eq "$(status_field CapAmb)" 0000000000000400 CapAmb
	assert_eq "$(status_field CapPrm)" 0000000000000400 CapPrm
	assert_eq "$(status_field CapEff)" 0000000000000400 CapEff
}

@test "a capability that is not granted is really missing: chown fails, and works once granted" {
	set_args /bin/sh -c 'touch /tmp/f && chown 1 /tmp/f && echo chowned'
	cfg '.process.capabilities = {bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"]}'
	run_shim
	assert_status 1
	assert_contains "$stderr" "Operation not permitted"
	cfg '.process.capabilities = {bounding: ["CAP_CHOWN"], effective: ["CAP_CHOWN"], permitted: ["CAP_CHOWN"]}'
	run_shim
	assert_status 0
	assert_eq "$output" chowned
}

@test "an ambient capability that is not inheritable is left out with a warning naming it, as runc does" {
	# `runc spec` writes ambient without inheritable; runc runs it.
	caps_cmd
	cfg '.process.user = {uid: 1000, gid: 1000}
		| .process.capabilities = {bounding: ["CAP_KILL", "CAP_CHOWN"], permitted: ["CAP_KILL", "CAP_CHOWN"],
			inheritable: ["CAP_CHOWN"], ambient: ["CAP_KILL", "CAP_CHOWN"]}'
	run_shim
	assert_status 0
	assert_eq "$(status_field CapAmb)" 0000000000000001 "CapAmb: CAP_CHOWN alone"
	assert_eq "$stderr" "shim: warning: config.json: process.capabilities.ambient[0]: CAP_KILL is not both permitted and inheritable, so the kernel cannot raise it: left out, as runc does"
}

@test "an unknown capability name is refused by its JSON path" {
	cfg '.process.capabilities = {bounding: ["CAP_KILL", "CAP_CHOWN", "CAP_FOO"]}'
	run_shim
	assert_error "$BUNDLE/config.json: process.capabilities.bounding[2]: unknown capability \"CAP_FOO\""
}
