#!/usr/bin/env bats
# The switch into root.path: pivot_root by default, chroot with --no-pivot;
# root.readonly; rootfsPropagation; and no mount of the container's ever
# reaching the host's mount table.

load helpers

# private_rootfs: a copy of the rootfs the test may write to, in $T/rootfs.
private_rootfs() {
	cp -a "$ROOTFS" "$T/rootfs"
	cfg --arg r "$T/rootfs" '.root.path = $r'
}

@test "pivot_root: the container sees its rootfs and nothing of the host's" {
	sh_cmd "test -x /bin/busybox && echo rootfs; test -e '$REPO' || echo no-host-path; ls / | tr '\n' ' '"
	run_shim
	assert_status 0
	assert_eq "$output" "rootfs
no-host-path
$(ls "$ROOTFS" | tr '\n' ' ')"
}

@test "--no-pivot: the same view, through chroot" {
	sh_cmd "test -x /bin/busybox && echo rootfs; test -e '$REPO' || echo no-host-path; ls / | tr '\n' ' '; echo; echo \$\$ \$(hostname)"
	run_shim --no-pivot
	assert_status 0
	assert_eq "$output" "rootfs
no-host-path
$(ls "$ROOTFS" | tr '\n' ' ')
1 hello"
}

@test "--no-pivot runs the example as it is" {
	run_shim --no-pivot
	assert_status 0
	assert_eq "$output" "Hello from a shim container
pid 1 on hello"
}

# (On a copy: were root.readonly broken, the shared rootfs would be written.)
@test "root.readonly: the root cannot be written, the tmpfs mounts can" {
	private_rootfs
	sh_cmd 'touch /tmp/ok && echo tmp-ok; touch /new-file'
	run_shim
	assert_status 1
	assert_eq "$output" "tmp-ok"
	assert_contains "$stderr" "touch: /new-file: Read-only file system"
	[ ! -e "$T/rootfs/new-file" ]
}

@test "root.readonly with --no-pivot" {
	private_rootfs
	sh_cmd 'touch /new-file'
	run_shim --no-pivot
	assert_status 1
	assert_contains "$stderr" "touch: /new-file: Read-only file system"
	[ ! -e "$T/rootfs/new-file" ]
}

@test "root.readonly false: the root is writable" {
	private_rootfs
	cfg '.root.readonly = false'
	sh_cmd 'echo written >/new-file'
	run_shim
	assert_status 0
	assert_eq "$(cat "$T/rootfs/new-file")" "written"
}

@test "rootfsPropagation is applied to the container's /" {
	cfg '.linux.rootfsPropagation = "shared"'
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	assert_contains "$(awk '$5 == "/"' <<<"$output")" " shared:"
	cfg 'del(.linux.rootfsPropagation)'
	run_shim
	assert_status 0
	assert_not_contains "$(awk '$5 == "/"' <<<"$output")" " shared:"
}

# leak_check [shim run options]: the rootfs lives on a *shared* mount of the
# host, so any mount the runtime made without first making its own mount
# namespace private would propagate back to the host.
leak_check() {
	mkdir "$T/shared"
	mount -t tmpfs "shim-shared-$TAG" "$T/shared"
	register_mount "$T/shared"
	mount --make-shared "$T/shared"
	cp -a "$ROOTFS" "$T/shared/rootfs"
	cfg --arg r "$T/shared/rootfs" '.root.path = $r'
	local before after
	before=$(grep -F "$T/shared" /proc/self/mountinfo)
	run_shim "$@"
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
	after=$(grep -F "$T/shared" /proc/self/mountinfo)
	assert_eq "$after" "$before" "the host's mounts under the shared rootfs"
}

@test "nothing leaks to the host's mount table, even from a rootfs on a shared mount" {
	leak_check
}

@test "nothing leaks with --no-pivot either" {
	leak_check --no-pivot
}
