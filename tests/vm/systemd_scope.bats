#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# The systemd cgroup manager (--systemd-cgroup) with systemd as PID 1: the
# container's cgroup is a transient scope systemd makes with init's pid.
# These tests run INSIDE the VM's systemd mode:
#
#   tests/vm/run -s -- bats tests/vm/systemd_scope.bats
#
# Anywhere else they fail (on purpose, not skip).

load helpers
bats_require_minimum_version 1.5.0

setup() {
  require_cgroup2_memory
  if [ "$(ps -p 1 -o comm=)" != systemd ]; then
    echo "systemd is not PID 1: run through tests/vm/run -s" >&2
    return 1
  fi
  S=$BATS_TEST_TMPDIR/state
  ID=
}

teardown() {
  [ -z "$ID" ] || "$SHIM" --root "$S" delete --force "$ID" 2>/dev/null || true
  [ -z "$ID" ] || systemctl stop "shimtest-$ID.scope" 2>/dev/null || true
  [ -z "$ID" ] || systemctl stop "shim-$ID.scope" 2>/dev/null || true
}

# sd_bundle EXAMPLE [JQ_FILTER...]: the example with cgroupsPath
# system.slice:shimtest:$ID (set ID first).
sd_bundle() {
  local name=$1; shift
  make_bundle "$name" ".linux.cgroupsPath = \"system.slice:shimtest:$ID\"" "$@"
}

shim_sd() {
  "$SHIM" --root "$S" --systemd-cgroup "$@"
}

prop() {
  systemctl show -p "$1" --value "shimtest-$ID.scope"
}

# Nothing of the container left: no unit, no cgroup, no state dir.
assert_scope_gone() {
  local i
  # systemd unloads an inactive transient unit a moment after its stop.
  for i in $(seq 1 100); do
    [ "$(prop LoadState)" = not-found ] && break
    sleep 0.1
  done
  [ "$(prop LoadState)" = not-found ] || { echo "unit shimtest-$ID.scope still loaded: $(prop ActiveState)" >&2; return 1; }
  [ ! -e "$CGROOT/system.slice/shimtest-$ID.scope" ] || { echo "scope cgroup left" >&2; return 1; }
  [ ! -e "$S/$ID" ] || { echo "state dir left" >&2; return 1; }
  [ ! -e "$CGROOT/shim/$ID" ]
}

@test "create: the cgroup is a transient scope systemd made, with the limits and Delegate=yes; delete removes the unit" {
  ID=sd-scope
  sd_bundle sleeper '.linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 64}}'
  shim_sd create --bundle "$BUNDLE" --pid-file "$BATS_TEST_TMPDIR/pid" "$ID"
  [ "$(prop ActiveState)" = active ]
  [ "$(prop Delegate)" = yes ]
  [ "$(prop MemoryMax)" = 67108864 ]
  [ "$(prop TasksMax)" = 64 ]
  [ "$(prop Slice)" = system.slice ]
  [ "$(prop ControlGroup)" = "/system.slice/shimtest-$ID.scope" ]
  [ "$(state_field .status)" = created ]
  # init is in the scope (systemd moved it there), and the files systemd
  # has no property for were written as the v2 manager writes them.
  cg=$CGROOT/system.slice/shimtest-$ID.scope
  [ "$(cat "$cg/cgroup.procs")" = "$(cat "$BATS_TEST_TMPDIR/pid")" ]
  [ "$(cat "$cg/memory.oom.group")" = 1 ]
  [ "$(cat "$cg/memory.swap.max")" = 0 ]
  [ "$(prop MemorySwapMax)" = 0 ]
  "$SHIM" --root "$S" start "$ID"
  [ "$(state_field .status)" = running ]
  # update goes through systemd and the files alike.
  shim_sd update --memory 100M "$ID"
  [ "$(prop MemoryMax)" = 104857600 ]
  [ "$(cat "$cg/memory.max")" = 104857600 ]
  shim_sd delete --force "$ID"
  assert_scope_gone
}

# systemd writes memory.oom.group = (OOMPolicy == kill) whenever it applies
# a unit's settings, and a delegated scope's default policy is continue:
# with the file written behind its back, a daemon-reload (every package
# upgrade that ships a unit) put 0 back.
@test "memory.oom.group survives a daemon-reload: OOMPolicy=kill, or continue for a unified \"0\"" {
  ID=sd-reload
  sd_bundle sleeper
  shim_sd create --bundle "$BUNDLE" "$ID"
  cg=$CGROOT/system.slice/shimtest-$ID.scope
  [ "$(prop OOMPolicy)" = kill ]
  [ "$(cat "$cg/memory.oom.group")" = 1 ]
  systemctl daemon-reload
  run cat "$cg/memory.oom.group"
  [ "$status" -eq 0 ]
  [ "$output" = 1 ]
  shim_sd delete --force "$ID"
  assert_scope_gone

  ID=sd-reload0
  sd_bundle sleeper '.linux.resources.unified = {"memory.oom.group": "0"}'
  shim_sd create --bundle "$BUNDLE" "$ID"
  cg=$CGROOT/system.slice/shimtest-$ID.scope
  [ "$(prop OOMPolicy)" = continue ]
  systemctl daemon-reload
  run cat "$cg/memory.oom.group"
  [ "$status" -eq 0 ]
  [ "$output" = 0 ]
  shim_sd delete --force "$ID"
  assert_scope_gone
}

