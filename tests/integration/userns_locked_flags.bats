#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# In a user namespace the kernel locks the nosuid, nodev, noexec and atime
# flags of the mounts the container's namespace copies from the host: a
# read-only remount that leaves them out is EPERM.  A rootfs on a
# nosuid,nodev tmpfs (like a /tmp; tests/vm's /tmp is one, and
# userns_bind_sources.bats failed there) must still be made read-only, the
# locked flags kept, as runc's remount does.  (Bind sources are not copied
# that way: the runtime hands init a detached tree of each, which the
# kernel does not lock.)

load helpers
load userns_helpers

setup() {
	shim_setup
	userns_cfg
	mkdir -p "$T/fs"
	mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs "$T/fs"
	register_mount "$T/fs"
	cp -a "$ROOTFS" "$T/fs/rootfs"
	chown -R "$USERNS_HOST:$USERNS_HOST" "$T/fs/rootfs"
	reachable "$T/fs/rootfs"
	cfg --arg r "$T/fs/rootfs" '.root.path = $r | .root.readonly = true'
}

# mount_opts MOUNTPOINT: the per-mount options of MOUNTPOINT in the
# container's mountinfo ($output).
mount_opts() {
	awk -v mp="$1" '$5 == mp { print $6 }' <<<"$output"
}

@test "root.readonly with the rootfs on a nosuid,nodev tmpfs: read-only, nosuid and nodev kept" {
	sh_cmd 'cat /proc/self/mountinfo; touch /x'
	run_shim
	assert_status 1
	[[ "$(mount_opts /)" =~ ^ro,nosuid,nodev ]] || {
		echo "options of /: $(mount_opts /); stderr: $stderr" >&2
		return 1
	}
	assert_contains "$stderr" "touch: /x: Read-only file system"
}
