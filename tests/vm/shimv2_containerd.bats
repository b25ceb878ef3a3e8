#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# containerd 1.6 (Debian's) with our own shim v2, containerd-shim-shim-v2
# (runtime io.containerd.shim.v2, found on containerd's PATH), through
# `ctr run --runtime io.containerd.shim.v2`, on the example rootfs
# (`--rootfs`, or a spec from `ctr oci spec` edited with jq, `--config`):
# the exit code, the output, and `ctr events`: /tasks/oom exactly when the
# verdict says oom_killed true (and before /tasks/exit), none for a child
# OOM-killed while init lived on, none for `ctr task kill -s SIGKILL`;
# `ctr task exec` (exit code, output, a signal, stdin closed: CloseIO) with
# /tasks/exec-added, /tasks/exec-started and a /tasks/exit of the exec id
# (never a /tasks/oom), Update (tests/helpers/shimv2-update: ctr 1.6 has no
# `task update`) read back from the cgroup; terminals (`ctr run -t`, `ctr
# task exec -t` under script(1)'s pty: the output, the size ctr's
# ResizePty gave, typed input) and Stats (`ctr task metrics`).

load helpers
load engine_helpers

RT=io.containerd.shim.v2

# R ARGS...: ctr run with our shim.
R() {
  C run --runtime "$RT" "$@"
}

# spec ID JQ_FILTER: ctr's default spec on the example rootfs, in the cgroup
# /shimtest/ID, edited by JQ_FILTER, as $BATS_TEST_TMPDIR/ID.json.
spec() {
  ctr oci spec | jq --arg r "$ROOTFS" --arg id "$1" \
    '.root.path = $r | .linux.cgroupsPath = "/shimtest/" + $id | '"$2" >"$BATS_TEST_TMPDIR/$1.json"
}

# events_done ID: the container's events are all in $EVENTS (the shim sends
# them in order, /tasks/delete last).
events_done() {
  engine_wait_for_text "$EVENTS" "/tasks/delete {\"container_id\":\"$1\""
}

# event_line TOPIC ID: the line number of the event in $EVENTS, or nothing.
event_line() {
  grep -nF "$1 {\"container_id\":\"$2\"" "$EVENTS" | head -n 1 | cut -d: -f1
}

# exit_status_of ID: exit_status of the container's /tasks/exit (protobuf
# leaves a 0 out of the JSON).
exit_status_of() {
  grep -F "/tasks/exit {\"container_id\":\"$1\"" "$EVENTS" | head -n 1 | sed 's/^[^{]*//' | jq '.exit_status // 0'
}

# verdict_of ID: the verdict the shim logged for ID (containerd's log has
# the shim's).
verdict_of() {
  engine_wait_for_text "$ENGINE_DIR/containerd.log" "verdict $1: {" >/dev/null
  grep -F "verdict $1: {" "$ENGINE_DIR/containerd.log" | head -n 1 | sed 's/.*msg="verdict [^:]*: //; s/"$//; s/\\"/"/g'
}

# no_shim_left: every shim daemon of ours has ended (after Shutdown).
no_shim_left() {
  [ -z "$(pgrep -f containerd-shim-shim-v2)" ]
}

setup_file() {
  require_cgroup2_memory
  engine_setup
  export PATH=$ROOT_DIR:$PATH
  containerd_start
}

teardown_file() {
  engine_teardown
}

setup() {
  require_cgroup2_memory
  containerd_events_start
}

teardown() {
  tty_close
  containerd_events_stop
  containerd_rm_containers shimtest
  wait_for_cmd 300 no_shim_left || { pgrep -af containerd-shim-shim-v2 >&2; return 1; }
  containerd_assert_no_cgroups
  local left
  left=$(find /run/containerd/shim-shim-v2/shimtest /run/containerd/s -mindepth 1 2>/dev/null)
  if [ -n "$left" ]; then
    echo "state or sockets left behind: $left" >&2
    return 1
  fi
}

