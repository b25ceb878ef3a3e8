# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Shared by the capability, seccomp and escape tests (`load security_helpers`
# after `load helpers`).

# status_field NAME: the value of a /proc/self/status field in $output.
status_field() {
	awk -v f="$1:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' <<<"$output"
}

# with_syscall_helper: a static `syscall NR [ARG...]` (tests/integration/
# syscall.c) at /tmp/share/syscall in the container; prints "ok RET" or
# "errno N" for one raw syscall.
with_syscall_helper() {
	share_dir
	gcc -O2 -static -o "$T/share/syscall" "$BATS_TEST_DIRNAME/syscall.c"
}

# seccomp_cfg JSON: linux.seccomp = JSON.
seccomp_cfg() {
	cfg --argjson s "$1" '.linux.seccomp = $s'
}

# private_rootfs: a copy of the example rootfs at $T/rootfs that the test
# may plant symlinks in; root.path points at it.
private_rootfs() {
	cp -a "$ROOTFS" "$T/rootfs"
	cfg --arg r "$T/rootfs" '.root.path = $r'
}

# ---- podman's default seccomp profile ----

PROFILE=/usr/share/containers/seccomp.json

# podman's default_capabilities (containers.conf).
PODMAN_CAPS='["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT"]'

# The file is in containers/common's "moby" format (archMap, and per-rule
# includes/excludes on arches and capabilities), which podman turns into the
# OCI form before handing it to the runtime.  The same conversion, for amd64
# and the capabilities given: architectures from archMap, a rule is kept when
# its includes all hold and none of its excludes do.
oci_profile() {
	jq --argjson caps "$1" '
		def has($list; $x): $list | any(.[]; . == $x);
		{
			defaultAction, defaultErrnoRet,
			architectures: [.archMap[] | select(.architecture == "SCMP_ARCH_X86_64")
				| .architecture, .subArchitectures[]],
			syscalls: [.syscalls[]
				| select((.includes.arches // []) as $a | ($a | length) == 0 or has($a; "amd64"))
				| select(has(.excludes.arches // []; "amd64") | not)
				| select(all((.includes.caps // [])[]; has($caps; .)))
				| select(any((.excludes.caps // [])[]; has($caps; .)) | not)
				| {names, action, errnoRet, args}]
		}' "$PROFILE"
}

# need_podman_profile: fails the test when the profile is not installed.
need_podman_profile() {
	[ -f "$PROFILE" ] || {
		echo "$PROFILE is missing: make deps (golang-github-containers-common)" >&2
		return 1
	}
}
