#!/usr/bin/env bats
# CVE-2019-5736: the runtime's binary is not reachable from inside the
# container, through /proc/PID/exe or any open fd.  `shim run` execs the
# process directly, so /proc/1/exe is the container's own program; the
# check walks every process and fd so that it covers `exec` once it exists
# (which will need a sealed copy of the binary if it re-execs itself).

load helpers
load security_helpers

@test "/proc/1/exe is the container's program, and nothing in /proc leads to the shim binary" {
	local shim_id
	shim_id=$(stat -L -c '%d:%i' "$SHIM_BIN")
	sh_cmd 'readlink /proc/1/exe
		for f in /proc/[0-9]*/exe /proc/[0-9]*/fd/* /proc/[0-9]*/map_files/*; do
			stat -L -c "%d:%i %n" "$f" 2>/dev/null
		done; :'
	run_shim
	assert_status 0
	assert_eq "${lines[0]}" /bin/busybox "/proc/1/exe"
	assert_not_contains "$output" "$shim_id " "the shim binary (dev:ino $shim_id) is reachable"
	# The walk did see something: the shell's own binary.
	assert_contains "$output" "/proc/1/exe"
}

# `exec`: until its execve the new process is this binary, already in the
# container's pid namespace.  It is made undumpable, so the container's
# processes cannot open its /proc/PID/exe.  To look at it at leisure, the
# test holds it in connect(2): the container has a seccomp listener whose
# accept queue tests/helpers/seccomp-listener keeps full after init's
# connection, and exec's process connects to it before entering the
# container's other namespaces.
@test "exec: the process being set up is not reachable through /proc/PID/exe (CVE-2019-5736)" {
	local shim_id exec_pid
	shim_id=$(stat -L -c '%d:%i' "$SHIM_BIN")
	mkdir "$T/l"
	"$REPO/tests/helpers/seccomp-listener" "$T/l.sock" "$T/l" 1 3>&- &
	LISTENER_PID=$!
	timeout 10 sh -c 'until [ -e "$1" ]; do sleep 0.05; done' _ "$T/l/listening"
	seccomp_cfg "$(jq -nc --arg p "$T/l.sock" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $p,
		syscalls: [{names: ["sched_yield"], action: "SCMP_ACT_NOTIFY"}]}')"
	# init waits (bounded) for a process named shim, then tries its exe.
	sh_cmd 'for i in $(seq 1 400); do
			for p in /proc/[0-9]*; do
				[ "$(cat $p/comm 2>/dev/null)" = shim ] || continue
				echo "found ${p#/proc/}"
				readlink $p/exe 2>&1
				stat -L -c "%d:%i" $p/exe 2>&1
				exit 0
			done
			sleep 0.05
		done
		echo "no shim process seen"'
	shim create --bundle "$BUNDLE" "$ID" >"$T/out" 2>&1
	shim start "$ID"
	timeout 10 sh -c 'until [ -e "$1" ]; do sleep 0.05; done' _ "$T/l/ready"
	shim exec -d "$ID" /bin/true 3>&- &
	exec_pid=$!
	timeout 30 sh -c 'until [ "$("$@" | jq -r .status)" = stopped ]; do sleep 0.05; done' \
		_ env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" state "$ID"
	# The pid namespace died with init, exec's process with it.
	wait "$exec_pid" || true
	kill "$LISTENER_PID" 2>/dev/null || true
	shim delete "$ID"
	output=$(cat "$T/out")
	assert_contains "$output" "found "
	assert_contains "$output" "Permission denied"
	assert_not_contains "$output" "$shim_id" "the shim binary (dev:ino $shim_id) is reachable"
}
