#!/usr/bin/env bats
# CVE-2019-5736: the runtime's binary is not reachable from inside the
# container, through /proc/PID/exe or any open fd.  `shim run` execs the
# process directly, so /proc/1/exe is the container's own program; the
# check walks every process and fd so that it covers `exec` too.

load helpers
load security_helpers

SEALS=$REPO/tests/helpers/seals

# create_from BINARY [VAR=VALUE...]: the sleeper bundle created by BINARY
# (with the environment given); init's pid in $pid.
create_from() {
	local bin=$1
	shift
	make_bundle sleeper
	env "$@" SHIM_TEST_TAG="$TAG" "$bin" --root "$STATE" create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID" \
		>"$T/out" 2>&1
	pid=$(cat "$T/pid")
}

# write_exe_after_delete PID: the attack, from the host: a handle on
# /proc/PID/exe kept, the container deleted, then, once no process runs
# the file any more, an open for writing through the handle; its result in
# $status and $output.  While any process runs the file the kernel says
# ETXTBSY whatever the mount, and `delete` returns on the watcher's last
# record, a moment before the watcher exits.
write_exe_after_delete() {
	local holder file
	env SHIM_TEST_TAG="$TAG" sh -c 'exec 7<"$1"; exec sleep 60' _ "/proc/$1/exe" 3>&- &
	holder=$!
	timeout 10 sh -c 'until [ -e "/proc/$1/fd/7" ]; do sleep 0.05; done' _ "$holder"
	file=$(stat -L -c '%d:%i' "/proc/$holder/fd/7")
	shim delete --force "$ID"
	timeout 10 sh -c 'runs() {
			for e in /proc/[0-9]*/exe; do
				[ "$(stat -L -c %d:%i "$e" 2>/dev/null)" = "$1" ] && return 0
			done
			return 1
		}
		while runs "$1"; do sleep 0.05; done' _ "$file"
	run sh -c 'exec 3>>"$1"' _ "/proc/$holder/fd/7"
	kill "$holder"
}

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
	# init waits (bounded) for exec's process (told by its command line,
	# spelled so that the script's own does not match), then tries its exe.
	sh_cmd 'pat="ex""ec -d"
		for i in $(seq 1 400); do
			for p in /proc/[0-9]*; do
				case "$(tr "\0" " " <$p/cmdline 2>/dev/null)" in *" $pat "*) ;; *) continue ;; esac
				echo "found ${p#/proc/}"
				readlink $p/exe 2>&1
				stat -L -c "%d:%i" $p/exe 2>&1
				# Hold it there until the host has looked too.
				until [ -e /tmp/share/done ]; do sleep 0.05; done
				exit 0
			done
			sleep 0.05
		done
		echo "no shim process seen"'
	share_dir
	shim create --bundle "$BUNDLE" "$ID" >"$T/out" 2>&1
	shim start "$ID"
	timeout 10 sh -c 'until [ -e "$1" ]; do sleep 0.05; done' _ "$T/l/ready"
	shim exec -d "$ID" /bin/true 3>&- &
	exec_pid=$!
	timeout 20 sh -c 'until grep -q "^found" "$1"; do sleep 0.05; done' _ "$T/out"
	# Seen from the host, the process held in connect(2) runs from the
	# detached read-only mount of the binary (whose root, the file, is "/").
	local child
	child=$(pgrep -P "$exec_pid" | head -n 1)
	[ -n "$child" ]
	assert_eq "$(readlink "/proc/$child/exe")" "/"
	touch "$T/share/done"
	timeout 30 sh -c 'until [ "$("$@" | jq -r .status)" = stopped ]; do sleep 0.05; done' \
		_ env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" state "$ID"
	# exec -d returned once its process ran /bin/true (the listener
	# answers the notified syscalls); init has ended since.
	status=0
	wait "$exec_pid" || status=$?
	assert_status 0
	kill "$LISTENER_PID" 2>/dev/null || true
	shim delete "$ID"
	output=$(cat "$T/out")
	assert_contains "$output" "found "
	assert_contains "$output" "Permission denied"
	assert_not_contains "$output" "$shim_id" "the shim binary (dev:ino $shim_id) is reachable"
}

