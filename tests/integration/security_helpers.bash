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
