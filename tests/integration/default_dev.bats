#!/usr/bin/env bats
# The runtime-spec's default devices and /dev symlinks, made in the /dev
# tmpfs of the bundle.

load helpers

@test "default device nodes exist with their major:minor and mode 0666" {
	# busybox stat: %t/%T are the major/minor in hex
	sh_cmd 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T %a" /dev/$d; done'
	run_shim
	assert_status 0
	assert_eq "$output" "/dev/null character special file 1:3 666
/dev/zero character special file 1:5 666
/dev/full character special file 1:7 666
/dev/random character special file 1:8 666
/dev/urandom character special file 1:9 666
/dev/tty character special file 5:0 666"
}

@test "the device nodes work" {
	sh_cmd 'echo x >/dev/null && head -c 4 /dev/zero | od -An -tx1 && head -c 16 /dev/urandom | wc -c
		echo x >/dev/full'
	run_shim
	assert_status 1
	assert_eq "$output" " 00 00 00 00
16"
	assert_contains "$stderr" "No space left on device"
}

@test "/dev/fd, stdin, stdout, stderr, ptmx (and core) symlinks" {
	sh_cmd 'for l in fd stdin stdout stderr ptmx core; do echo "$l -> $(readlink /dev/$l)"; done'
	run_shim
	assert_status 0
	# /dev/core only where the kernel has a /proc/kcore
	local core=""
	[ -e /proc/kcore ] && core=/proc/kcore
	assert_eq "$output" "fd -> /proc/self/fd
stdin -> /proc/self/fd/0
stdout -> /proc/self/fd/1
stderr -> /proc/self/fd/2
ptmx -> pts/ptmx
core -> $core"
}

@test "/dev is the bundle's tmpfs, with its own devpts, shm and mqueue" {
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	local types
	types=$(awk '$5 ~ "^/dev" { for (i = 7; $i != "-"; i++) ; print $5, $(i + 1) }' <<<"$output")
	assert_eq "$types" "/dev tmpfs
/dev/pts devpts
/dev/shm tmpfs
/dev/mqueue mqueue"
	# nothing else than the defaults, /dev/pts, /dev/shm, /dev/mqueue
	sh_cmd 'ls /dev | tr "\n" " "'
	run_shim
	assert_status 0
	local core=""
	[ -e /proc/kcore ] && core="core "
	assert_eq "$output" "${core}fd full mqueue null ptmx pts random shm stderr stdin stdout tty urandom zero "
}