@test "run: a memory hog in the scope is OOMKilled, also when systemd removed the scope before run's last read" {
  ID=sd-hog
  sd_bundle memhog
  run shim_sd run --json --bundle "$BUNDLE" "$ID"
  verdict=$(printf '%s\n' "$output" | grep '^{"reason"' | tail -n 1)
  echo "$output"
  [ "$status" -eq 137 ]
  [ "$(v .memory_limit)" = 67108864 ]
  [ "$(v .memory_limit_enforced)" = true ]
  [ "$(v .killed_by)" = null ]
  # systemd removes the scope the moment it empties, now and then before
  # run's last read of memory.events ("the cgroup was removed while it was
  # read"): the counters are then an earlier read's, a lower bound, and the
  # kernel log, read whole, names init.
  [ "$(v .reason)" = OOMKilled ]
  [ "$(v .oom_killed)" = true ]
  [ "$(v .oom.scope)" = container ]
  assert_scope_gone
}

@test "create/start: kill -9 from outside is not OOMKilled; delete after systemd removed the emptied scope" {
  ID=sd-kill
  sd_bundle sleeper
  shim_sd create --bundle "$BUNDLE" --pid-file "$BATS_TEST_TMPDIR/pid" "$ID"
  "$SHIM" --root "$S" start "$ID"
  [ "$(prop ActiveState)" = active ]
  kill -9 "$(cat "$BATS_TEST_TMPDIR/pid")"
  wait_stopped
  [ "$(annotation io.github.shim.oom-killed)" = false ]
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  # As with cgroupfs: init is an orphan; the watcher learns its wait
  # status from its pidfd (6.15+) or from taskstats (before).
  [ "$(v .reason)" = Killed ]
  [ "$(v .killed_by)" = outside ]
  [ "$(v .exit_code)" = 137 ]
  [[ "$(v .message)" == *"was killed by SIGKILL from outside the runtime (not an OOM kill"* ]]
  shim_sd delete "$ID"
  assert_scope_gone
}

@test "create/start of a memory hog: OOMKilled in state, although systemd removes the scope once it empties" {
  ID=sd-lchog
  sd_bundle memhog
  shim_sd create --bundle "$BUNDLE" "$ID"
  "$SHIM" --root "$S" start "$ID"
  wait_stopped
  annotation io.github.shim.verdict
  cat "$S/$ID/record.json"
  [ "$(annotation io.github.shim.reason)" = OOMKilled ]
  [ "$(annotation io.github.shim.oom-killed)" = true ]
  shim_sd delete "$ID"
  assert_scope_gone
}

@test "systemctl stop of the scope under a running container: the verdict is not a confident wrong one" {
  ID=sd-stop
  # init handles systemd's SIGTERM (a pid 1 without a handler ignores it,
  # and systemd would wait 90 s before its SIGKILL).
  sd_bundle sleeper "$(args_filter /bin/sh -c 'trap "exit 7" TERM; sleep 1000 & wait')"
  shim_sd create --bundle "$BUNDLE" "$ID"
  "$SHIM" --root "$S" start "$ID"
  [ "$(prop ActiveState)" = active ]
  timeout 60 systemctl stop "shimtest-$ID.scope"
  wait_stopped
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  # Not OOM-killed (nothing was, and the parent's counters, which outlived
  # the scope, say so), and no made-up cause: init is an orphan, its exit
  # status known from the watcher's pidfd (6.15+) or taskstats (before).
  [ "$(v .oom_killed)" = false ]
  [ "$(v .killed_by)" = null ]
  [ "$(v .reason)" = Exited ]
  [ "$(v .exit_code)" = 7 ]
  [ "$(v .message)" = "container sd-stop exited with code 7" ]
  shim_sd delete "$ID"
  assert_scope_gone
}

@test "systemctl stop under a foreground run: run ends with init's status and cleans up" {
  ID=sd-stoprun
  sd_bundle sleeper "$(args_filter /bin/sh -c 'trap "exit 7" TERM; sleep 1000 & wait')"
  shim_sd run --json --bundle "$BUNDLE" "$ID" >"$BATS_TEST_TMPDIR/out" 2>&1 &
  local pid=$! i
  for i in $(seq 1 300); do
    [ "$(prop ActiveState)" = active ] && break
    sleep 0.1
  done
  [ "$(prop ActiveState)" = active ]
  timeout 60 systemctl stop "shimtest-$ID.scope"
  local rc=0
  wait "$pid" || rc=$?
  cat "$BATS_TEST_TMPDIR/out"
  [ "$rc" -eq 7 ]
  verdict=$(grep '^{"reason"' "$BATS_TEST_TMPDIR/out" | tail -n 1)
  [ "$(v .oom_killed)" = false ]
  [ "$(v .reason)" = Exited ]
  assert_scope_gone
}

