#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# containerd 1.6 (Debian's, started here from config/containerd/config.toml)
# and its runc v2 shim with $ENGINE_RUNTIME as the runc binary
# (`ctr run --runc-binary`): run, run -d + exec + kill, and `ctr events`:
# /tasks/oom for a memory hog's container, none for `ctr task kill -s
# SIGKILL`.  The image is the example rootfs, saved by podman as a
# docker-archive and imported with `ctr images import`.

load helpers
load engine_helpers

# ctr run with the runtime under test.
crun_() {
  C run --runc-binary "$ENGINE_RUNTIME" "$@"
}

setup_file() {
  require_cgroup2_memory
  engine_setup
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  C images import "$ENGINE_IMAGE_TAR" >/dev/null
}

teardown_file() {
  engine_teardown
}

setup() {
  require_cgroup2_memory
  containerd_events_start
}

teardown() {
  containerd_events_stop
  local ids
  ids=$(C containers ls -q)
  containerd_rm_containers shimtest
  # shellcheck disable=SC2086
  assert_no_runtime_state /run/containerd/runc/shimtest $ids
  containerd_assert_no_cgroups
}

@test "containerd: config.toml's runtime shim has BinaryName = the runtime under test" {
  run containerd --config "$CONTAINERD_CONFIG" config dump
  echo "$output" | head -n 20
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" | grep -F -A 30 '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.shim]' \
    | grep -F -m1 'BinaryName' | grep -F "\"$ENGINE_RUNTIME\""
  printf '%s\n' "$output" | grep -F 'default_runtime_name = "shim"'
  # The CRI plugin took that configuration.
  run ctr --address "$CONTAINERD_SOCK" plugins ls
  printf '%s\n' "$output" | grep -E 'cri|runtime'
  [ "$(printf '%s\n' "$output" | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $NF }')" = ok ]
}

@test "ctr run --rm --runc-binary: output and exit code" {
  run crun_ --rm "$ENGINE_IMAGE" hello /bin/sh -c 'echo "hello from pid 1 $(cat /proc/1/comm)"; exit 3'
  echo "$output"
  [ "$status" -eq 3 ]
  [ "$output" = "hello from pid 1 sh" ]
  engine_wait_for_text "$EVENTS" '/tasks/exit {"container_id":"hello"'
  grep -F '/tasks/exit {"container_id":"hello"' "$EVENTS" | grep -F '"exit_status":3'
  [ -z "$(C containers ls -q)" ]
  assert_no_runtime_state /run/containerd/runc/shimtest hello
}

@test "ctr run -d, task exec, task kill -s SIGKILL: /tasks/exit 137 and no /tasks/oom" {
  run crun_ -d --memory-limit 67108864 "$ENGINE_IMAGE" victim /bin/sh -c 'echo ready; exec sleep 600'
  [ "$status" -eq 0 ]
  wait_for_cmd 300 sh -c "ctr --address $CONTAINERD_SOCK -n shimtest tasks ls | grep -E '^victim +[0-9]+ +RUNNING'"

  # In the container's pid namespace: its pid 1 is the sleep.
  run C tasks exec --exec-id probe victim /bin/sh -c 'echo "pid 1 is $(tr "\0" " " </proc/1/cmdline)"; exit 5'
  echo "$output"
  [ "$status" -eq 5 ]
  [ "$output" = "pid 1 is sleep 600 " ]

  run C tasks kill -s SIGKILL victim
  [ "$status" -eq 0 ]
  engine_wait_for_text "$EVENTS" '/tasks/exit {"container_id":"victim","id":"victim"'
  grep -F '/tasks/exit {"container_id":"victim","id":"victim"' "$EVENTS" | grep -F '"exit_status":137'
  # The runc shim publishes OOM events from its cgroup watcher, before the
  # exit it causes; the task's delete comes after both.
  C tasks delete victim
  engine_wait_for_text "$EVENTS" '/tasks/delete {"container_id":"victim"'
  if grep -F '/tasks/oom {"container_id":"victim"' "$EVENTS"; then
    echo "a /tasks/oom for a container killed with SIGKILL" >&2
    return 1
  fi
}

@test "containerd: a memory hog under --memory-limit gets /tasks/oom, exit 137" {
  run crun_ --rm --memory-limit 67108864 "$ENGINE_IMAGE" hog /bin/memhog -s 8 -n 256
  echo "$output"
  [ "$status" -eq 137 ]
  engine_wait_for_text "$EVENTS" '/tasks/oom {"container_id":"hog"}'
  grep -F '/tasks/exit {"container_id":"hog","id":"hog"' "$EVENTS" | grep -F '"exit_status":137'
}