# The classic CVE-2019-5736 path: the container runs /proc/self/exe of the
# runtime process that execs it (a script whose interpreter is
# /proc/self/exe), keeps a handle on it, and writes once the runtime is
# gone (while it runs, the kernel says ETXTBSY).  create, run and exec
# re-exec themselves through a detached read-only bind mount of the binary
# first, so that handle leads through that mount.  The binary is a copy of
# the test's own, which no other process runs.
@test "create: a handle on init's /proc/PID/exe cannot be written once the runtime is gone (read-only mount)" {
	local pid
	mkdir "$T/bin"
	cp "$SHIM_BIN" "$T/bin/shim"
	create_from "$T/bin/shim"
	assert_eq "$(readlink "/proc/$pid/exe")" "/" "init's /proc/PID/exe (the detached mount's root)"
	write_exe_after_delete "$pid"
	assert_status 2
	assert_contains "$output" "Read-only file system"
	assert_eq "$(cmp "$SHIM_BIN" "$T/bin/shim" && echo same)" same "the binary is unchanged"
}

# Where the mount cannot be made (no CAP_SYS_ADMIN over the mount
# namespace; forced here), the re-exec is from a sealed memfd copy.
@test "create: without the read-only mount, init's /proc/PID/exe is a sealed memfd copy, never the binary on the host" {
	local pid shim_id
	shim_id=$(stat -L -c '%d:%i' "$SHIM_BIN")
	create_from "$SHIM_BIN" SHIM_TEST_NO_RO_EXEC=1
	assert_contains "$(readlink "/proc/$pid/exe")" "/memfd:shim"
	assert_not_contains "$(stat -L -c '%d:%i' "/proc/$pid/exe")" "$shim_id"
	# F_SEAL_FUTURE_WRITE: F_SEAL_WRITE waits for page references and
	# failed with EBUSY at random under load.
	assert_eq "$("$SEALS" "/proc/$pid/exe")" "seal shrink grow future_write"
	shim delete --force "$ID"
}

# A binary on a read-only mount (runc's advice before 1.2: a read-only bind
# of the binary over itself) is not copied: nothing can open it for writing
# through /proc/PID/exe, the open fails with EROFS.  One start-up instead
# of two.
@test "create from a binary on a read-only mount: no copy, and its /proc/PID/exe cannot be written" {
	local pid
	mkdir "$T/ro"
	cp "$SHIM_BIN" "$T/ro/shim"
	mount --bind "$T/ro" "$T/ro"
	register_mount "$T/ro"
	mount -o remount,bind,ro "$T/ro"
	create_from "$T/ro/shim"
	assert_eq "$(readlink "/proc/$pid/exe")" "$T/ro/shim" "init's /proc/PID/exe"
	write_exe_after_delete "$pid"
	assert_status 2
	assert_contains "$output" "Read-only file system"
}

# vm.memfd_noexec (Linux 6.3, per pid namespace) makes a memfd created
# without MFD_EXEC non-executable at 1 and refuses MFD_EXEC at 2.  shim
# run by a process in such a namespace (a container engine inside a
# container) and without the read-only mount asks for MFD_EXEC; at 2 it
# says why it cannot copy itself.
# in_memfd_noexec LEVEL CMD...: CMD in a pid namespace of its own whose
# vm.memfd_noexec is LEVEL; status and output in $status and $output.
in_memfd_noexec() {
	local level=$1
	shift
	[ -e /proc/sys/vm/memfd_noexec ] || skip "no vm.memfd_noexec before Linux 6.3"
	run unshare --pid --fork --mount-proc sh -c 'echo "$1" >/proc/sys/vm/memfd_noexec && shift && exec "$@"' \
		_ "$level" "$@"
}

@test "vm.memfd_noexec=1: without the read-only mount, the sealed copy is still executable" {
	make_bundle
	sh_cmd 'echo ran'
	in_memfd_noexec 1 env SHIM_TEST_NO_RO_EXEC=1 SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$output" ran
}

@test "vm.memfd_noexec=2: without the read-only mount, shim says it cannot copy itself, and why" {
	make_bundle
	in_memfd_noexec 2 env SHIM_TEST_NO_RO_EXEC=1 SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$output" "memfd_create for a sealed copy of the runtime (vm.memfd_noexec is 2 in this pid namespace"
	assert_contains "$output" "Permission denied"
	run shim list -q
	assert_eq "$output" ""
}
