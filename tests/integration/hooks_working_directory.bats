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
