#!/usr/bin/env bats
# The working directory hooks run in, as under runc: the bundle for the
# hooks the runtime runs (prestart, createRuntime, poststart), the rootfs
# for createContainer (runc's init works there until it enters the root;
# relative paths in such hooks, like runc's hooks_so test's ./lib, mean
# the rootfs's).  Whatever the caller's own working directory is.

load helpers
load lifecycle_helpers

@test "createContainer runs in the rootfs, prestart, createRuntime and poststart in the bundle" {
	mkdir -p "$T/share"
	for s in prestart createRuntime createContainer poststart; do
		sh_hook "$s" "pwd >$T/share/$s.pwd"
	done
	set_args /bin/true
	cd /
	run_shim
	assert_status 0
	assert_eq "$(cat "$T/share/createContainer.pwd")" "$ROOTFS" createContainer
	assert_eq "$(cat "$T/share/prestart.pwd")" "$BUNDLE" prestart
	assert_eq "$(cat "$T/share/createRuntime.pwd")" "$BUNDLE" createRuntime
	assert_eq "$(cat "$T/share/poststart.pwd")" "$BUNDLE" poststart
}

@test "a createContainer hook's relative path is in the rootfs" {
	private_rootfs_for_hooks
	sh_hook createContainer 'touch ./tmp-from-hook'
	set_args /bin/ls /tmp-from-hook
	cd /
	run_shim
	assert_status 0
	assert_eq "$output" "/tmp-from-hook"
}

# A copy of the rootfs the hook may write in.
private_rootfs_for_hooks() {
	cp -a "$ROOTFS" "$T/rootfs"
	cfg --arg r "$T/rootfs" '.root.path = $r'
}

# runc's hooks_so test, on a rootfs whose /lib is a symlink into usr/ as
# Debian's: a createContainer hook bind-mounts a host file into the rootfs
# before the container enters it.  Hooks run with the runtime's
# capabilities; the config's bounding set is dropped after them (a hook
# run with it had no CAP_SYS_ADMIN: mount(8) said "mount point is not a
# directory" for its EPERM).
@test "a createContainer hook bind-mounts a host file into the rootfs (runc's hooks_so)" {
	private_rootfs_for_hooks
	mkdir -p "$T/rootfs/usr/lib"
	rm -rf "$T/rootfs/lib"
	ln -s usr/lib "$T/rootfs/lib"
	echo "from the host" >"$T/libhook.so"
	sh_hook createContainer "touch ./lib/libhook.so && mount --bind $T/libhook.so ./lib/libhook.so"
	set_args /bin/cat /usr/lib/libhook.so
	run_shim
	assert_status 0
	assert_eq "$output" "from the host"
}

@test "createContainer hooks keep the runtime's capabilities; the container gets its bounding set" {
	mkdir -p "$T/share"
	sh_hook createContainer "grep CapBnd /proc/self/status >$T/share/hook.caps"
	cfg '.process.capabilities = ({} | .bounding = ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE"]
	     | .permitted = .bounding | .effective = .bounding)'
	set_args /bin/grep CapBnd /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(cut -f2 "$T/share/hook.caps")" "$(grep CapBnd /proc/self/status | cut -f2)"
	assert_eq "$(cut -f2 <<<"$output")" "$(printf '%016x' "$((1 << 5 | 1 << 10 | 1 << 29))")"
}