@test "no cgroupsPath: the scope is shim-ID.scope in system.slice (runc's default is system.slice:runc:ID)" {
  local i
  ID=sd-default
  make_bundle sleeper
  shim_sd create --bundle "$BUNDLE" "$ID"
  systemctl show -p ActiveState -p Slice "shim-$ID.scope"
  [ "$(systemctl show -p ActiveState --value "shim-$ID.scope")" = active ]
  [ "$(systemctl show -p Slice --value "shim-$ID.scope")" = system.slice ]
  [ -d "$CGROOT/system.slice/shim-$ID.scope" ]
  [ ! -e "$CGROOT/shim/$ID" ]
  shim_sd delete --force "$ID"
  for i in $(seq 1 100); do
    [ "$(systemctl show -p LoadState --value "shim-$ID.scope")" = not-found ] && break
    sleep 0.1
  done
  [ "$(systemctl show -p LoadState --value "shim-$ID.scope")" = not-found ]
  [ ! -e "$CGROOT/system.slice/shim-$ID.scope" ]
  [ ! -e "$S/$ID" ]
}

@test "exec joins the scope" {
  ID=sd-exec
  sd_bundle sleeper
  shim_sd create --bundle "$BUNDLE" "$ID"
  "$SHIM" --root "$S" start "$ID"
  # init's cgroup namespace has the scope as its root: it was made once
  # init was in the scope, not at the clone (then init saw
  # `0::/../shimtest-sd-exec.scope`, its root the runtime's cgroup).
  run shim_sd exec "$ID" cat /proc/self/cgroup
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "0::/" ]
  # And from outside, exec's process is in the scope.
  run shim_sd exec "$ID" sh -c 'echo $$; sleep 0.5'
  [ "$status" -eq 0 ]
  shim_sd delete --force "$ID"
  assert_scope_gone
}

@test "init is in the scope before it runs anything: its first command sees the scope" {
  ID=sd-first
  # No cgroup namespace, so that /proc/self/cgroup names the host's path.
  # systemd makes the scope only after the clone (with init's pid): init
  # waits until then.
  sd_bundle sleeper 'del(.linux.namespaces[] | select(.type == "cgroup"))' \
    "$(args_filter /bin/cat /proc/self/cgroup)"
  # stderr apart: run may log that systemd removed the emptied scope
  # before its last read of the counters.
  run --separate-stderr shim_sd run --bundle "$BUNDLE" "$ID"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "0::/system.slice/shimtest-$ID.scope" ]
  assert_scope_gone
}

# OOMPolicy=kill (memory.oom.group kept by systemd itself) also means that
# systemd stops the whole scope after an OOM kill anywhere in its tree,
# a nested cgroup's too: systemd's rule for units.  Init, which the kernel
# did not take, then ends by systemd's SIGTERM: its own status, not an OOM
# kill of the container.
@test "an OOM kill in a nested cgroup of the scope: systemd stops the scope; init's exit is not OOMKilled" {
  ID=sd-nested
  local script='
    trap "exit 7" TERM
    cg=/sys/fs/cgroup
    mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
    echo +memory > $cg/cgroup.subtree_control
    mkdir $cg/sub
    echo 16777216 > $cg/sub/memory.max
    echo 0 > $cg/sub/memory.swap.max
    sh -c "echo \$\$ > $cg/sub/cgroup.procs; exec /bin/memhog -s 4"
    echo "nested status $?"
    sleep 600 & wait'
  sd_bundle memhog \
    '.mounts |= map(if .destination == "/sys/fs/cgroup" then .options = ["nosuid","noexec","nodev"] else . end)' \
    "$(args_filter /bin/sh -c "$script")"
  shim_sd create --bundle "$BUNDLE" "$ID" > "$BATS_TEST_TMPDIR/out" 2>&1
  "$SHIM" --root "$S" start "$ID"
  wait_stopped
  cat "$BATS_TEST_TMPDIR/out"
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  # systemd's SIGTERM may come before sh's echo: the kill is the verdict's.
  [ "$(v .oom_killed)" = false ]
  [ "$(v .reason)" = Exited ]
  [ "$(v .exit_code)" = 7 ]
  [ "$(v .oom.nested_kills)" -ge 1 ]
  [ "$(v '.oom.victims[0].cgroup')" = sub ]
  [ "$(annotation io.github.shim.oom-killed)" = false ]
  shim_sd delete "$ID"
  assert_scope_gone
}
