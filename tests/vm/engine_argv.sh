#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tests/vm/engine_argv.sh [podman] [containerd] [docker]
#
# Inside the VM (tests/vm/run -m 3072 -- tests/vm/engine_argv.sh), with
# tests/vm/runtime-logger.sh as each engine's runtime (it execs runc):
# drives each engine through more of its lifecycle than the suites do
# (tty, exec, pause, update, top, restart, stop past its timeout, rm -f)
# and prints every runtime call it made, one per line, prefixed with the
# engine and the calling process.  The results are in ENGINE_ARGV.md.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # read by helpers.bash
BATS_TEST_DIRNAME=$here
BATS_FILE_TMPDIR=$(mktemp -d /tmp/engine-argv.XXXXXX)
ENGINE_RUNTIME=$here/runtime-logger.sh
# shellcheck source=helpers.bash
. "$here/helpers.bash"
# shellcheck source=engine_helpers.bash
. "$here/engine_helpers.bash"
engine_setup
LOG=/tmp/runtime-argv.log
cd "$BATS_FILE_TMPDIR" || exit 1

step() { echo "# $*" >>"$LOG"; echo "+ $*" >&2; "$@" >/dev/null 2>>"$BATS_FILE_TMPDIR/errors" || echo "  (exit $?)" >&2; }

podman_argv() {
  podman_configure
  engine_image
  : >"$LOG"
  local r=(run --network none)
  step P "${r[@]}" --rm "$ENGINE_IMAGE" true
  step P --log-level debug "${r[@]}" --rm "$ENGINE_IMAGE" true
  step P "${r[@]}" --rm -t "$ENGINE_IMAGE" true
  step P "${r[@]}" -d --name a "$ENGINE_IMAGE" sleep 600
  step P exec a true
  step P exec -t a true
  step P exec -d a sleep 1
  step P exec -u 1:1 -e X=1 -w /tmp a true
  step P pause a
  step P unpause a
  step P top a
  step P stats --no-stream a
  step P kill -s HUP a
  step P restart -t 1 a
  step P stop -t 1 a
  step P start a
  step P rm -f a
  step P "${r[@]}" -d --name b "$ENGINE_IMAGE" sleep 600
  step P kill b
  step P wait b
  step P rm b
  step P "${r[@]}" --rm --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  sed 's/^\[/podman [/' "$LOG"
  engine_teardown
}

containerd_argv() {
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  C images import "$ENGINE_IMAGE_TAR" >/dev/null
  : >"$LOG"
  local r=(run --runc-binary "$ENGINE_RUNTIME")
  step C "${r[@]}" --rm "$ENGINE_IMAGE" t1 true
  step C "${r[@]}" -d "$ENGINE_IMAGE" a sleep 600
  step C tasks exec --exec-id e1 a true
  step C tasks ps a
  step C tasks pause a
  step C tasks resume a
  step C tasks metrics a
  # ctr 1.6 has no `tasks update`.
  step C tasks kill -s SIGHUP a
  step C tasks kill a
  step C tasks kill -s SIGKILL a
  step C tasks delete a
  step C containers delete a
  step C "${r[@]}" -d "$ENGINE_IMAGE" b sleep 600
  step C tasks kill --all -s SIGKILL b
  step C tasks delete b
  step C containers delete b
  step C "${r[@]}" -d "$ENGINE_IMAGE" c sleep 600
  step C tasks delete --force c
  step C containers delete c
  step C "${r[@]}" --rm --memory-limit 67108864 "$ENGINE_IMAGE" hog /bin/memhog -s 8 -n 256
  sed 's/^\[/containerd [/' "$LOG"
  engine_teardown
}

docker_argv() {
  podman_configure
  engine_image --archive
  podman_teardown
  containerd_start
  dockerd_start
  D load -i "$ENGINE_IMAGE_TAR" >/dev/null
  : >"$LOG"
  local r=(run --runtime shim --network none)
  step D info
  step D "${r[@]}" --rm "$ENGINE_IMAGE" true
  step D "${r[@]}" --rm -t "$ENGINE_IMAGE" true
  step D "${r[@]}" -d --name ca "$ENGINE_IMAGE" sleep 600
  step D exec ca true
  step D exec -t ca true
  step D exec -d ca sleep 1
  step D exec -u 1:1 -e X=1 -w /tmp ca true
  step D top ca
  step D pause ca
  step D unpause ca
  step D update --memory 128m --pids-limit 50 --cpus 0.5 ca
  step D stats --no-stream ca
  step D kill -s HUP ca
  step D restart -t 1 ca
  step D stop -t 1 ca
  step D start ca
  step D rm -f ca
  step D "${r[@]}" -d --name cb "$ENGINE_IMAGE" sleep 600
  step D kill cb
  step D wait cb
  step D rm cb
  step D "${r[@]}" --rm --memory 64m --memory-swap 64m "$ENGINE_IMAGE" /bin/memhog -s 8 -n 256
  sed 's/^\[/docker [/' "$LOG"
  engine_teardown
}

[ $# -gt 0 ] || set -- podman containerd docker
for e in "$@"; do
  "${e}_argv"
done
if [ -s "$BATS_FILE_TMPDIR/errors" ]; then
  echo "--- errors of the steps:" >&2
  cat "$BATS_FILE_TMPDIR/errors" >&2
fi
