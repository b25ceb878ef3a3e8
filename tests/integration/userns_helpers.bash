# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by tests/integration/userns_*.bats, after `load helpers`.

# The rootless-style mapping of these tests: container 0..65535 is host
# 100000..165535, for users and groups alike.
USERNS_HOST=100000

# userns_cfg: a new user namespace with that mapping.
userns_cfg() {
	cfg --argjson h "$USERNS_HOST" '.linux.namespaces += [{type: "user"}]
		| .linux.uidMappings = [{containerID: 0, hostID: $h, size: 65536}]
		| .linux.gidMappings = [{containerID: 0, hostID: $h, size: 65536}]'
}

# reachable DIR: let the container's root (an unprivileged host uid) walk
# down to DIR: bats makes its temporary directories 0700.
reachable() {
	local d=$1
	while [ "$d" != / ] && [ -n "$d" ]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
}

# owned_rootfs: $T/rootfs, a copy of examples/rootfs owned by the mapped
# root (host 100000), as root.path.
owned_rootfs() {
	cp -a "$ROOTFS" "$T/rootfs"
	chown -R "$USERNS_HOST:$USERNS_HOST" "$T/rootfs"
	reachable "$T/rootfs"
	cfg --arg r "$T/rootfs" '.root.path = $r'
}
