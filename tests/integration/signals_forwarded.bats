#!/usr/bin/env bats
# Signals sent to `shim run` reach the container's init, which (as pid 1 of
# its pid namespace) only gets the ones it handles; a killed runtime takes
# its container with it.

load helpers

# Whoever started bats may have left SIGINT and SIGQUIT ignored (a
# non-interactive shell starts its background jobs so), and shim does not
# forward a signal it was started ignoring: restore the defaults, as an
# interactive shell would have them.
START_ENV=(--default-signal=INT,QUIT)

# trap_and_wait SIG CODE: init traps SIG (prints "got SIG", exits CODE),
# says it is ready, and waits.
trap_and_wait() {
	share_dir
	sh_cmd "trap 'echo got $1; exit $2' $1; echo ready >/tmp/share/ready; sleep 1000 & wait"
}

@test "SIGTERM sent to shim is forwarded to init" {
	trap_and_wait TERM 7
	start_bg
	wait_ready
	kill -TERM "$SHIM_PID"
	wait_shim
	assert_status 7
	assert_eq "$(cat "$T/out")" "got TERM"
}

@test "SIGINT sent to shim is forwarded to init" {
	trap_and_wait INT 8
	start_bg
	wait_ready
	kill -INT "$SHIM_PID"
	wait_shim
	assert_status 8
	assert_eq "$(cat "$T/out")" "got INT"
}

@test "SIGHUP sent to shim is forwarded to init" {
	trap_and_wait HUP 9
	start_bg
	wait_ready
	kill -HUP "$SHIM_PID"
	wait_shim
	assert_status 9
	assert_eq "$(cat "$T/out")" "got HUP"
}

@test "QUIT, USR1, USR2 and WINCH are forwarded too, one by one" {
	share_dir
	# Each trap answers through the fifo, so the next signal is sent only
	# once the previous one arrived.  busybox sh runs traps between
	# commands: a short foreground sleep, not `wait` on a long one, whose
	# check-then-block window lost a signal under load in CI.
	sh_cmd 'for s in QUIT USR1 USR2 WINCH; do trap "echo got $s >/tmp/share/ready" $s; done
		trap "exit 7" TERM
		echo ready >/tmp/share/ready
		while :; do sleep 0.1; done'
	start_bg
	wait_ready
	local s got
	for s in QUIT USR1 USR2 WINCH; do
		kill -"$s" "$SHIM_PID"
		got=$(timeout 20 cat "$T/share/ready")
		assert_eq "$got" "got $s"
	done
	kill -TERM "$SHIM_PID"
	wait_shim
	assert_status 7
}

@test "init does not inherit the signals its runtime was started ignoring" {
	# As a shell starts a background job (SIGINT, SIGQUIT ignored), and more.
	set_args /bin/grep SigIgn /proc/self/status
	(
		trap '' INT QUIT TERM HUP PIPE
		exec env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID"
	) >"$T/out"
	assert_eq "$(cat "$T/out")" $'SigIgn:\t0000000000000000'
}

# kill_runtime_and_wait: SIGKILL the runtime; wait (bounded) for every
# process of the container to go.
kill_runtime_and_wait() {
	local pids
	pids=$(tagged_pids | grep -vx "$SHIM_PID")
	[ -n "$pids" ]
	kill -9 "$SHIM_PID"
	wait_shim
	assert_status 137
	# shellcheck disable=SC2086
	wait_gone $pids
	assert_eq "$(tagged_pids)" "" "processes of the container"
	# The runtime had no chance to clean up after itself.
	rm -rf "${STATE:?}/$ID"
	local cg
	cg=$(cgroup2_mount)
	[ -z "$cg" ] || [ ! -d "$cg/shim/$ID" ] || rmdir "$cg/shim/$ID"
	# And on a hybrid or v1 host the directories in the v1 hierarchies.
	while IFS= read -r cg; do
		[ -z "$cg" ] || [ ! -d "$cg/shim/$ID" ] || rmdir "$cg/shim/$ID"
	done < <(cgroup_v1_mounts)
}

@test "a SIGKILLed runtime takes its container with it" {
	share_dir
	sh_cmd 'echo ready >/tmp/share/ready; sleep 1000 & wait'
	start_bg
	wait_ready
	kill_runtime_and_wait
}

@test "a SIGKILLed runtime takes its container with it when the process is not root" {
	share_dir
	chmod 0666 "$T/share/ready"
	cfg '.process.user = {uid: 1000, gid: 1000}'
	sh_cmd 'echo ready >/tmp/share/ready; sleep 1000 & wait'
	start_bg
	wait_ready
	kill_runtime_and_wait
}
