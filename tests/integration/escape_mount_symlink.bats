#!/usr/bin/env bats
# CVE-2021-30465 / CVE-2019-19921: mount destinations that are symlinks out
# of the rootfs land inside it, never on the host; /proc and /sys are never
# mounted through a symlink.

load helpers
load security_helpers

setup() {
	shim_setup
	private_rootfs
	# $T is under /tmp: the bundle's tmpfs on /tmp would hide its copy in
	# the rootfs.
	cfg 'del(.mounts[] | select(.destination == "/tmp"))'
	mkdir -p "$T/host-dir"
	echo host >"$T/host-dir/marker"
}

@test "a mount on an absolute symlink pointing out of the rootfs lands inside the rootfs" {
	ln -s "$T/host-dir" "$T/rootfs/evil"
	# The same path inside the rootfs exists, so the mount succeeds there.
	mkdir -p "$T/rootfs/$T/host-dir"
	add_mount /evil tmpfs tmpfs
	sh_cmd 'echo pwned >/evil/pwned && ls /evil && stat -f -c %T /evil'
	run_shim
	assert_status 0
	# The tmpfs is what the container sees at /evil.
	assert_eq "$output" "pwned
tmpfs"
	[ ! -e "$T/host-dir/pwned" ] || { echo "the mount reached the host directory" >&2; return 1; }
	assert_eq "$(ls "$T/host-dir")" marker "the host directory"
}

@test "a bind mount on a relative symlink climbing out of the rootfs lands inside the rootfs" {
	ln -s "../../../../../../../../..$T/host-dir" "$T/rootfs/evil"
	mkdir -p "$T/rootfs/$T/host-dir" "$T/src"
	echo from-bind >"$T/src/file"
	add_mount /evil bind "$T/src" rbind
	sh_cmd 'cat /evil/file; ls /evil'
	run_shim
	assert_status 0
	assert_eq "$output" "from-bind
file"
	assert_eq "$(ls "$T/host-dir")" marker "the host directory"
}

@test "a mount on a symlink whose target is missing in the rootfs fails, the host untouched" {
	ln -s "$T/host-dir" "$T/rootfs/evil"
	add_mount /evil tmpfs tmpfs
	run_shim
	assert_status 1
	assert_contains "$stderr" "mounts[7]"
	assert_eq "$(ls "$T/host-dir")" marker "the host directory"
}

@test "/proc that is a symlink in the rootfs is refused, even one that stays inside" {
	rmdir "$T/rootfs/proc"
	mkdir "$T/rootfs/fakeproc"
	ln -s /fakeproc "$T/rootfs/proc"
	run_shim
	assert_error "mounts[0]: \`/proc\` is a symlink (or goes through one) in the rootfs: refused"
}

@test "/sys that is a symlink in the rootfs is refused" {
	rmdir "$T/rootfs/sys"
	ln -s "$T/host-dir" "$T/rootfs/sys"
	run_shim
	assert_error "mounts[5]: \`/sys\` is a symlink (or goes through one) in the rootfs: refused"
	assert_eq "$(ls "$T/host-dir")" marker "the host directory"
}
