#!/usr/bin/env bats
# `rro`, and `rbind` with `ro`, make the whole bound tree read-only, the
# mounts under the source too (mount_setattr with AT_RECURSIVE); an option
# shim cannot apply to a mount is an error that names it, never ignored.

load helpers

# A host directory with a tmpfs mounted under it: $T/src/sub.
src_with_submount() {
	mkdir -p "$T/src/sub"
	echo top >"$T/src/file"
	mount -t tmpfs tmpfs "$T/src/sub"
	register_mount "$T/src/sub"
	echo sub >"$T/src/sub/file"
}

@test "rbind,rro: the mount under the source is read-only too" {
	src_with_submount
	add_mount /tmp/rro bind "$T/src" rbind rro
	sh_cmd 'cat /tmp/rro/sub/file; echo x >/tmp/rro/sub/file; echo x >/tmp/rro/file; echo done'
	run_shim
	assert_status 0
	assert_eq "$output" "sub
done"
	assert_contains "$stderr" "/tmp/rro/sub/file: Read-only file system"
	assert_contains "$stderr" "/tmp/rro/file: Read-only file system"
	assert_eq "$(cat "$T/src/sub/file")" "sub" "host file under the submount"
}

@test "rbind,ro: the mount under the source is read-only too" {
	src_with_submount
	add_mount /tmp/ro bind "$T/src" rbind ro
	sh_cmd 'echo x >/tmp/ro/sub/file; echo x >/tmp/ro/file; echo done'
	run_shim
	assert_status 0
	assert_eq "$output" "done"
	assert_contains "$stderr" "/tmp/ro/sub/file: Read-only file system"
	assert_contains "$stderr" "/tmp/ro/file: Read-only file system"
	assert_eq "$(cat "$T/src/sub/file")" "sub" "host file under the submount"
}

@test "rro on a tmpfs: read-only" {
	add_mount /tmp/t tmpfs tmpfs rro
	sh_cmd 'touch /tmp/t/x'
	run_shim
	assert_status 1
	assert_contains "$stderr" "Read-only file system"
}

@test "rrw after rro: writable again" {
	src_with_submount
	add_mount /tmp/rw bind "$T/src" rbind rro rrw
	sh_cmd 'echo changed >/tmp/rw/sub/file'
	run_shim
	assert_status 0
	assert_eq "$(cat "$T/src/sub/file")" "changed" "host file under the submount"
}

@test "an option a bind mount cannot apply is an error naming it" {
	mkdir "$T/src"
	add_mount /tmp/b bind "$T/src" rbind rdonly
	local n
	n=$(jq '.mounts | length - 1' "$BUNDLE/config.json")
	run_shim
	assert_error "$BUNDLE/config.json: mounts[$n].options: \`rdonly\` cannot be applied to a bind mount"
}