@test "shim v2: ctr run --rm: output, exit code, /tasks/exit, no /tasks/oom, the verdict in the log" {
  run R --rm --rootfs "$ROOTFS" hello /bin/sh -c 'echo "hello from pid 1 $(cat /proc/1/comm)"; exit 3'
  echo "$output"
  [ "$status" -eq 3 ]
  [ "$output" = "hello from pid 1 sh" ]
  events_done hello
  [ "$(exit_status_of hello)" = 3 ]
  [ -z "$(event_line /tasks/oom hello)" ]
  verdict=$(verdict_of hello)
  echo "$verdict"
  [ "$(v .reason)" = Exited ]
  [ "$(v .exit_code)" = 3 ]
}

@test "shim v2: a memory hog: /tasks/oom, then /tasks/exit 137, verdict OOMKilled" {
  spec hog '.linux.resources.memory.limit = 67108864 | .process.args = ["/bin/memhog", "-s", "8", "-n", "256"]'
  run R --rm --config "$BATS_TEST_TMPDIR/hog.json" hog
  echo "$output"
  [ "$status" -eq 137 ]
  events_done hog
  [ "$(exit_status_of hog)" = 137 ]
  local oom exit
  oom=$(event_line /tasks/oom hog)
  exit=$(event_line /tasks/exit hog)
  [ -n "$oom" ]
  [ "$oom" -lt "$exit" ]
  verdict=$(verdict_of hog)
  [ "$(v .reason)" = OOMKilled ]
  [ "$(v .oom_killed)" = true ]
}

@test "shim v2: a child OOM-killed while init lives, then exit 0: no /tasks/oom" {
  spec child '.linux.resources.memory.limit = 67108864 | .linux.resources.unified = {"memory.oom.group": "0"}
    | .process.args = ["/bin/sh", "-c", "/bin/memhog -s 8 -n 256; echo init lives on; exit 0"]'
  run R --rm --config "$BATS_TEST_TMPDIR/child.json" child
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"init lives on"* ]]
  events_done child
  [ "$(exit_status_of child)" = 0 ]
  [ -z "$(event_line /tasks/oom child)" ]
  verdict=$(verdict_of child)
  echo "$verdict"
  [ "$(v .oom_killed)" = false ]
  # The kernel did kill the child: the verdict knows, and still says init
  # was not OOM-killed.
  [ "$(v .oom.kills)" -ge 1 ]
}

@test "shim v2: ctr task pause, resume, kill -s SIGKILL: exit 137, no /tasks/oom" {
  R --rootfs "$ROOTFS" victim /bin/sleep 600 </dev/null >"$BATS_TEST_TMPDIR/victim.out" 2>&1 &
  local pid=$!
  wait_for_cmd 600 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^victim +[0-9]+ +RUNNING'"
  run C tasks ps victim
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | awk 'NR > 1 { n++ } END { print n }')" -eq 1 ]
  run C tasks pause victim
  [ "$status" -eq 0 ]
  run C tasks ls
  [[ "$output" == *"victim"*"PAUSED"* ]]
  run C tasks resume victim
  [ "$status" -eq 0 ]
  run C tasks ls
  [[ "$output" == *"victim"*"RUNNING"* ]]
  [ -n "$(event_line /tasks/paused victim)" ]
  [ -n "$(event_line /tasks/resumed victim)" ]
  run C tasks kill -s SIGKILL victim
  [ "$status" -eq 0 ]
  # ctr run's own exit status (a job of this shell: `run` cannot wait).
  local rc=0
  wait "$pid" || rc=$?
  cat "$BATS_TEST_TMPDIR/victim.out"
  [ "$rc" -eq 137 ]
  run C tasks delete victim
  run C containers delete victim
  [ "$status" -eq 0 ]
  events_done victim
  [ "$(exit_status_of victim)" = 137 ]
  [ -z "$(event_line /tasks/oom victim)" ]
  verdict=$(verdict_of victim)
  [ "$(v .reason)" = Killed ]
  [ "$(v .oom_killed)" = false ]
}

