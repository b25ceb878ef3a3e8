#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Docker 20.10 (Debian's docker.io) with $ENGINE_RUNTIME as the runtime
# "shim" of config/docker/daemon.json (engine_helpers.bash: dockerd on the
# containerd started here, vfs, no iptables, no bridge): run, run -d +
# exec + stop + rm, and State.OOMKilled true for a memory hog only, false
# for `docker kill`.  The image is the example rootfs saved by podman as a
# docker-archive, `docker load`ed.

load helpers
load engine_helpers

drun() {
  D run --runtime shim --network none "$@"
}

setup_file() {
  require_cgroup2_memory
  engine_setup
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  dockerd_start
  D load -i "$ENGINE_IMAGE_TAR" >/dev/null
}

teardown_file() {
  engine_teardown
}

setup() {
  require_cgroup2_memory
}

teardown() {
  local ids
  ids=$(D ps -aq --no-trunc)
  # shellcheck disable=SC2086
  [ -z "$ids" ] || D rm --force $ids >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  assert_no_runtime_state /run/docker/runtime-runc/moby $ids
  local left
  left=$(find "$CGROOT/docker" -mindepth 1 -type d 2>/dev/null)
  if [ -n "$left" ]; then
    echo "container cgroups left behind: $left" >&2
    return 1
  fi
}

@test "docker: daemon.json's runtime shim is the one under test" {
  run D info --format '{{json .Runtimes}}'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(printf '%s' "$output" | jq -r .shim.path)" = "$ENGINE_RUNTIME" ]
}

@test "docker run --rm --runtime shim: output and exit code" {
  run drun --rm "$ENGINE_IMAGE" /bin/sh -c 'echo "hello from pid 1 $(cat /proc/1/comm)"; exit 3'
  echo "$output"
  [ "$status" -eq 3 ]
  [ "$output" = "hello from pid 1 sh" ]
  [ -z "$(D ps -aq)" ]
}

@test "docker run -d, exec, stop, rm" {
  run drun -d --name svc "$ENGINE_IMAGE" \
    /bin/sh -c 'trap "echo got TERM; exit 0" TERM; echo ready; sleep 600 & wait'
  [ "$status" -eq 0 ]
  local id=$output
  [ "$(D inspect -f '{{.HostConfig.Runtime}} {{.State.Status}}' svc)" = "shim running" ]

  run D exec svc /bin/sh -c 'echo "pid 1 is $(tr "\0" " " </proc/1/cmdline)"; exit 5'
  echo "$output"
  [ "$status" -eq 5 ]
  [ "$output" = "pid 1 is /bin/sh -c trap \"echo got TERM; exit 0\" TERM; echo ready; sleep 600 & wait " ]

  run D exec -e FOO=bar -w /tmp svc /bin/sh -c 'echo "$FOO $(pwd)"'
  [ "$output" = "bar /tmp" ]

  run D stop -t 30 svc
  [ "$status" -eq 0 ]
  [ "$(D inspect -f '{{.State.Status}} {{.State.ExitCode}} {{.State.OOMKilled}}' svc)" = "exited 0 false" ]
  run D logs svc
  echo "$output"
  [[ "$output" == *"got TERM"* ]]

  run D rm svc
  [ "$status" -eq 0 ]
  [ ! -e "$CGROOT/docker/$id" ]
  assert_no_runtime_state /run/docker/runtime-runc/moby "$id"
}

@test "docker: a memory hog is OOMKilled=true, exit code 137" {
  run drun --name hog --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  echo "$output"
  [ "$status" -eq 137 ]
  run D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' hog
  echo "docker inspect: $output"
  [ "$output" = "true 137" ]
}

@test "docker kill is OOMKilled=false, exit code 137" {
  run drun -d --name victim --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/sh -c 'echo ready; exec sleep 600'
  [ "$status" -eq 0 ]
  run D kill victim
  [ "$status" -eq 0 ]
  run D wait victim
  [ "$output" = 137 ]
  run D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' victim
  echo "docker inspect: $output"
  [ "$output" = "false 137" ]
}

# Docker sets OOMKilled from containerd's /tasks/oom, which the runc v2 shim
# publishes for any OOM kill counted in the container cgroup's memory.events.
# With runc a child killed while init goes on gives "true 0": OOMKilled,
# yet the container exited 0.  shim sets memory.oom.group=1, so the kill
# takes the whole container: OOMKilled and 137, consistent.
@test "docker: a child hitting the limit takes the container: OOMKilled=true, exit code 137" {
  run drun --name child --memory 64m --memory-swap 64m "$ENGINE_IMAGE" \
    /bin/sh -c '/bin/memhog -s 8 -n 256; echo "init survived: memhog status $?"; exit 0'
  echo "$output"
  run D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' child
  echo "docker inspect: $output"
  [ "$output" = "true 137" ]
}
