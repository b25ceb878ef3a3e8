#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The verdict when shim is not init's parent: `create` + `start` as the
# engines call them, then `state`, `events`, podman's <bundle>/oom marker
# and `delete`.  The container's death is only known through the watcher
# that `create` armed and the signals `kill` recorded.

load helpers

setup() {
  require_cgroup2_memory
  S=$BATS_TEST_TMPDIR/state
  EVENTS_PID=
}

teardown() {
  [ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null || true
  "$SHIM" --root "$S" delete --force "$ID" 2>/dev/null || true
}

# lc_create ID: `create` with a pid file, as podman does.
lc_create() {
  ID=$1
  "$SHIM" --root "$S" create --bundle "$BUNDLE" --pid-file "$BATS_TEST_TMPDIR/pid" "$ID"
  [ "$(state_field .status)" = created ]
}

# events_subscribed PID: `shim events` (PID) reports what happens from its
# baseline on; it opens cgroup.events last, right before its loop.  Until
# then an OOM kill is not news to it (seen once under TCG: a hog killed
# before `events` had read its baseline).
events_subscribed() {
  timeout 60 sh -c 'until ls -l "/proc/$1/fd" 2>/dev/null | grep -q "/cgroup.events$"; do sleep 0.05; done' _ "$1"
}

@test "create/start of a memory hog: state says OOMKilled, events says oom, <bundle>/oom exists" {
  make_bundle memhog
  lc_create lc-hog
  [ ! -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" events "$ID" >"$BATS_TEST_TMPDIR/events" &
  EVENTS_PID=$!
  events_subscribed "$EVENTS_PID"
  "$SHIM" --root "$S" start "$ID"
  wait_stopped
  # events ends by itself when the cgroup empties.
  wait "$EVENTS_PID"
  EVENTS_PID=
  grep -qx '{"type":"oom","id":"lc-hog"}' "$BATS_TEST_TMPDIR/events"
  [ "$(annotation io.github.shim.reason)" = OOMKilled ]
  [ "$(annotation io.github.shim.oom-killed)" = true ]
  verdict=$(annotation io.github.shim.verdict)
  [ "$(v .oom.scope)" = container ]
  [ "$(v .memory_limit)" = 67108864 ]
  [ "$(v .killed_by)" = null ]
  [ -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" delete "$ID"
  assert_no_leftovers "$ID"
}

@test "shim kill KILL of a running container: Killed by the runtime, no oom event, no <bundle>/oom" {
  make_bundle sleeper
  lc_create lc-kill
  "$SHIM" --root "$S" events "$ID" >"$BATS_TEST_TMPDIR/events" &
  EVENTS_PID=$!
  events_subscribed "$EVENTS_PID"
  "$SHIM" --root "$S" start "$ID"
  [ "$(state_field .status)" = running ]
  "$SHIM" --root "$S" kill "$ID" KILL
  wait_stopped
  wait "$EVENTS_PID"
  EVENTS_PID=
  # Not `! grep`: errexit ignores a negated command, so it could never fail.
  run grep -c '"type":"oom"' "$BATS_TEST_TMPDIR/events"
  [ "$output" = 0 ]
  [ "$(annotation io.github.shim.reason)" = Killed ]
  [ "$(annotation io.github.shim.oom-killed)" = false ]
  verdict=$(annotation io.github.shim.verdict)
  [ "$(v .killed_by)" = runtime ]
  [ ! -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" delete "$ID"
  assert_no_leftovers "$ID"
}

# wait_record_group_kill: until the watcher's record counts a group kill
# in the container's own cgroup (bounded).
wait_record_group_kill() {
  local i n
  for i in $(seq 1 300); do
    n=$(jq -r '.last["memory.events.local"].oom_group_kill // 0' "$S/$ID/record.json" 2>/dev/null)
    [ "${n:-0}" -ge 1 ] && return 0
    sleep 0.1
  done
  echo "the watcher's record never counted a group kill" >&2
  return 1
}

# The kernel's group kill skips a task with oom_score_adj -1000: init lives
# on.  The child raises its own score (allowed without privilege) so that
# the OOM killer has a victim.
@test "a group OOM kill that skips init (oom_score_adj -1000): no <bundle>/oom while init lives; shim kill KILL is not an OOM kill" {
  make_bundle memhog '.process.oomScoreAdj = -1000' \
    "$(args_filter /bin/sh -c 'sh -c "echo 0 >/proc/self/oom_score_adj; exec /bin/memhog -s 8"; exec sleep 600')"
  lc_create lc-skip
  "$SHIM" --root "$S" start "$ID"
  wait_record_group_kill
  [ "$(state_field .status)" = running ]
  [ ! -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" kill "$ID" KILL
  wait_stopped
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  [ "$(v .oom_killed)" = false ]
  [ "$(v .killed_by)" = runtime ]
  [ "$(v .oom.group_kill)" = true ]
  [[ "$(v .message)" == *"init (host pid "*") is not"* ]]
  [ ! -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" delete "$ID"
  assert_no_leftovers "$ID"
}

@test "kill -9 from outside after create/start: not OOMKilled; Killed from outside, with init's exit status on every kernel" {
  make_bundle sleeper
  lc_create lc-outside
  "$SHIM" --root "$S" start "$ID"
  kill -9 "$(cat "$BATS_TEST_TMPDIR/pid")"
  wait_stopped
  [ "$(annotation io.github.shim.oom-killed)" = false ]
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  # The watcher reads init's status through its pidfd (6.15+) or the
  # kernel's taskstats record of its exit (before).
  [ "$(v .reason)" = Killed ]
  [ "$(v .killed_by)" = outside ]
  [ "$(v .exit_code)" = 137 ]
  [ "$(v .signal)" = SIGKILL ]
  [[ "$(v .message)" == *"was killed by SIGKILL from outside the runtime (not an OOM kill"* ]]
  [ ! -e "$BUNDLE/oom" ]
  "$SHIM" --root "$S" delete "$ID"
  assert_no_leftovers "$ID"
}

@test "the watcher outlives a removed cgroup: delete after the cgroup is gone still has the verdict" {
  make_bundle memhog
  lc_create lc-gone
  "$SHIM" --root "$S" start "$ID"
  wait_stopped
  # What systemd or an engine may do before anyone asks.
  cg=$(jq -r .cgroup_path "$S/$ID/state.json" 2>/dev/null || true)
  # Two commands: only the last of an && list can fail the test.
  [ -n "$cg" ]
  [ "$cg" != null ]
  rmdir "$CGROOT$cg"
  [ "$(annotation io.github.shim.reason)" = OOMKilled ]
  "$SHIM" --root "$S" delete "$ID"
  assert_no_leftovers "$ID"
}
