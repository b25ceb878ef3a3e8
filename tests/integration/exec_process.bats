#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim exec ID CMD...` / `--process FILE`: another process in the
# container's namespaces and cgroup, its output and exit code passed
# through; -e, --cwd, --user change it; --detach returns at once.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
}

@test "exec: stdout, stderr and the exit code pass through" {
	ct_up
	run --separate-stderr shim exec "$ID" /bin/sh -c 'echo out; echo err >&2; exit 7'
	assert_status 7
	assert_eq "$output" out
	assert_eq "$stderr" err
	run --separate-stderr shim exec "$ID" /bin/true
	assert_status 0
	run --separate-stderr shim exec "$ID" /bin/sh -c 'kill -9 $$'
	assert_status 137
	ct_cleanup
}

@test "exec runs in the container: its namespaces, root, hostname and cgroup" {
	cfg '.hostname = "exec-box"'
	ct_up
	local init
	init=$(ct_field pid)
	run --separate-stderr shim exec "$ID" /bin/sh -c \
		'hostname; for n in pid mnt net; do readlink /proc/self/ns/$n; done; cat /proc/1/cmdline | tr "\0" " "; echo; cat /proc/self/cgroup'
	assert_status 0
	local want
	want="exec-box
$(readlink "/proc/$init/ns/pid" "/proc/$init/ns/mnt" "/proc/$init/ns/net")
sleep 1000 "
	assert_eq "$(head -5 <<<"$output")" "$want"
	# the container's own cgroup namespace: its cgroup is its root
	assert_eq "$(tail -1 <<<"$output")" "0::/"
	ct_cleanup
}

@test "exec -e sets and overrides, the config's env stays" {
	ct_up
	run --separate-stderr shim exec -e FOO=bar --env TERM=dumb "$ID" /bin/sh -c 'echo "$FOO $TERM $PATH"'
	assert_status 0
	assert_eq "$output" "bar dumb /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	run --separate-stderr shim exec -e NOEQUALS "$ID" /bin/true
	assert_error 'exec: --env `NOEQUALS`: KEY=VALUE'
	ct_cleanup
}

@test "exec --cwd" {
	ct_up
	run --separate-stderr shim exec --cwd /proc "$ID" /bin/pwd
	assert_status 0
	assert_eq "$output" /proc
	run --separate-stderr shim exec "$ID" /bin/pwd
	assert_eq "$output" /
	ct_cleanup
}

@test "exec --user UID:GID and UID" {
	ct_up
	run --separate-stderr shim exec --user 1000:1001 "$ID" /bin/sh -c 'id -u; id -g'
	assert_status 0
	assert_eq "$output" $'1000\n1001'
	run --separate-stderr shim exec -u 1234 "$ID" /bin/sh -c 'id -u; id -g'
	assert_status 0
	assert_eq "$output" $'1234\n0'
	run --separate-stderr shim exec --user nobody "$ID" /bin/true
	assert_error_status 255 'exec: --user `nobody`: UID[:GID], numeric'
	ct_cleanup
}

@test "exec --process FILE: args, env, cwd and user from the JSON" {
	ct_up
	cat >"$T/process.json" <<-'JSON'
	{
	  "args": ["/bin/sh", "-c", "echo \"$FOO\"; pwd; id -u; id -g; exit 5"],
	  "env": ["FOO=from-json", "PATH=/bin"],
	  "cwd": "/dev",
	  "user": {"uid": 4242, "gid": 4343}
	}
	JSON
	run --separate-stderr shim exec --process "$T/process.json" "$ID"
	assert_status 5
	assert_eq "$output" $'from-json\n/dev\n4242\n4343'
	# -e applies on top of the file
	run --separate-stderr shim exec --process "$T/process.json" -e FOO=flag "$ID"
	assert_eq "$(head -1 <<<"$output")" flag
	ct_cleanup
}

@test "exec --process FILE that is not a process is refused" {
	ct_up
	echo '{"args": []}' >"$T/process.json"
	run --separate-stderr shim exec --process "$T/process.json" "$ID"
	assert_status 255
	assert_contains "$stderr" "exec: $T/process.json"
	assert_contains "$stderr" "process.args"
	run --separate-stderr shim exec --process "$T/missing.json" "$ID"
	assert_status 255
	assert_contains "$stderr" "$T/missing.json"
	ct_cleanup
}

# exec_detached PID_FILE CMD...: `exec --detach --pid-file PID_FILE` in the
# running container, stdio on files ($T/exec.out, $T/exec.err); $status,
# and $init, the container's init.
exec_detached() {
	local pid_file=$1
	shift
	ct_up
	init=$(ct_field pid)
	status=0
	shim exec --detach --pid-file "$pid_file" "$ID" "$@" \
		</dev/null >"$T/exec.out" 2>"$T/exec.err" 3>&- || status=$?
}

@test "exec --detach --pid-file returns at once; the process runs in the container" {
	local init
	exec_detached "$T/exec.pid" /bin/sleep 1000
	assert_status 0
	local pid
	pid=$(cat "$T/exec.pid")
	[[ "$pid" =~ ^[0-9]+$ ]]
	alive "$pid"
	assert_eq "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "/bin/sleep 1000 "
	assert_eq "$(readlink "/proc/$pid/ns/pid")" "$(readlink "/proc/$init/ns/pid")"
	shim ps --format json "$ID" | jq -e --argjson p "$pid" 'index($p) != null' >/dev/null
	ct_cleanup
	dead "$pid"
}

@test "exec --detach with a pid file it cannot write fails and leaves no process" {
	local init
	exec_detached "$T/missing/dir/exec.pid" /bin/sleep 1001
	assert_status 255
	assert_contains "$(cat "$T/exec.err")" "$T/missing/dir/exec.pid"
	# Reaped before exec returned: init is the container's only process.
	assert_eq "$(shim ps --format json "$ID" | jq -c .)" "[$init]" "the container's processes"
	local p
	for p in $(tagged_pids); do
		assert_not_contains "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" "sleep 1001" "process $p"
	done
	ct_cleanup
}

@test "exec in a created container runs, and init still waits for start" {
	share_dir
	sh_cmd 'echo started >/tmp/share/started; exec sleep 1000'
	ct_create_ok
	run --separate-stderr shim exec "$ID" /bin/echo inside
	assert_status 0
	assert_eq "$output" inside
	assert_eq "$(ct_status)" created
	[ ! -e "$T/share/started" ]
	ct_cleanup
}

@test "exec in a stopped or missing container fails; exec without a command fails" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr shim exec "$ID" /bin/true
	assert_error_status 255 "cannot exec in container \`$ID\`: it is stopped"
	run --separate-stderr shim exec "$ID-missing" /bin/true
	assert_error_status 255 "container \`$ID-missing\` does not exist"
	ct_cleanup
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim exec "$ID"
	assert_error_status 255 'exec: nothing to run: give --process FILE or the command'
	run --separate-stderr shim exec "$ID" /bin/nope
	assert_status 255
	assert_contains "$stderr" "/bin/nope"
	ct_cleanup
}

@test "exec into the container of a foreground run (run --bundle, from another directory)" {
	# `run` in the foreground saves no copy of config.json: exec reads the
	# bundle's (it failed with "open `config.json`" before).
	share_dir
	sh_cmd 'echo ready >/tmp/share/ready; exec sleep 1000'
	[ "$PWD" != "$BUNDLE" ]
	start_bg
	wait_ready
	run --separate-stderr shim exec "$ID" /bin/sh -c 'echo in'
	assert_status 0
	assert_eq "$output" in
	shim kill "$ID" KILL
	wait_shim
}
