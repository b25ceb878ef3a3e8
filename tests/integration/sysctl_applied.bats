#!/usr/bin/env bats
# linux.sysctl is written in the container's namespaces, before /proc/sys
# is made read-only.

load helpers

@test "net.ipv4.ip_forward in the container's network namespace" {
	local host
	host=$(cat /proc/sys/net/ipv4/ip_forward)
	cfg '.linux.sysctl = {"net.ipv4.ip_forward": "1"}'
	sh_cmd 'cat /proc/sys/net/ipv4/ip_forward'
	run_shim
	assert_status 0
	assert_eq "$output" "1"
	assert_eq "$(cat /proc/sys/net/ipv4/ip_forward)" "$host" "host's ip_forward"
}

@test "kernel.shmmax in the container's ipc namespace" {
	local host
	host=$(cat /proc/sys/kernel/shmmax)
	cfg '.linux.sysctl = {"kernel.shmmax": "68719476736", "kernel.msgmax": "12345"}'
	sh_cmd 'cat /proc/sys/kernel/shmmax /proc/sys/kernel/msgmax'
	run_shim
	assert_status 0
	assert_eq "$output" "68719476736
12345"
	assert_eq "$(cat /proc/sys/kernel/shmmax)" "$host" "host's shmmax"
}

@test "a sysctl the kernel does not have is an error naming it" {
	cfg '.linux.sysctl = {"kernel.no_such_knob": "1"}'
	run_shim
	assert_error "linux.sysctl.kernel.no_such_knob: open \`kernel/no_such_knob\`: No such file or directory"
}

@test "a sysctl name that climbs out of /proc/sys is refused before anything runs" {
	cfg '.linux.sysctl = {"../../etc/passwd": "x"}'
	run_shim
	assert_error "$BUNDLE/config.json: linux.sysctl: \`../../etc/passwd\` is not a sysctl name"
}
