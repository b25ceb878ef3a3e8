# SPDX-License-Identifier: Apache-2.0
# Shared by the shim-oom-hook suites (load helpers first): bundles whose
# config.json carries config/oci-hooks.json pointed at this build, the
# verdict files, and the checks that nothing is left behind.  Run inside
# the VM (tests/vm/run), like every suite here.

HOOK=$ROOT_DIR/shim-oom-hook
# Where the hook keeps records and verdicts for this test (--dir).
VDIR=${VDIR:-$BATS_TEST_TMPDIR/verdicts}

# hook_bundle DIR ID JQ_FILTER...: examples/memhog/config.json (64 MiB,
# root.path made absolute) in DIR, in its own cgroup /shimhook-ID, with the
# hooks of config/oci-hooks.json (createRuntime + poststop) running this
# build with --dir $VDIR; then each jq filter.
hook_bundle() {
  local dir=$1 id=$2 f
  shift 2
  mkdir -p "$dir"
  local filter='.root.path = $rootfs | .linux.cgroupsPath = "/shimhook-" + $id
    | .hooks = ($frag[0].hooks
                | map_values(map(.path = $hook | .args = [.args[0], "--dir", $vdir, "--history-dir", $hist] + .args[1:])))'
  for f in "$@"; do filter="$filter | $f"; done
  jq --arg rootfs "$ROOTFS" --arg id "$id" --arg hook "$HOOK" --arg vdir "$VDIR" --arg hist "$SHIM_HISTORY_DIR" \
    --slurpfile frag "$ROOT_DIR/config/oci-hooks.json" "$filter" \
    "$ROOT_DIR/examples/memhog/config.json" >"$dir/config.json"
}

# argv_filter WORD...: a jq filter setting process.args to exactly these
# words (helpers.bash's args_filter splits a word at its newlines).
argv_filter() {
  printf '.process.args = %s' "$(jq -n -c '$ARGS.positional' --args -- "$@")"
}

# hv ID JQ: a field of container ID's stored verdict (jq -r, on .verdict).
hv() {
  jq -r ".verdict | $2" "$VDIR/$1/verdict.json"
}

# hdoc ID JQ: a field of the verdict file around the verdict.
hdoc() {
  jq -r "$2" "$VDIR/$1/verdict.json"
}

# wait_for_file FILE [TENTHS]: until FILE exists (default 20 s).
wait_for_file() {
  local i
  for i in $(seq 1 "${2:-200}"); do
    [ -e "$1" ] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $1" >&2
  return 1
}

# wait_for_text FILE TEXT: until FILE contains TEXT (20 s).
wait_for_text() {
  local i
  for i in $(seq 1 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1:" >&2
  cat "$1" >&2
  return 1
}

# show_verdict ID: the verdict file, for the test log when a check fails.
show_verdict() {
  echo "verdict of $1:" >&2
  cat "$VDIR/$1/verdict.json" >&2 2>/dev/null || echo "(none)" >&2
}

# No watcher of this test's --dir may outlive its containers.
assert_no_watchers() {
  local i
  # The watcher exits right after its last record; give it a moment.
  for i in $(seq 1 50); do
    pgrep -f -- "--dir $VDIR" >/dev/null || return 0
    sleep 0.1
  done
  echo "watchers left behind:" >&2
  pgrep -a -f -- "--dir $VDIR" >&2
  return 1
}
