#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Issue 24's CRI client matrix with the cgroupfs driver (plain VM): each
# kind through containerd 1.6's CRI plugin, driven by tests/vm/cri_client.py
# as the kubelet drives it, under our shim v2 (asserted) and runc's v2 shim
# (recorded beside it).  See cri_matrix.bash; systemd_cri_matrix.bats is
# the same with SystemdCgroup = true.
#
#   tests/vm/run -- bats tests/vm/cri_matrix.bats

load helpers
load engine_helpers
load cri_matrix

setup_file() {
  cri_setup_file
}

teardown_file() {
  cri_teardown_file
}

setup() {
  require_cgroup2_memory
  [ "$CRI_DRIVER" = cgroupfs ] || { echo "systemd is PID 1: systemd_cri_matrix.bats is that driver's" >&2; return 1; }
}

@test "CRI, cgroupfs: init over its own limit: OOMKilled, 137, the verdict as Message; /tasks/oom once" {
  cri_kind_own_limit
}

@test "CRI, cgroupfs: a child OOM-killed while init lives, then StopContainer: Error, 143, no /tasks/oom (runc's shim: OOMKilled)" {
  cri_kind_child_then_stop
}

@test "CRI, cgroupfs: the pod's limit runs out: OOMKilled, 137, the Message naming the pod's cgroup" {
  cri_kind_pod_limit
}

@test "CRI, cgroupfs: kill -9 of init from outside: Error, 137, no /tasks/oom" {
  cri_kind_kill9
}

@test "CRI, cgroupfs: every pod and container removed, no shim of ours left, no container cgroup left" {
  cri_assert_nothing_left
}