@test "shim v2: a shim killed with SIGKILL: containerd's delete cleans up (137), nothing left" {
  run R -d --rootfs "$ROOTFS" crash /bin/sleep 600
  [ "$status" -eq 0 ]
  wait_for_cmd 600 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^crash +[0-9]+ +RUNNING'"
  local shim
  # The daemon, the oldest of the processes with its command line (the
  # watcher is forked from it later, and keeps it).
  shim=$(pgrep -o -f 'containerd-shim-shim-v2 .*-id crash ')
  [ -n "$shim" ]
  # The container's processes are forks of the daemon until they exec:
  # it runs from a detached read-only mount of its binary (whose root is
  # the file: "/"), never from the binary on the host (CVE-2019-5736).
  [ "$(readlink "/proc/$shim/exe")" = / ]
  kill -KILL "$shim"
  # containerd sees the shim go, runs `containerd-shim-shim-v2 delete`,
  # and publishes the exit that delete reported.
  engine_wait_for_text "$EVENTS" '/tasks/exit {"container_id":"crash"' 600
  [ "$(exit_status_of crash)" = 137 ]
  [ -z "$(event_line /tasks/oom crash)" ]
  run C containers delete crash
  [ "$status" -eq 0 ]
  [ ! -e "$CGROOT/shimtest/crash" ]
}

# exec_event TOPIC ID EXEC_ID: the line of the exec's event in $EVENTS.
exec_event() {
  grep -nF "$1 {\"container_id\":\"$2\"" "$EVENTS" | grep -F "\"$3\"" | head -n 1 | cut -d: -f1
}

# exec_started ID EXEC_ID: its /tasks/exec-started is in $EVENTS.
exec_started() {
  [ -n "$(exec_event /tasks/exec-started "$1" "$2")" ]
}

# exec_exit_status ID EXEC_ID: exit_status of the exec's /tasks/exit.
exec_exit_status() {
  grep -F "/tasks/exit {\"container_id\":\"$1\"" "$EVENTS" | grep -F "\"id\":\"$2\"" | head -n 1 \
    | sed 's/^[^{]*//' | jq '.exit_status // 0'
}

@test "shim v2: ctr task exec: exit code and output, a signal, stdin closed; events of the exec id, no /tasks/oom" {
  run R -d --rootfs "$ROOTFS" ex /bin/sleep 600
  [ "$status" -eq 0 ]
  wait_for_cmd 600 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^ex +[0-9]+ +RUNNING'"
  # A command that prints and exits with a code: ctr sees both.
  run timeout 300 ctr --address "$CONTAINERD_SOCK" -n shimtest tasks exec --exec-id e1 ex \
    /bin/sh -c 'echo "out of exec $(cat /proc/1/comm)"; echo "to stderr" >&2; exit 7'
  echo "$output"
  [ "$status" -eq 7 ]
  [[ "$output" == *"out of exec sleep"* ]]
  [[ "$output" == *"to stderr"* ]]
  engine_wait_for_text "$EVENTS" '"id":"e1"'
  [ -n "$(exec_event /tasks/exec-added ex e1)" ]
  [ -n "$(exec_event /tasks/exec-started ex e1)" ]
  [ "$(exec_exit_status ex e1)" = 7 ]
  # Killed by a signal: 128+9, as for init.
  timeout 300 ctr --address "$CONTAINERD_SOCK" -n shimtest tasks exec --exec-id e2 ex /bin/sleep 600 \
    </dev/null >"$BATS_TEST_TMPDIR/e2.out" 2>&1 &
  local e2=$!
  wait_for_cmd 3000 exec_started ex e2
  run C tasks kill --exec-id e2 -s SIGKILL ex
  [ "$status" -eq 0 ]
  local rc=0
  wait "$e2" || rc=$?
  cat "$BATS_TEST_TMPDIR/e2.out"
  [ "$rc" -eq 137 ]
  engine_wait_for_text "$EVENTS" '"id":"e2"'
  [ "$(exec_exit_status ex e2)" = 137 ]
  # stdin: the pipe's end reaches cat only through CloseIO.
  run timeout 120 sh -c "echo hi from stdin | ctr --address $CONTAINERD_SOCK -n shimtest tasks exec --exec-id e3 ex /bin/cat"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "hi from stdin" ]
  # The init is still the only one counted: no exec's exit is an OOM.
  [ -z "$(event_line /tasks/oom ex)" ]
  [ -z "$(grep -F '/tasks/exit {"container_id":"ex","id":"ex"' "$EVENTS")" ]
  run C tasks kill -s SIGKILL ex
  [ "$status" -eq 0 ]
  wait_for_cmd 300 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^ex +[0-9]+ +STOPPED'"
  run C tasks delete ex
  [ "$status" -eq 0 ]
  run C containers delete ex
  [ "$status" -eq 0 ]
  events_done ex
  [ -z "$(event_line /tasks/oom ex)" ]
}

