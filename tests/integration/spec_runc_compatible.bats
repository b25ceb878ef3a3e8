#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim spec` as runc's: an ociVersion other runtimes accept (Debian 12's
# crun 1.8.1 refuses 1.2.0), runc's default capabilities, `--rootless` (a
# user namespace mapping root to the caller, no network namespace, /sys
# bound), and an argument is an error, not ignored.

load helpers

# spec_bundle [spec options...]: $B, a bundle from `shim spec`, set up to
# run a command on the example rootfs.
spec_bundle() {
	B=$T/from-spec
	mkdir -p "$B"
	shim spec --bundle "$B" "$@"
}

# runnable CMD: $B's config.json runs CMD in sh, without a terminal.
runnable() {
	jq --arg root "$ROOTFS" --arg tag "SHIM_TEST_TAG=$TAG" --arg c "$1" \
		'.root.path = $root | .process.terminal = false | .process.env += [$tag]
		 | .process.args = ["/bin/sh", "-c", $c]' "$B/config.json" >"$B/c.new"
	mv "$B/c.new" "$B/config.json"
}

@test "spec: ociVersion 1.0.2, as runc 1.1 writes, which crun accepts" {
	spec_bundle
	assert_eq "$(jq -r .ociVersion "$B/config.json")" 1.0.2
	# crun checks the version first; on this hybrid host it then refuses
	# the cgroups, which is not what is tested here.
	ln -s "$ROOTFS" "$B/rootfs"
	run --separate-stderr crun --root "$T/crun" run --bundle "$B" "$ID-crun"
	assert_not_contains "$stderr" "unknown version"
}

@test "spec: runc's default capabilities" {
	spec_bundle
	local caps='["CAP_AUDIT_WRITE","CAP_KILL","CAP_NET_BIND_SERVICE"]'
	assert_eq "$(jq -c .process.capabilities.bounding "$B/config.json")" "$caps"
	assert_eq "$(jq -c .process.capabilities.effective "$B/config.json")" "$caps"
	assert_eq "$(jq -c .process.capabilities.permitted "$B/config.json")" "$caps"
	runnable 'grep CapEff /proc/self/status'
	run --separate-stderr shim run --bundle "$B" "$ID"
	assert_status 0
	# CAP_KILL (5), CAP_NET_BIND_SERVICE (10), CAP_AUDIT_WRITE (29)
	assert_eq "$output" "CapEff:	0000000020000420"
}

@test "spec --rootless: a user namespace mapping root to the caller, no network namespace" {
	spec_bundle --rootless
	local c=$B/config.json
	assert_eq "$(jq -r '.linux.namespaces | map(.type) | sort | join(" ")' "$c")" "cgroup ipc mount pid user uts"
	assert_eq "$(jq -c .linux.uidMappings "$c")" "[{\"containerID\":0,\"hostID\":$(id -u),\"size\":1}]"
	assert_eq "$(jq -c .linux.gidMappings "$c")" "[{\"containerID\":0,\"hostID\":$(id -g),\"size\":1}]"
	assert_eq "$(jq -c '.mounts[] | select(.destination == "/sys") | [.type, .source, .options[0]]' "$c")" \
		'["none","/sys","rbind"]'
	assert_eq "$(jq -c '.mounts[] | select(.destination == "/dev/pts") | .options | index("gid=5")' "$c")" null
	assert_eq "$(jq -c .linux.resources "$c")" null
	runnable 'cat /proc/self/uid_map; readlink /proc/self/ns/user'
	run --separate-stderr shim run --bundle "$B" "$ID"
	assert_status 0
	assert_eq "$(head -1 <<<"$output" | tr -s ' ')" " 0 $(id -u) 1"
	[ "$(tail -1 <<<"$output")" != "$(readlink /proc/self/ns/user)" ]
}

@test "spec with an argument is an error and writes nothing" {
	mkdir "$T/d"
	run --separate-stderr shim spec --bundle "$T/d" extra
	assert_error 'spec: unexpected argument `extra`: takes no arguments (see --bundle)'
	[ ! -e "$T/d/config.json" ]
}
