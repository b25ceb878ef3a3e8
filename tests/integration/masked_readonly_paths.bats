#!/usr/bin/env bats
# linux.maskedPaths (a file reads empty, a directory is empty) and
# linux.readonlyPaths (writes fail with EROFS).

load helpers

@test "a masked file reads empty" {
	cfg '.linux.maskedPaths += ["/etc/passwd"]'
	# /proc/timer_list is in the bundle's list, and never empty unmasked
	sh_cmd 'wc -c </etc/passwd; wc -c </proc/timer_list'
	run_shim
	assert_status 0
	assert_eq "$output" "0
0"
	# without the mask it is the image's file
	cfg 'del(.linux.maskedPaths)'
	sh_cmd 'cat /etc/passwd; head -c 1 /proc/timer_list | wc -c'
	run_shim
	assert_status 0
	assert_eq "$output" "$(cat "$ROOTFS/etc/passwd")
1"
}

@test "a masked directory is empty and read-only" {
	cfg '.linux.maskedPaths += ["/usr/sbin"]'
	sh_cmd 'ls -A /usr/sbin | wc -l; touch /usr/sbin/x'
	run_shim
	assert_status 1
	assert_eq "$output" "0"
	assert_contains "$stderr" "Read-only file system"
	[ -n "$(ls -A "$ROOTFS/usr/sbin")" ]
}

@test "masking a path that does not exist is not an error" {
	cfg '.linux.maskedPaths += ["/does/not/exist"]'
	run_shim
	assert_status 0
}

@test "a read-only path: writing fails with EROFS, elsewhere it works" {
	# /proc/sys/kernel/hostname is the container's own (uts namespace):
	# writable unless /proc/sys is read-only.
	sh_cmd 'echo changed >/proc/sys/kernel/hostname'
	run_shim
	assert_status 1
	assert_eq "${stderr%%$'\n'*}" "/bin/sh: can't create /proc/sys/kernel/hostname: Read-only file system"

	cfg '.linux.readonlyPaths -= ["/proc/sys"]'
	sh_cmd 'echo changed >/proc/sys/kernel/hostname && hostname'
	run_shim
	assert_status 0
	assert_eq "$output" "changed"
}

@test "a read-only path on a tmpfs of the bundle, with the rest of it writable" {
	cfg '.mounts += [{destination: "/tmp/ro", type: "tmpfs", source: "tmpfs"}]
		| .linux.readonlyPaths += ["/tmp/ro"]'
	sh_cmd 'touch /tmp/rw-file && echo wrote; touch /tmp/ro/x'
	run_shim
	assert_status 1
	assert_eq "$output" "wrote"
	assert_contains "$stderr" "touch: /tmp/ro/x: Read-only file system"
}

@test "a read-only path that does not exist is not an error" {
	cfg '.linux.readonlyPaths += ["/does/not/exist"]'
	run_shim
	assert_status 0
}

@test "masked and read-only paths must be absolute" {
	cfg '.linux.maskedPaths += ["proc/kcore"]'
	run_shim
	assert_error "$BUNDLE/config.json: linux.maskedPaths[10]: \`proc/kcore\` is not an absolute path"
}
