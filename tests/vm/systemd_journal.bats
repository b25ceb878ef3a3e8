#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Every final verdict in the systemd journal (history/journal.c): a memory
# hog and a kill -9 each appear in `journalctl -o json` with the SHIM_*
# fields, and `journalctl SHIM_OOM_KILLED=true` lists the OOM kill only.
# Runs inside the VM with systemd as PID 1 (journald):
#
#   tests/vm/run -s -t 600 -- bats --tap tests/vm/systemd_journal.bats

load helpers

# entries ID [MATCH...]: the journal's entries of container ID as JSON
# lines.  journald writes what it received before it answers a reader's
# sync, so `--sync` first: no sleep.
entries() {
  local id=$1; shift
  journalctl --sync
  journalctl -o json --no-pager SHIM_CONTAINER_ID="$id" "$@"
}

# fields ENTRY KEY=VALUE...: each field of the journal entry (JSON) has
# its value; every mismatch is printed.
fields() {
  local e=$1 kv got bad=0; shift
  for kv; do
    got=$(jq -r --arg k "${kv%%=*}" '.[$k]' <<<"$e")
    [ "$got" = "${kv#*=}" ] || { echo "${kv%%=*}: want ${kv#*=}, got $got" >&2; bad=1; }
  done
  return $bad
}

setup() {
  [ -S /run/systemd/journal/socket ] || { echo "no journald: run with tests/vm/run -s" >&2; return 1; }
  require_cgroup2_memory
}

@test "a memory hog: one entry, warning, with the OOM fields; SHIM_OOM_KILLED=true finds it" {
  local id=jhog-$$ e
  make_bundle memhog
  run_shim "$id"
  [ "$status" -eq 137 ]
  e=$(entries "$id")
  [ "$(wc -l <<<"$e")" -eq 1 ]
  fields "$e" SHIM_REASON=OOMKilled SHIM_OOM_KILLED=true SHIM_SCOPE=container SHIM_EXIT_CODE=137 \
    SHIM_SIGNAL=SIGKILL SHIM_MEMORY_LIMIT=67108864 SHIM_MEMORY_PEAK="$(v .memory_peak)" \
    SHIM_VICTIM_COMM=memhog SHIM_VICTIM_PID="$(v '.oom.victims[0].pid')" PRIORITY=4 SYSLOG_IDENTIFIER=shim
  # The verdict field is the verdict `run --json` printed: the line's
  # verdict part, without run's own "warnings" and "error".
  [ "$(jq -r .SHIM_VERDICT <<<"$e" | jq -c .)" = "$(jq -c 'del(.warnings, .error)' <<<"$verdict")" ]
  [[ "$(jq -r .MESSAGE <<<"$e")" == "container $id: "*"OOM-killed"* ]]
  [ "$(entries "$id" SHIM_OOM_KILLED=true | wc -l)" -eq 1 ]
  assert_no_leftovers "$id"
}

@test "kill -9 from outside of a detached container: its delete's verdict, notice, not an OOM kill" {
  local id=jkill-$$ s=$BATS_TEST_TMPDIR/state e pid
  make_bundle sleeper
  "$SHIM" --root "$s" run --detach --bundle "$BUNDLE" "$id" </dev/null >/dev/null 2>&1
  pid=$("$SHIM" --root "$s" state "$id" | jq -r .pid)
  kill -9 "$pid"
  timeout 20 sh -c 'until [ "$("$1" --root "$2" state "$3" | jq -r .status)" = stopped ]; do sleep 0.05; done' \
    _ "$SHIM" "$s" "$id"
  "$SHIM" --root "$s" delete "$id"
  e=$(entries "$id")
  [ "$(wc -l <<<"$e")" -eq 1 ]
  fields "$e" SHIM_REASON=Killed SHIM_OOM_KILLED=false SHIM_SIGNAL=SIGKILL PRIORITY=5 SHIM_SOURCE=delete
  [ "$(entries "$id" SHIM_OOM_KILLED=true | wc -l)" -eq 0 ]
  # The history has it too, after the delete.
  [ "$("$SHIM" verdicts --json "$id" | jq -r '.[0].verdict.reason')" = Killed ]
  assert_no_leftovers "$id"
}
