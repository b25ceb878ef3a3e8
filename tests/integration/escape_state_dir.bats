#!/usr/bin/env bats
# The state directory (--root) is not reachable from inside the container:
# not in its mount namespace, not through /proc/1/root/.., not by its path.

load helpers

@test "the state dir is not in the container's view, by path, by mountinfo, or through /proc/1/root" {
	[ -d "$STATE" ] || mkdir -p "$STATE"
	cfg --arg s "$STATE" '.process.env += ["STATE=" + $s]'
	sh_cmd 'ls -d "$STATE" 2>/dev/null && echo REACHED-BY-PATH
		grep -F "$STATE" /proc/self/mountinfo && echo IN-MOUNTINFO
		ls /proc/1/root/../../.. | tr "\n" " "; echo
		ls -d /proc/1/root/../../..$STATE 2>/dev/null && echo REACHED-BY-ROOT; :'
	run_shim
	assert_status 0
	assert_not_contains "$output" REACHED
	assert_not_contains "$output" IN-MOUNTINFO
	# /proc/1/root/.. is the container's own root (linuxrc is busybox's).
	assert_contains "$output" linuxrc
}

@test "the default state dir /run/shim is not visible inside" {
	sh_cmd 'ls -d /run/shim 2>/dev/null && echo REACHED; grep -c " /run/shim" /proc/self/mountinfo; :'
	run_shim
	assert_status 0
	assert_eq "$output" 0
}

# On the host too, only root reaches a container's state: the dir is 0700
# and the exec socket that starts the container lives in it.
@test "the state dir is 0700, with exec.sock inside it while the container is created" {
	make_bundle sleeper
	shim create --bundle "$BUNDLE" "$ID" >"$T/out" 2>&1
	assert_eq "$(stat -c %a "$STATE/$ID")" 700
	[ -S "$STATE/$ID/exec.sock" ]
	shim delete --force "$ID"
}
