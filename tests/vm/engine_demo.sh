#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tests/vm/engine_demo.sh [podman] [containerd] [docker]
#
# Inside the VM (tests/vm/run -t 900 -- env ENGINE_RUNTIME=... \
# tests/vm/engine_demo.sh): for each engine, with $ENGINE_RUNTIME as its
# runtime (default this build's shim), a memory hog under a 64 MiB limit
# and a sleeping container killed with SIGKILL, printing each command and
# its real output: what the engine says about the OOM kill.  The same
# setup as the engine suites (engine_helpers.bash).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # read by helpers.bash
BATS_TEST_DIRNAME=$here
BATS_FILE_TMPDIR=$(mktemp -d /tmp/engine-demo.XXXXXX)
# shellcheck source=helpers.bash
. "$here/helpers.bash"
# shellcheck source=engine_helpers.bash
. "$here/engine_helpers.bash"
engine_setup
cd "$BATS_FILE_TMPDIR" || exit 1

# show CMD...: the command (P/C/D spelled out), its output and exit status.
show() {
  local w=("$@")
  case $1 in
  P) w[0]=podman ;;
  C) w[0]="ctr -n shimtest" ;;
  D) w[0]=docker ;;
  *) ;;
  esac
  local a line="\$ ${w[0]}"
  for a in "${w[@]:1}"; do
    case $a in
    *[!A-Za-z0-9_./:=,@+-]*) line="$line '$a'" ;;
    *) line="$line $a" ;;
    esac
  done
  echo "$line"
  "$@" 2>&1
  echo "[exit $?]"
}

podman_demo() {
  echo "=== podman $(podman version -f '{{.Client.Version}}'), runtime $ENGINE_RUNTIME"
  podman_configure
  engine_image
  show P run --name hog --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  show P inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' hog
  show P run -d --name victim --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" sleep 600
  show P kill -s KILL victim
  show P wait victim
  show P inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' victim
  engine_teardown
}

containerd_demo() {
  echo "=== containerd $(containerd --version | awk '{print $3}'), runtime $ENGINE_RUNTIME"
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  C images import "$ENGINE_IMAGE_TAR" >/dev/null
  local ev=$ENGINE_DIR/events
  ctr --address "$CONTAINERD_SOCK" events >"$ev" 2>&1 &
  local evpid=$!
  sleep 2
  show C run --rm --runc-binary "$ENGINE_RUNTIME" --memory-limit 67108864 "$ENGINE_IMAGE" hog /bin/memhog -s 8 -n 256
  show C run -d --runc-binary "$ENGINE_RUNTIME" --memory-limit 67108864 "$ENGINE_IMAGE" victim sleep 600
  sleep 1
  show C tasks kill -s SIGKILL victim
  engine_wait_for_text "$ev" '/tasks/exit {"container_id":"victim"' 100 >/dev/null
  show C tasks delete victim
  show C containers delete victim
  sleep 1
  kill "$evpid"
  wait "$evpid" 2>/dev/null
  echo "\$ ctr events   # /tasks/ lines, captured meanwhile"
  grep -E '/tasks/(oom|exit|delete) ' "$ev" | grep -v '"id":"[^"]*","pid".*exec'
  engine_teardown
}

docker_demo() {
  echo "=== docker $(dockerd --version | awk '{print $3}' | tr -d ,), runtime $ENGINE_RUNTIME"
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  dockerd_start
  D load -i "$ENGINE_IMAGE_TAR" >/dev/null
  show D run --runtime shim --name hog --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  show D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' hog
  show D run -d --runtime shim --name victim --network none --memory 64m "$ENGINE_IMAGE" sleep 600
  show D kill victim
  show D wait victim
  show D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' victim
  show D run --runtime shim --name child --network none --memory 64m --memory-swap 64m "$ENGINE_IMAGE" \
    /bin/sh -c '/bin/memhog -s 8 -n 256; echo "init survived: memhog status $?"; exit 0'
  show D inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' child
  engine_teardown
}

[ $# -gt 0 ] || set -- podman containerd docker
for e in "$@"; do
  "${e}_demo"
done
