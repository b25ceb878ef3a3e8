#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# Kubernetes through containerd's CRI plugin with SystemdCgroup = true, as
# far as it goes without a kubelet: the pod's sandbox and a container with
# the config.json containerd writes (tests/vm/cri-container.json, see
# cri_helpers.bash), run by shim --systemd-cgroup as containerd's runc v2
# shim runs its runtime (create, start, state, delete), with systemd as
# PID 1.  Run INSIDE the VM's systemd mode:
#
#   tests/vm/run -s -- bats tests/vm/systemd_cri_shape.bats
#
# Anywhere else it fails (on purpose, not skip).

load helpers
load cri_helpers
bats_require_minimum_version 1.5.0

setup() {
  require_cgroup2_memory
  require_systemd_pid1
  S=$BATS_TEST_TMPDIR/state
  ID=$CONTAINER_ID
  POD_CG=$CGROOT/kubepods.slice/kubepods-burstable.slice/$POD_SLICE
}

teardown() {
  local id
  for id in "$CONTAINER_ID" "$SANDBOX_ID"; do
    "$SHIM" --root "$S" --systemd-cgroup delete --force "$id" 2>/dev/null || true
  done
  # kubelet's, not the runtime's: systemd made them for the scopes' Slice=.
  systemctl stop kubepods.slice 2>/dev/null || true
}

shim_sd() {
  "$SHIM" --root "$S" --systemd-cgroup "$@"
}

scope_prop() {
  systemctl show -p "$2" --value "cri-containerd-$1.scope"
}

# The scope of container $1 is gone: its unit and its cgroup.
scope_gone() {
  wait_unit_gone "cri-containerd-$1.scope" && [ -z "$(find "$CGROOT" -name "cri-containerd-$1.scope")" ]
}

# start_sandbox: the host files, the pod's sandbox running ($SPID its
# init), $BUNDLE the container's config joining its namespaces.
start_sandbox() {
  cri_host_setup
  cri_sandbox_bundle
  shim_sd create --bundle "$SANDBOX_BUNDLE" --pid-file "$BATS_TEST_TMPDIR/sandbox.pid" "$SANDBOX_ID"
  shim_sd start "$SANDBOX_ID"
  SPID=$(cat "$BATS_TEST_TMPDIR/sandbox.pid")
  cri_bundle "$SPID"
}

# pod_gone: the sandbox stopped and deleted, then nothing of the pod's
# containers is left: no scope unit, no cgroup in the pod's slice, no state.
pod_gone() {
  shim_sd kill "$SANDBOX_ID" KILL
  ID=$SANDBOX_ID wait_stopped
  shim_sd delete "$SANDBOX_ID"
  scope_gone "$SANDBOX_ID"
  run systemctl list-units --type scope --all --plain --no-legend --no-pager 'cri-containerd-*'
  echo "$output"
  [ -z "$output" ]
  [ -z "$(find "$POD_CG" -mindepth 1 -type d)" ]
  [ -z "$(ls -A "$S")" ]
}

@test "CRI shape: the pod's scopes under its kubepods slice, memhog OOMKilled, the termination-log holds the verdict, nothing left" {
  start_sandbox

  shim_sd create --bundle "$BUNDLE" --pid-file "$BATS_TEST_TMPDIR/pid" "$ID"
  # The scope systemd made, in the pod's slice, which systemd placed under
  # kubepods.slice/kubepods-burstable.slice from its name.
  systemctl show -p ActiveState -p Slice -p ControlGroup -p MemoryMax -p MemorySwapMax -p Delegate \
    "cri-containerd-$ID.scope"
  [ "$(scope_prop "$ID" ActiveState)" = active ]
  [ "$(scope_prop "$ID" Slice)" = "$POD_SLICE" ]
  [ "$(scope_prop "$ID" ControlGroup)" = "/kubepods.slice/kubepods-burstable.slice/$POD_SLICE/cri-containerd-$ID.scope" ]
  [ "$(scope_prop "$ID" Delegate)" = yes ]
  [ "$(scope_prop "$ID" MemoryMax)" = 33554432 ]
  [ "$(scope_prop "$ID" MemorySwapMax)" = 0 ]
  [ "$(cat "$POD_CG/cri-containerd-$ID.scope/cgroup.procs")" = "$(cat "$BATS_TEST_TMPDIR/pid")" ]
  [ "$(scope_prop "$SANDBOX_ID" ControlGroup)" = "/kubepods.slice/kubepods-burstable.slice/$POD_SLICE/cri-containerd-$SANDBOX_ID.scope" ]
  # The sandbox's namespaces were joined, the state carries CRI's annotations.
  [ "$(readlink "/proc/$(cat "$BATS_TEST_TMPDIR/pid")/ns/net")" = "$(readlink "/proc/$SPID/ns/net")" ]
  [ "$(state_field '.annotations["io.kubernetes.cri.container-type"]')" = container ]
  [ "$(state_field '.annotations["io.kubernetes.cri.sandbox-id"]')" = "$SANDBOX_ID" ]

  shim_sd start "$ID"
  wait_stopped
  verdict=$(annotation io.github.shim.verdict)
  echo "$verdict"
  [ "$(annotation io.github.shim.reason)" = OOMKilled ]
  [ "$(v .memory_limit)" = 33554432 ]
  # What kubelet would show as the termination message: the verdict's
  # line, written by shim because memhog left the file empty.
  echo "termination-log: $(cat "$TERMINATION_LOG")"
  [ "$(wc -l <"$TERMINATION_LOG")" -eq 1 ]
  [[ "$(cat "$TERMINATION_LOG")" == "container $ID was OOM-killed"*": it hit its 32 MiB memory limit"* ]]

  shim_sd delete "$ID"
  scope_gone "$ID"
  [ "$(wc -l <"$TERMINATION_LOG")" -eq 1 ]
  pod_gone
}

@test "CRI shape, foreground run: the termination-log holds the message exactly when the verdict says OOM-killed" {
  start_sandbox
  run shim_sd run --json --bundle "$BUNDLE" "$ID"
  verdict=$(printf '%s\n' "$output" | grep '^{"reason"' | tail -n 1)
  echo "$verdict"
  [ "$status" -eq 137 ]
  echo "termination-log: $(cat "$TERMINATION_LOG")"
  # systemd removes the scope the moment the group kill empties it, at
  # times before run's last read (systemd_scope.bats): then the verdict is
  # null, never false, and nothing is written.
  if [ "$(v .oom_killed)" = true ]; then
    [ "$(cat "$TERMINATION_LOG")" = "$(v .message)" ]
  else
    [ "$(v .oom_killed)" = null ]
    [ ! -s "$TERMINATION_LOG" ]
  fi
  scope_gone "$ID"
  pod_gone
}
