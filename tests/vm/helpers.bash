# Shared by the VM suites: bundles built from the examples, shim run with
# --json, and the checks that nothing is left behind.  These tests need a
# pure cgroup v2 kernel with the memory controller: run them through
# tests/vm/run, never on a hybrid host.

ROOT_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SHIM=$ROOT_DIR/shim
ROOTFS=$ROOT_DIR/examples/rootfs
CGROOT=/sys/fs/cgroup
# The verdict history of every shim and hook a test runs is the test's
# own, never /var/lib/shim; no metrics unless a test asks.
export SHIM_HISTORY_DIR=$BATS_TEST_TMPDIR/history
unset SHIM_METRICS_DIR

# make_bundle NAME JQ_FILTER...: examples/NAME/config.json with root.path
# made absolute and each jq filter applied, in $BATS_TEST_TMPDIR/bundle.
make_bundle() {
  local name=$1; shift
  BUNDLE=$BATS_TEST_TMPDIR/bundle
  mkdir -p "$BUNDLE"
  local filter=".root.path = \"$ROOTFS\""
  local f
  for f in "$@"; do filter="$filter | $f"; done
  jq "$filter" "$ROOT_DIR/examples/$name/config.json" > "$BUNDLE/config.json"
}

# args_filter WORD...: a jq filter setting process.args.
args_filter() {
  # One JSON string per argument, newlines and leading dashes included
  # (jq 1.6 would take "-s" after --args for its own option).
  local a list=
  for a in "$@"; do
    list="$list${list:+,}$(jq -n --arg a "$a" '$a')"
  done
  printf '.process.args = [%s]' "$list"
}

# run_shim ID [run options...]: runs the bundle in the foreground with
# --json; sets $status, $output (stdout+stderr) and $verdict (the JSON line).
run_shim() {
  local id=$1; shift
  run "$SHIM" --root "$BATS_TEST_TMPDIR/state" run --json "$@" --bundle "$BUNDLE" "$id"
  verdict=$(printf '%s\n' "$output" | grep '^{"reason"' | tail -n 1)
}

# v FIELD: a field of the verdict, as jq prints it.
v() {
  printf '%s' "$verdict" | jq -r "$1"
}

require_cgroup2_memory() {
  [ "$(stat -f -c %T "$CGROOT")" = cgroup2fs ] || { echo "not a cgroup v2 host: run through tests/vm/run" >&2; return 1; }
  grep -qw memory "$CGROOT/cgroup.subtree_control" || { echo "memory controller not enabled at the root" >&2; return 1; }
}

# No cgroup, state dir or process of container ID may outlive the run.
assert_no_leftovers() {
  local id=$1
  if [ -e "$CGROOT/shim/$id" ]; then echo "cgroup $CGROOT/shim/$id left behind" >&2; return 1; fi
  if [ -e "$BATS_TEST_TMPDIR/state/$id" ]; then echo "state dir left behind" >&2; return 1; fi
  # Every shim process of the container, not only `run`: the watchers
  # that create and start leave keep their command line (`--root STATE
  # create ... ID`), and so do events and exec.  They end a moment after
  # the container: bounded wait, then whatever is left is reported.
  local pat="--root $BATS_TEST_TMPDIR/state .*$id\$" i
  for ((i = 0; i < 200; i++)); do
    pgrep -f -- "$pat" >/dev/null || return 0
    sleep 0.05
  done
  echo "shim processes left behind:" >&2
  pgrep -a -f -- "$pat" >&2
  return 1
}

# The state of container $ID under the --root $S (the create/start suites).
state_field() {
  "$SHIM" --root "$S" state "$ID" | jq -r "$1"
}

annotation() {
  state_field ".annotations[\"$1\"]"
}

# wait_stopped: bounded; init is an orphan once create exited.
wait_stopped() {
  local i
  for i in $(seq 1 600); do
    [ "$(state_field .status)" = stopped ] && return 0
    sleep 0.1
  done
  echo "container $ID never stopped: $(state_field .status)" >&2
  return 1
}

# require_systemd_pid1: the tests of the VM's systemd mode fail (on purpose,
# not skip) anywhere else.
require_systemd_pid1() {
  [ "$(ps -p 1 -o comm=)" = systemd ] || { echo "systemd is not PID 1: run through tests/vm/run -s" >&2; return 1; }
}

# wait_unit_gone UNIT: until systemd has unloaded UNIT (an inactive
# transient unit goes a moment after its stop), bounded; fails if it has not.
wait_unit_gone() {
  local i
  for i in $(seq 1 100); do
    [ "$(systemctl show -p LoadState --value "$1")" = not-found ] && return 0
    sleep 0.1
  done
  echo "unit $1 still loaded: $(systemctl show -p ActiveState --value "$1")" >&2
  return 1
}