@test "shim v2: Update: memory.max of the cgroup changed, a bad one refused" {
  run R -d --rootfs "$ROOTFS" up /bin/sleep 600
  [ "$status" -eq 0 ]
  wait_for_cmd 600 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^up +[0-9]+ +RUNNING'"
  # The shim's socket: containerd 1.6's rule, sha256 of "ADDRESS/NS/ID".
  local addr
  addr=/run/containerd/s/$(printf %s "$CONTAINERD_SOCK/shimtest/up" | sha256sum | cut -d' ' -f1)
  [ -S "$addr" ]
  run "$ROOT_DIR/tests/helpers/shimv2-update" "$addr" up '{"memory":{"limit":134217728}}'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(cat "$CGROOT/shimtest/up/memory.max")" = 134217728 ]
  run "$ROOT_DIR/tests/helpers/shimv2-update" "$addr" up '{"memory":{"limit":"lots"}}'
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(cat "$CGROOT/shimtest/up/memory.max")" = 134217728 ]
  run C tasks kill -s SIGKILL up
  [ "$status" -eq 0 ]
  wait_for_cmd 300 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^up +[0-9]+ +STOPPED'"
  run C tasks delete up
  run C containers delete up
  [ "$status" -eq 0 ]
  events_done up
}

# containerd reads each bundle's `address` when it starts, to find the
# shims of the tasks that still run; without the file it cleans such a
# task up as dead (containerd 1.6: "failed to read address").
@test "shim v2: containerd restarts while a task runs: the bundle's address finds its shim again" {
  spec keep '.process.args = ["/bin/sh", "-c", "trap \"exit 5\" TERM; sleep 1000 & wait"]'
  C run -d --runtime "$RT" --config "$BATS_TEST_TMPDIR/keep.json" keep
  local bundle=/run/containerd/io.containerd.runtime.v2.task/shimtest/keep
  [[ "$(cat "$bundle/address")" == unix:///run/containerd/s/* ]]
  containerd_events_stop
  daemon_stop containerd
  containerd --config "$CONTAINERD_CONFIG" --log-level debug >>"$ENGINE_DIR/containerd.log" 2>&1 </dev/null &
  echo $! >"$ENGINE_DIR/containerd.pid"
  wait_for_cmd 600 ctr --address "$CONTAINERD_SOCK" version
  containerd_events_start
  C task ls
  [ "$(C task ls | awk '$1 == "keep" { print $3 }')" = RUNNING ]
  C task kill -s SIGTERM keep
  engine_wait_for_text "$EVENTS" "/tasks/exit {\"container_id\":\"keep\"" >/dev/null
  [ "$(exit_status_of keep)" = 5 ]
  [ -z "$(event_line /tasks/oom keep)" ]
}

# tty_open: $TTY_IN, a FIFO held open on fd 5: script(1)'s stdin, which
# never ends (script sends its stdin's end on to the terminal as a byte).
tty_open() {
  TTY_IN=$BATS_TEST_TMPDIR/tty.in
  mkfifo "$TTY_IN"
  exec 5<>"$TTY_IN"
}

tty_close() {
  [ -z "${TTY_IN:-}" ] || exec 5>&-
}

# T COLS ROWS CMD...: CMD with a terminal (script's pty) of COLS x ROWS,
# reading $TTY_IN.
T() {
  local cols=$1 rows=$2
  shift 2
  timeout 300 script -qec "stty cols $cols rows $rows; $(printf '%q ' "$@")" /dev/null <"$TTY_IN"
}

CTR=(ctr --address "$CONTAINERD_SOCK" --namespace shimtest)

# The process prints its terminal's size once it has one: at once when
# ctr's first ResizePty came before, else on the SIGWINCH it brings.
SIZE_SH='trap "busybox stty size; busybox tty; exit 5" WINCH
s=$(busybox stty size 2>/dev/null)
case "$s" in [1-9]*) echo "$s"; busybox tty; exit 5;; esac
sleep 60 & wait'

@test "shim v2: ctr run -t: the output through the pty, the size ctr's ResizePty gave, the exit code" {
  tty_open
  run T 101 37 "${CTR[@]}" run -t --rm --runtime "$RT" --rootfs "$ROOTFS" tt /bin/sh -c "$SIZE_SH"
  echo "$output"
  [ "$status" -eq 5 ]
  [[ "$output" == *"37 101"* ]]
  [[ "$output" == *"/dev/pts/"* ]]
  events_done tt
  [ "$(exit_status_of tt)" = 5 ]
  [ -z "$(event_line /tasks/oom tt)" ]
}

@test "shim v2: ctr task exec -t (output, size, typed input), ctr task metrics (Stats: cgroup v2 Metrics)" {
  tty_open
  spec tx '.linux.resources.memory.limit = 67108864 | .linux.resources.pids.limit = 32
    | .process.args = ["/bin/sleep", "600"]'
  run R -d --config "$BATS_TEST_TMPDIR/tx.json" tx
  [ "$status" -eq 0 ]
  wait_for_cmd 600 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^tx +[0-9]+ +RUNNING'"
  run T 90 20 "${CTR[@]}" tasks exec -t --exec-id t1 tx /bin/sh -c "$SIZE_SH"
  echo "$output"
  [ "$status" -eq 5 ]
  [[ "$output" == *"20 90"* ]]
  [[ "$output" == *"/dev/pts/"* ]]
  [ "$(exec_exit_status tx t1)" = 5 ]
  # Typed input: ctr's terminal, containerd's stdin FIFO, the shim, the pty.
  T 90 20 "${CTR[@]}" tasks exec -t --exec-id t2 tx /bin/sh -c 'read line; echo "got $line"' \
    >"$BATS_TEST_TMPDIR/t2.out" 2>&1 &
  local t2=$!
  wait_for_cmd 3000 exec_started tx t2
  echo "typed words" >&5
  local rc=0
  wait "$t2" || rc=$?
  cat "$BATS_TEST_TMPDIR/t2.out"
  [ "$rc" -eq 0 ]
  grep -q "got typed words" "$BATS_TEST_TMPDIR/t2.out"
  # Stats, as ctr prints containerd's io.containerd.cgroups.v2.Metrics.
  run C tasks metrics tx
  echo "$output"
  [ "$status" -eq 0 ]
  metric() { echo "$output" | awk -v k="$1" '$1 == k { print $2 }'; }
  [ "$(metric memory.usage_limit)" = 67108864 ]
  [ "$(metric memory.usage)" -gt 0 ]
  [ "$(metric pids.limit)" = 32 ]
  [ "$(metric pids.current)" -ge 1 ]
  [ "$(metric cpu.usage_usec)" -gt 0 ]
  # memory.stat's figures too (CRI's working set is usage less inactive_file).
  run C tasks metrics --format json tx
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq '.memory.file + .memory.anon')" -gt 0 ]
  run C tasks kill -s SIGKILL tx
  [ "$status" -eq 0 ]
  wait_for_cmd 300 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^tx +[0-9]+ +STOPPED'"
  run C tasks delete tx
  run C containers delete tx
  [ "$status" -eq 0 ]
  events_done tx
}
