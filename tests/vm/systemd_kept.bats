#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The verdict outlives podman's `rm` (history/, docs/DESIGN.md "Kept"):
# podman 4.3 with shim as its runtime, systemd as PID 1 (journald runs):
#
#   tests/vm/run -s -t 900 -- bats --tap tests/vm/systemd_kept.bats
#
# A memory hog and a kill -9 from outside each appear, after `podman rm`
# (and a memory hog after containerd deleted its task and container),
# in the journal with their fields and in `shim verdicts` by podman's name
# (from the hosts file podman writes).  podman's cleanup process calls the
# runtime's `delete` without podman's --runtime-flag and conmon passes the
# runtime no environment of podman's: the runtime here is a wrapper that
# names this file's history, as an operator's containers.conf would name
# a wrapper or rely on the default /var/lib/shim/history.

load helpers
load engine_helpers

setup_file() {
  require_cgroup2_memory
  [ "$(ps -p 1 -o comm=)" = systemd ] || { echo "systemd is not PID 1: run through tests/vm/run -s" >&2; return 1; }
  engine_setup
  export H=$BATS_FILE_TMPDIR/history
  printf '#!/bin/sh\nexec %s --history-dir %s "$@"\n' "$SHIM" "$H" >"$BATS_FILE_TMPDIR/shim-kept"
  chmod 0755 "$BATS_FILE_TMPDIR/shim-kept"
  export ENGINE_RUNTIME=$BATS_FILE_TMPDIR/shim-kept
  podman_configure
  engine_image --archive
  containerd_start
  C images import "$ENGINE_IMAGE_TAR" >/dev/null
}

teardown_file() {
  engine_teardown
}

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
  local ids
  ids=$(PK ps -aq --no-trunc)
  PK rm --all --force >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  assert_no_runtime_state /run/shim $ids
  ids=$(C containers ls -q)
  containerd_rm_containers shimtest
  # shellcheck disable=SC2086
  assert_no_runtime_state /run/containerd/runc/shimtest $ids
}

PK() {
  podman --cgroup-manager systemd --events-backend file --tmpdir "$ENGINE_DIR/podman/tmp" "$@"
}

# entry ID: the container's one journal entry (JSON), after a sync.
entry() {
  journalctl --sync
  journalctl -o json --no-pager SHIM_CONTAINER_ID="$1"
}

@test "podman: a memory hog, after podman rm: in shim verdicts by its name, and in the journal" {
  local id e
  run PK run --name hog --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  [ "$status" -eq 137 ]
  id=$(PK inspect -f '{{.Id}}' hog)
  PK rm hog
  run "$SHIM" --history-dir "$H" verdicts --json hog
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(jq -r 'length' <<<"$output")" -eq 1 ]
  [ "$(jq -r '.[0].id + " " + .[0].name + " " + .[0].verdict.reason' <<<"$output")" = "$id hog OOMKilled" ]
  [ "$(jq -r '.[0].verdict.oom_killed' <<<"$output")" = true ]
  e=$(entry "$id")
  echo "$e"
  [ "$(wc -l <<<"$e")" -eq 1 ]
  [ "$(jq -r '.SHIM_REASON + " " + .SHIM_OOM_KILLED + " " + .SHIM_CONTAINER_NAME + " " + .SHIM_SCOPE' <<<"$e")" \
    = "OOMKilled true hog container" ]
  [ "$(jq -r .SHIM_VICTIM_COMM <<<"$e")" = memhog ]
}

@test "podman: kill -9 from outside, after podman rm: Killed, not an OOM kill, in both" {
  local id pid e
  run PK run -d --name victim --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" \
    /bin/sh -c 'exec sleep 600'
  [ "$status" -eq 0 ]
  id=$output
  pid=$(PK inspect -f '{{.State.Pid}}' victim)
  kill -9 "$pid"
  run PK wait victim
  [ "$output" = 137 ]
  PK rm victim
  run "$SHIM" --history-dir "$H" verdicts --json victim
  echo "$output"
  [ "$(jq -r '.[0].id + " " + .[0].verdict.reason + " " + (.[0].verdict.oom_killed | tostring)' <<<"$output")" \
    = "$id Killed false" ]
  e=$(entry "$id")
  echo "$e"
  [ "$(jq -r '.SHIM_REASON + " " + .SHIM_OOM_KILLED + " " + .SHIM_SIGNAL' <<<"$e")" = "Killed false SIGKILL" ]
}

@test "containerd: a memory hog, after ctr run --rm deleted its task and container: in shim verdicts and the journal" {
  local e
  run C run --rm --runc-binary "$ENGINE_RUNTIME" --memory-limit 67108864 "$ENGINE_IMAGE" kept-hog \
    /bin/memhog -s 8 -n 256
  [ "$status" -eq 137 ]
  [ -z "$(C containers ls -q)" ]
  run "$SHIM" --history-dir "$H" verdicts --json kept-hog
  echo "$output"
  [ "$(jq -r '.[0].id + " " + .[0].verdict.reason + " " + .[0].source' <<<"$output")" = "kept-hog OOMKilled delete" ]
  e=$(entry kept-hog)
  echo "$e"
  [ "$(jq -r '.SHIM_REASON + " " + .SHIM_OOM_KILLED' <<<"$e")" = "OOMKilled true" ]
}
