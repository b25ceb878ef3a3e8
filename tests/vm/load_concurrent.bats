#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# 32 `shim run`s at once on cgroup v2: 16 memory hogs (examples/memhog, 64
# MiB) and 16 containers killed with kill -9 from outside as soon as they
# are up.  Every verdict is told right under the load (OOMKilled by a
# group kill for each hog, Killed from outside for each kill -9, never the
# other), and nothing is left behind.  Then 32 create/start/kill/delete
# lifecycles at once.  Kept small: qemu TCG is slow.

load helpers

N=16

setup() {
  require_cgroup2_memory
  STATE=$BATS_TEST_TMPDIR/state
}

# bundle DIR JQ_FILTER...: examples/memhog's config.json in DIR.
bundle() {
  local dir=$1 filter=".root.path = \"$ROOTFS\"" f
  shift
  for f in "$@"; do filter="$filter | $f"; done
  mkdir -p "$dir"
  jq "$filter" "$ROOT_DIR/examples/memhog/config.json" >"$dir/config.json"
}

# start ID: `shim run --json` of bundle $BATS_TEST_TMPDIR/ID in the
# background; its output in ID.out, its exit status in ID.rc.
start() {
  local rc=0
  "$SHIM" --root "$STATE" run --json --bundle "$BATS_TEST_TMPDIR/$1" "$1" \
    </dev/null >"$BATS_TEST_TMPDIR/$1.out" 2>&1 3>&- || rc=$?
  echo "$rc" >"$BATS_TEST_TMPDIR/$1.rc"
}

# verdict_of ID JQ: a field of container ID's verdict line.
verdict_of() {
  grep '^{"reason"' "$BATS_TEST_TMPDIR/$1.out" | tail -n 1 | jq -r "$2"
}

@test "16 memory hogs and 16 kill -9s at once: every verdict right, nothing left" {
  local k i id pids=() bad=() got want init
  for ((k = 1; k <= N; k++)); do
    bundle "$BATS_TEST_TMPDIR/hog-$k"
    bundle "$BATS_TEST_TMPDIR/kill-$k" "$(args_filter /bin/sh -c 'echo ready; exec sleep 600')"
  done
  for ((k = 1; k <= N; k++)); do
    start "hog-$k" &
    pids+=($!)
    start "kill-$k" &
    pids+=($!)
  done
  # Each kill -9 as soon as its container is up, while the hogs run.
  for ((k = 1; k <= N; k++)); do
    id=kill-$k
    for ((i = 0; i < 1200; i++)); do
      grep -q ready "$BATS_TEST_TMPDIR/$id.out" 2>/dev/null && break
      sleep 0.1
    done
    init=$("$SHIM" --root "$STATE" state "$id" 2>/dev/null | jq -r .pid) || init=
    if [ -n "$init" ] && [ "$init" != null ] && [ "$init" -gt 0 ]; then
      kill -9 "$init"
    else
      bad+=("$id did not get up: $(cat "$BATS_TEST_TMPDIR/$id.out")")
      # Already a failure; the wait below must not last the sleep's 600 s.
      "$SHIM" --root "$STATE" kill "$id" KILL 2>/dev/null || true
    fi
  done
  for k in "${pids[@]}"; do
    wait "$k"
  done
  for ((k = 1; k <= N; k++)); do
    got="$(cat "$BATS_TEST_TMPDIR/hog-$k.rc") $(verdict_of "hog-$k" \
      '[.reason, .oom_killed, .oom.scope, .oom.group_kill, .signal, .killed_by] | map(tostring) | join(" ")')"
    want="137 OOMKilled true container true SIGKILL null"
    [ "$got" = "$want" ] || bad+=("hog-$k: \"$got\", want \"$want\": $(tail -n 3 "$BATS_TEST_TMPDIR/hog-$k.out")")
    got="$(cat "$BATS_TEST_TMPDIR/kill-$k.rc") $(verdict_of "kill-$k" \
      '[.reason, .oom_killed, .signal, .killed_by] | map(tostring) | join(" ")')"
    want="137 Killed false SIGKILL outside"
    [ "$got" = "$want" ] || bad+=("kill-$k: \"$got\", want \"$want\": $(tail -n 3 "$BATS_TEST_TMPDIR/kill-$k.out")")
  done
  for ((k = 1; k <= N; k++)); do
    assert_no_leftovers "hog-$k" || bad+=("hog-$k left something behind (above)")
    assert_no_leftovers "kill-$k" || bad+=("kill-$k left something behind (above)")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf '%s\n' "${bad[@]}" >&2
    false
  fi
  [ -z "$(ls -A "$STATE")" ]
}

# cycle ID: create, start, kill -9 from the runtime, wait for stopped,
# delete; its log in ID.log, its exit status in ID.rc.
cycle() {
  local id=$1 rc=0 i
  exec </dev/null >"$BATS_TEST_TMPDIR/$id.log" 2>&1 3>&-
  "$SHIM" --root "$STATE" create --bundle "$BATS_TEST_TMPDIR/$id" "$id" &&
    "$SHIM" --root "$STATE" start "$id" &&
    "$SHIM" --root "$STATE" kill "$id" KILL || rc=$?
  for ((i = 0; rc == 0 && i < 600; i++)); do
    [ "$("$SHIM" --root "$STATE" state "$id" | jq -r .status)" = stopped ] && break
    sleep 0.1
  done
  [ "$rc" -ne 0 ] || "$SHIM" --root "$STATE" delete "$id" || rc=$?
  echo "$rc" >"$BATS_TEST_TMPDIR/$id.rc"
}

@test "32 concurrent create, start, kill -9 and delete on cgroup v2: all succeed, nothing left" {
  local k pids=() bad=()
  for ((k = 1; k <= 2 * N; k++)); do
    bundle "$BATS_TEST_TMPDIR/cycle-$k" "$(args_filter /bin/sleep 600)"
  done
  for ((k = 1; k <= 2 * N; k++)); do
    cycle "cycle-$k" &
    pids+=($!)
  done
  for k in "${pids[@]}"; do
    wait "$k"
  done
  for ((k = 1; k <= 2 * N; k++)); do
    [ "$(cat "$BATS_TEST_TMPDIR/cycle-$k.rc")" = 0 ] ||
      bad+=("cycle-$k: exit status $(cat "$BATS_TEST_TMPDIR/cycle-$k.rc"): $(cat "$BATS_TEST_TMPDIR/cycle-$k.log")")
    assert_no_leftovers "cycle-$k" || bad+=("cycle-$k left something behind (above)")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf '%s\n' "${bad[@]}" >&2
    false
  fi
  [ -z "$(ls -A "$STATE")" ]
}
