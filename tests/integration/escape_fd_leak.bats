#!/usr/bin/env bats
# CVE-2024-21626: no file descriptor of the host reaches the container, and
# process.cwd cannot be used to step onto one.

load helpers
load security_helpers

@test "an fd the runtime's caller left open does not reach the container: only 0, 1, 2" {
	# pid 1 is the shell (the `:` keeps it from exec'ing ls).
	sh_cmd 'ls /proc/1/fd; :'
	# --log: the runtime's own log file must not leak either.
	run --separate-stderr shim --log "$T/log" run --bundle "$BUNDLE" "$ID" 3</etc/hostname 4<"$T" 7<"$T"
	assert_status 0
	assert_eq "$(echo $output)" "0 1 2"
}

@test "LISTEN_FDS=1 passes exactly fd 3, nothing above it" {
	cfg '.process.env += ["LISTEN_FDS=1"]'
	sh_cmd 'ls /proc/1/fd; :'
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID" 3</etc/hostname 4<"$T"
	assert_status 0
	assert_eq "$(echo $output)" "0 1 2 3"
}

@test "process.cwd /proc/self/fd/N (N an fd of the host) is refused" {
	cfg '.process.cwd = "/proc/self/fd/3"'
	sh_cmd 'pwd; ls'
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID" 3<"$T"
	assert_status 1
	assert_eq "$stderr" "shim: process.cwd \`/proc/self/fd/3\`: Too many levels of symbolic links"
	assert_eq "$output" ""
}

@test "process.cwd through a symlink to /proc/self/fd/N is refused too" {
	private_rootfs
	ln -s /proc/self/fd/3 "$T/rootfs/leak"
	cfg '.process.cwd = "/leak"'
	sh_cmd 'pwd; ls'
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID" 3<"$T"
	assert_status 1
	assert_contains "$stderr" "process.cwd \`/leak\`"
	assert_eq "$output" ""
}

@test "process.cwd with .. and symlinks out of the rootfs stays inside it" {
	private_rootfs
	ln -s ../../../../../../.. "$T/rootfs/up"
	local cwd
	for cwd in /../../.. /up /up/tmp/..; do
		cfg --arg c "$cwd" '.process.cwd = $c'
		# linuxrc is in the busybox rootfs, not on the host's /.
		sh_cmd 'ls -d linuxrc'
		run_shim
		assert_status 0
		assert_eq "$output" linuxrc "cwd $cwd"
	done
}
