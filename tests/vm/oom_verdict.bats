#!/usr/bin/env bats
# The verdict on a real cgroup v2 kernel: an OOM kill is told apart from a
# kill, from nested kills, and from a workload that only says it was OOM
# killed.  Limits come from examples/memhog (64 MiB) unless a test says
# otherwise.

load helpers

setup() {
  require_cgroup2_memory
}

@test "init that exceeds its limit is OOMKilled, scope container" {
  make_bundle memhog
  run_shim oom-init
  [ "$status" -eq 137 ]
  [ "$(v .reason)" = OOMKilled ]
  [ "$(v .oom_killed)" = true ]
  [ "$(v .oom.scope)" = container ]
  [ "$(v .signal)" = SIGKILL ]
  [ "$(v .memory_limit)" = 67108864 ]
  [ "$(v .memory_limit_enforced)" = true ]
  [ "$(v .memory_peak)" -ge 60000000 ]
  [ "$(v .killed_by)" = null ]
  [[ "$(v .message)" == *"OOM-killed"*"64 MiB memory limit"* ]]
  [[ "$(v .hint)" == *"linux.resources.memory.limit"* ]]
  assert_no_leftovers oom-init
}

@test "the human verdict names the limit and gives a hint" {
  make_bundle memhog
  run "$SHIM" --root "$BATS_TEST_TMPDIR/state" run --bundle "$BUNDLE" oom-human
  [ "$status" -eq 137 ]
  [[ "$output" == *"shim: container oom-human was OOM-killed: it hit its 64 MiB memory limit"* ]]
  [[ "$output" == *"shim: hint: "*"--memory 128M"* ]]
  assert_no_leftovers oom-human
}

@test "a child that exceeds the limit takes the whole container (group kill)" {
  make_bundle memhog "$(args_filter /bin/sh -c '/bin/memhog -s 8 & wait; echo init survived')"
  run_shim oom-child
  [ "$status" -eq 137 ]
  [[ "$output" != *"init survived"* ]]
  [ "$(v .reason)" = OOMKilled ]
  [ "$(v .oom.group_kill)" = true ]
  [ "$(v .oom.kills)" -ge 2 ]
  [[ "$(v .message)" == *"killed as a group"* ]]
  assert_no_leftovers oom-child
}

@test "with memory.oom.group=0 a killed child is not the container's death" {
  make_bundle memhog '.linux.resources.unified = {"memory.oom.group": "0"}' \
    "$(args_filter /bin/sh -c '/bin/memhog -s 8; echo "child status $?"; exit 0')"
  run_shim oom-nogroup
  [ "$status" -eq 0 ]
  [[ "$output" == *"child status 137"* ]]
  [ "$(v .reason)" = Exited ]
  [ "$(v .exit_code)" = 0 ]
  [ "$(v .oom_killed)" = false ]
  [ "$(v .oom.kills)" -ge 1 ]
  [[ "$(v .message)" == *"OOM-killed"* ]]
  assert_no_leftovers oom-nogroup
}

@test "kill -9 of init from outside is Killed, not OOMKilled" {
  make_bundle memhog "$(args_filter /bin/sh -c 'echo ready; exec sleep 600')"
  "$SHIM" --root "$BATS_TEST_TMPDIR/state" run --json --bundle "$BUNDLE" kill-outside \
    > "$BATS_TEST_TMPDIR/out" 2>&1 &
  local shim_pid=$! init=
  # init is shim's only child; wait for it to have exec'd sleep.
  for _ in $(seq 1 200); do
    init=$(pgrep -P "$shim_pid" || true)
    [ -n "$init" ] && [ "$(readlink "/proc/$init/exe" 2>/dev/null)" = /bin/busybox ] \
      && grep -q ready "$BATS_TEST_TMPDIR/out" && break
    sleep 0.05
  done
  [ -n "$init" ]
  [ "$(readlink "/proc/$init/exe")" = /bin/busybox ]
  grep -q ready "$BATS_TEST_TMPDIR/out"
  kill -9 "$init"
  status=0
  wait "$shim_pid" || status=$?
  [ "$status" -eq 137 ]
  verdict=$(grep '^{"reason"' "$BATS_TEST_TMPDIR/out")
  [ "$(v .reason)" = Killed ]
  [ "$(v .oom_killed)" = false ]
  [ "$(v .killed_by)" = outside ]
  [[ "$(v .message)" == *"from outside the runtime"* ]]
  assert_no_leftovers kill-outside
}

@test "a workload that prints the OOM sentences and exits 137 is Exited" {
  make_bundle memhog "$(args_filter /bin/sh -c 'echo "Memory cgroup out of memory: Killed process 1 (memhog)" >&2; echo "oom-kill: OOMKilled=true" >&2; exit 137')"
  run_shim fake-oom
  [ "$status" -eq 137 ]
  [ "$(v .reason)" = Exited ]
  [ "$(v .exit_code)" = 137 ]
  [ "$(v .signal)" = null ]
  [ "$(v .oom_killed)" = false ]
  assert_no_leftovers fake-oom
}

@test "filling a tmpfs past the limit is OOMKilled and the message names shmem" {
  make_bundle memhog "$(args_filter /bin/memhog -s 8 -t /tmp/fill)"
  run_shim oom-tmpfs
  [ "$status" -eq 137 ]
  [ "$(v .reason)" = OOMKilled ]
  [[ "$(v .message)" == *"shmem"* || "$(v .message)" == *"tmpfs"* ]]
  assert_no_leftovers oom-tmpfs
}

@test "a fork bomb stopped by pids.max is not OOMKilled" {
  make_bundle forkbomb
  run_shim forkbomb
  [ "$status" -eq 1 ]
  [[ "$output" == *"fork failed after"* ]]
  [ "$(v .reason)" = Exited ]
  [ "$(v .oom_killed)" = false ]
  # It hit its pids limit, and the sentence says so.
  [ "$(v .pids_limit)" = 32 ]
  local n
  n=$(v .pids_max_events)
  [ "$n" -ge 1 ]
  [[ "$(v .message)" == *"exited with code 1; it hit its pids limit of 32 ($n fork"* ]]
  assert_no_leftovers forkbomb
}

@test "a container within its limit exits 0 and reports its peak" {
  make_bundle memhog "$(args_filter /bin/memhog -s 8 -n 16)"
  run_shim within
  [ "$status" -eq 0 ]
  [ "$(v .reason)" = Exited ]
  [ "$(v .oom_killed)" = false ]
  [ "$(v .memory_peak)" -ge 16777216 ]
  [ "$(v .memory_peak)" -lt 67108864 ]
  assert_no_leftovers within
}
