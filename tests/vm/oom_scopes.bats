#!/usr/bin/env bats
# Whose OOM was it?  A kill in a cgroup the container made below its own is
# not the container's death; a parent's limit running out is, with scope
# "ancestor".  (docs/DESIGN.md's measured table, rows 3 and 4.)

load helpers

setup() {
  require_cgroup2_memory
}

teardown() {
  if [ -d "$CGROOT/shimtest-parent" ]; then
    rmdir "$CGROOT/shimtest-parent"
  fi
}

# The container's own cgroup namespace, with a writable cgroup2 mount so it
# can delegate below itself.
writable_cgroup='.mounts |= map(if .destination == "/sys/fs/cgroup" then .options = ["nosuid","noexec","nodev"] else . end)'

@test "an OOM kill only in a nested cgroup, then kill -9: Killed with nested_kills" {
  local script='
    cg=/sys/fs/cgroup
    mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
    echo +memory > $cg/cgroup.subtree_control
    mkdir $cg/sub
    echo 16777216 > $cg/sub/memory.max
    echo 0 > $cg/sub/memory.swap.max
    echo 1 > $cg/sub/memory.oom.group
    sh -c "echo \$\$ > $cg/sub/cgroup.procs; exec /bin/memhog -s 4"
    echo "nested status $?"
    exec sleep 600'
  make_bundle memhog "$writable_cgroup" "$(args_filter /bin/sh -c "$script")"
  "$SHIM" --root "$BATS_TEST_TMPDIR/state" run --json --bundle "$BUNDLE" nested \
    > "$BATS_TEST_TMPDIR/out" 2>&1 &
  local shim_pid=$! init=
  for _ in $(seq 1 400); do
    grep -q "nested status" "$BATS_TEST_TMPDIR/out" && break
    sleep 0.05
  done
  grep -q "nested status 137" "$BATS_TEST_TMPDIR/out"
  init=$(pgrep -P "$shim_pid")
  kill -9 "$init"
  status=0
  wait "$shim_pid" || status=$?
  [ "$status" -eq 137 ]
  verdict=$(grep '^{"reason"' "$BATS_TEST_TMPDIR/out")
  [ "$(v .reason)" = Killed ]
  [ "$(v .oom_killed)" = false ]
  [ "$(v .oom.nested_kills)" -ge 1 ]
  [ "$(v .killed_by)" = outside ]
  assert_no_leftovers nested
}

@test "a parent cgroup's smaller limit running out is OOMKilled, scope ancestor" {
  mkdir "$CGROOT/shimtest-parent"
  echo 33554432 > "$CGROOT/shimtest-parent/memory.max"
  echo 0 > "$CGROOT/shimtest-parent/memory.swap.max"
  make_bundle memhog '.linux.cgroupsPath = "/shimtest-parent/anc"'
  run_shim anc
  [ "$status" -eq 137 ]
  [ "$(v .reason)" = OOMKilled ]
  [ "$(v .oom.scope)" = ancestor ]
  [ "$(v .memory_limit)" = 67108864 ]
  [[ "$(v .message)" == *"parent"* ]]
  [ ! -e "$CGROOT/shimtest-parent/anc" ]
}
