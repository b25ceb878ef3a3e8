#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Issue 24's CRI client matrix with the systemd driver (runc's SystemdCgroup
# = true, the pods' cgroup parents systemd slices), in the VM's systemd mode:
# cri_matrix.bats's kinds, the containers' cgroups transient scopes that
# systemd makes (and removes the moment they empty).  Anywhere but under
# systemd as PID 1 it fails (on purpose, not skip).
#
#   tests/vm/run -s -- bats tests/vm/systemd_cri_matrix.bats

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
  require_systemd_pid1
}

@test "CRI, systemd: init over its own limit: OOMKilled, 137, the verdict as Message; /tasks/oom once" {
  cri_kind_own_limit
}

@test "CRI, systemd: a child OOM-killed while init lives, then StopContainer: Error, 143, no /tasks/oom (runc's shim: OOMKilled)" {
  cri_kind_child_then_stop
}

@test "CRI, systemd: the pod's limit runs out: OOMKilled, 137, the Message naming the pod's cgroup" {
  cri_kind_pod_limit
}

@test "CRI, systemd: kill -9 of init from outside: Error, 137, no /tasks/oom" {
  cri_kind_kill9
}

@test "CRI, systemd: every pod and container removed, no shim of ours left, no container cgroup left" {
  cri_assert_nothing_left
}
