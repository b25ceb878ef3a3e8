# SPDX-License-Identifier: Apache-2.0
# Shared by the engine suites (engine_podman.bats, engine_containerd.bats,
# engine_docker.bats; load helpers first): podman, containerd and dockerd
# configured from the snippets in config/ with the runtime under test
# substituted, one local image made from examples/rootfs, and a teardown
# that leaves nothing behind (daemons, shims, mounts, cgroups).  Run inside
# the VM (tests/vm/run), like every suite here.
#
# The runtime under test is $ENGINE_RUNTIME (tests/vm/run passes only SHIM_*
# variables into the guest: use `tests/vm/run -- env ENGINE_RUNTIME=... bats
# ...`, or SHIM_ENGINE_RUNTIME=... on the host).  Default: this build's shim.
# `ENGINE_RUNTIME=/usr/sbin/runc` checks the harness itself; with
# tests/vm/runtime-logger.sh it records how each engine calls the runtime
# (tests/vm/ENGINE_ARGV.md).

ENGINE_RUNTIME=${ENGINE_RUNTIME:-${SHIM_ENGINE_RUNTIME:-$ROOT_DIR/shim}}
# Where each engine keeps its configuration and logs for this file.
ENGINE_DIR=$BATS_FILE_TMPDIR/engines
# podman import names it localhost/shimtest:latest; docker load and ctr
# images import keep that name.
ENGINE_IMAGE=localhost/shimtest:latest
# The docker-archive of that image, for containerd and dockerd.
ENGINE_IMAGE_TAR=$ENGINE_DIR/shimtest.tar

# Debian's docker CLI: /usr/local/bin may hold another one.
DOCKER_CLI=/usr/bin/docker
CONTAINERD_SOCK=/run/containerd/containerd.sock
DOCKER_SOCK=/run/docker.sock

# --- the suite ---------------------------------------------------------------------
# engine_setup: from setup_file, before anything else: $ENGINE_DIR, and the
# cgroups that exist before the engines run (engine_teardown removes any
# other).
engine_setup() {
  mkdir -p "$ENGINE_DIR"
  find "$CGROOT" -mindepth 1 -maxdepth 1 -type d | sort >"$ENGINE_DIR/cgroups.before"
}

# engine_teardown: from teardown_file: dockerd, containerd (and its shims),
# podman's containers and images, the tmpfs mounts, the daemons' state
# dirs and every cgroup made since engine_setup (/shimtest for ctr,
# /docker, /libpod_parent, ...) are gone; fails naming what is left.
engine_teardown() {
  local rc=0 d new=()
  dockerd_stop
  containerd_stop
  podman_teardown
  engine_unmount
  if ! findmnt -rn -o TARGET | grep -q '^/run/\(containerd\|docker\)\(/\|$\)'; then
    rm -rf /run/containerd /run/docker /run/docker.sock /run/docker.pid
  fi
  rmdir /var/lib/containerd /var/lib/docker 2>/dev/null || true
  if [ -e "$ENGINE_DIR/cgroups.before" ]; then
    while read -r d; do
      new+=("${d#"$CGROOT"/}")
    done < <(find "$CGROOT" -mindepth 1 -maxdepth 1 -type d | sort | comm -13 "$ENGINE_DIR/cgroups.before" -)
    [ ${#new[@]} -eq 0 ] || engine_remove_cgroups "${new[@]}" || rc=1
  fi
  engine_assert_clean || rc=1
  [ $rc -eq 0 ] || engine_dump_logs
  return $rc
}

# --- podman ----------------------------------------------------------------------
# podman 4.3 from config/podman/containers.conf (the runtime "shim", made
# the default here by uncommenting its `runtime` line) plus storage.conf (vfs: overlay on the VM's overlay
# root fails) and policy.json in $ENGINE_DIR/podman.  The rest is given on
# the command line (P): no systemd and no network in the VM.
podman_configure() {
  local d=$ENGINE_DIR/podman
  mkdir -p "$d"
  sed -e "s|/usr/local/bin/shim|$ENGINE_RUNTIME|" -e 's|^# runtime = "shim"|runtime = "shim"|' \
    "$ROOT_DIR/config/podman/containers.conf" >"$d/containers.conf"
  grep -qF "shim = [\"$ENGINE_RUNTIME\"]" "$d/containers.conf"
  cat >"$d/storage.conf" <<EOF
[storage]
driver = "vfs"
runroot = "$d/run"
graphroot = "$d/storage"
EOF
  cat >"$d/policy.json" <<'EOF'
{"default": [{"type": "insecureAcceptAnything"}]}
EOF
  export CONTAINERS_CONF=$d/containers.conf
  export CONTAINERS_STORAGE_CONF=$d/storage.conf
  export PODMAN_POLICY=$d/policy.json
}

P() {
  podman --cgroup-manager cgroupfs --events-backend file --tmpdir "$ENGINE_DIR/podman/tmp" "$@"
}

# engine_image: the local image, once per file: podman imports a tarball of
# examples/rootfs and saves it as a docker-archive for containerd and dockerd.
engine_image() {
  tar -C "$ROOTFS" -c . | P import --quiet --signature-policy "$PODMAN_POLICY" - "$ENGINE_IMAGE" >/dev/null
  if [ "${1:-}" = --archive ]; then
    rm -f "$ENGINE_IMAGE_TAR"
    P save --quiet --format docker-archive -o "$ENGINE_IMAGE_TAR" "$ENGINE_IMAGE"
  fi
}

# podman_teardown: every container and image of this file's storage gone.
podman_teardown() {
  [ -n "${CONTAINERS_STORAGE_CONF:-}" ] || return 0
  P rm --all --force >/dev/null 2>&1 || true
  P rmi --all --force >/dev/null 2>&1 || true
}

# --- daemons ------------------------------------------------------------------------
# engine_tmpfs DIR: a fresh tmpfs on DIR (overlayfs snapshots cannot live
# on the VM's overlay root; vfs copies would land in its tmpfs upper anyway).
engine_tmpfs() {
  mkdir -p "$1"
  mount -t tmpfs -o mode=0711 engine-tmpfs "$1"
  echo "$1" >>"$ENGINE_DIR/mounts"
}

# wait_for_cmd TENTHS CMD...: until CMD succeeds (TCG: daemons take seconds).
wait_for_cmd() {
  local n=$1 _
  shift
  for _ in $(seq 1 "$n"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "timed out waiting for: $*" >&2
  return 1
}

# daemon_start NAME LOG CMD...: CMD in the background, its pid in
# $ENGINE_DIR/NAME.pid.
daemon_start() {
  local name=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1 </dev/null &
  echo $! >"$ENGINE_DIR/$name.pid"
}

# daemon_stop NAME: TERM, then KILL after 20 s; waits for it to be gone.
daemon_stop() {
  local f=$ENGINE_DIR/$1.pid pid _
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  kill -TERM "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$f"
}

# containerd_start [SED_ARG...]: containerd 1.6 with config/containerd/config.toml (the
# runtime "shim" for CRI, BinaryName substituted, made the default; SED_ARGs
# edit the copy further), a tmpfs on /var/lib/containerd, state in /run/containerd.
containerd_start() {
  mkdir -p "$ENGINE_DIR/containerd"
  export CONTAINERD_CONFIG=$ENGINE_DIR/containerd/config.toml
  sed -e "s|/usr/local/bin/shim|$ENGINE_RUNTIME|" -e 's|# default_runtime_name|default_runtime_name|' "$@" \
    "$ROOT_DIR/config/containerd/config.toml" >"$CONTAINERD_CONFIG"
  engine_tmpfs /var/lib/containerd
  daemon_start containerd "$ENGINE_DIR/containerd.log" \
    containerd --config "$CONTAINERD_CONFIG" --log-level debug
  wait_for_cmd 600 ctr --address "$CONTAINERD_SOCK" version || { cat "$ENGINE_DIR/containerd.log" >&2; return 1; }
}

# C ARGS...: ctr on that containerd, namespace "shimtest".
C() {
  ctr --address "$CONTAINERD_SOCK" --namespace shimtest "$@"
}

# containerd_events_start: from setup: every event of every namespace from
# now on in $EVENTS ($BATS_TEST_TMPDIR/events), by `ctr events` ($EVENTS_PID).
# The subscription is live once an event published after it shows up:
# namespaces created until one is seen (an event published before the
# subscription is not replayed).
containerd_events_start() {
  EVENTS=$BATS_TEST_TMPDIR/events
  ctr --address "$CONTAINERD_SOCK" events >"$EVENTS" 2>&1 3>&- &
  EVENTS_PID=$!
  local i mark
  for i in $(seq 1 30); do
    mark=mark-$BATS_TEST_NUMBER-$i
    ctr --address "$CONTAINERD_SOCK" namespaces create "$mark"
    ctr --address "$CONTAINERD_SOCK" namespaces remove "$mark"
    grep -qF "\"name\":\"$mark\"" "$EVENTS" && return 0
    sleep 1
    grep -qF "\"name\":\"$mark\"" "$EVENTS" && return 0
  done
  echo "ctr events never showed a mark: $(cat "$EVENTS")" >&2
  return 1
}

# containerd_events_stop: from teardown: the subscription ended, what it
# saw shown.
containerd_events_stop() {
  kill "$EVENTS_PID" 2>/dev/null || true
  wait "$EVENTS_PID" 2>/dev/null || true
  echo "--- ctr events:" >&2
  cat "$EVENTS" >&2
}

# containerd_rm_containers NS: every task killed and deleted, every
# container removed.
containerd_rm_containers() {
  local ns=$1 id
  local c=(ctr --address "$CONTAINERD_SOCK" --namespace "$ns")
  for id in $("${c[@]}" tasks ls -q 2>/dev/null); do
    "${c[@]}" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    "${c[@]}" tasks delete --force "$id" >/dev/null 2>&1 || true
  done
  for id in $("${c[@]}" containers ls -q 2>/dev/null); do
    "${c[@]}" containers delete "$id" >/dev/null 2>&1 || true
  done
}

# containerd_assert_no_cgroups: no container cgroup left under the
# namespace's /shimtest.
containerd_assert_no_cgroups() {
  local left
  left=$(find "$CGROOT/shimtest" -mindepth 1 -type d 2>/dev/null)
  if [ -n "$left" ]; then
    echo "container cgroups left behind: $left" >&2
    return 1
  fi
}

# containerd_clean_namespace NS: its containers, images and the namespace
# removed.
containerd_clean_namespace() {
  local ns=$1 id
  local c=(ctr --address "$CONTAINERD_SOCK" --namespace "$ns")
  containerd_rm_containers "$ns"
  for id in $("${c[@]}" images ls -q 2>/dev/null); do
    "${c[@]}" images rm "$id" >/dev/null 2>&1 || true
  done
  ctr --address "$CONTAINERD_SOCK" namespaces remove "$ns" >/dev/null 2>&1 || true
}

# containerd_stop: every namespace cleaned, containerd stopped, then its
# runc v2 shims (they outlive containerd by design) ended by pid.
containerd_stop() {
  local ns pid
  if [ -s "$ENGINE_DIR/containerd.pid" ]; then
    for ns in $(ctr --address "$CONTAINERD_SOCK" namespaces ls -q 2>/dev/null); do
      containerd_clean_namespace "$ns"
    done
  fi
  daemon_stop containerd
  for pid in $(pgrep -f containerd-shim-runc-v2 || true); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-address $CONTAINERD_SOCK"; then
      echo "containerd shim $pid left behind: killed" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# dockerd_start [JQ_FILTER]: dockerd 20.10 with config/docker/daemon.json (the runtime
# "shim", path substituted; JQ_FILTER edits the copy further) as --config-file,
# on our containerd, a tmpfs on /var/lib/docker, vfs, no iptables, no bridge.
dockerd_start() {
  mkdir -p "$ENGINE_DIR/docker"
  export DOCKERD_CONFIG=$ENGINE_DIR/docker/daemon.json
  jq --arg rt "$ENGINE_RUNTIME" ".runtimes.shim.path = \$rt | ${1:-.}" "$ROOT_DIR/config/docker/daemon.json" \
    >"$DOCKERD_CONFIG"
  engine_tmpfs /var/lib/docker
  daemon_start dockerd "$ENGINE_DIR/dockerd.log" \
    dockerd --config-file "$DOCKERD_CONFIG" --debug \
    --data-root /var/lib/docker --exec-root /run/docker --pidfile /run/docker.pid \
    -H "unix://$DOCKER_SOCK" --containerd "$CONTAINERD_SOCK" \
    --storage-driver vfs --iptables=false --ip6tables=false --bridge=none --ip-masq=false
  wait_for_cmd 900 D version || { cat "$ENGINE_DIR/dockerd.log" >&2; return 1; }
}

D() {
  DOCKER_HOST=unix://$DOCKER_SOCK "$DOCKER_CLI" "$@"
}

dockerd_stop() {
  if [ -s "$ENGINE_DIR/dockerd.pid" ]; then
    # shellcheck disable=SC2046 # one word per id
    D rm --force $(D ps -aq 2>/dev/null) >/dev/null 2>&1 || true
    # shellcheck disable=SC2046
    D rmi --force $(D images -q 2>/dev/null) >/dev/null 2>&1 || true
  fi
  daemon_stop dockerd
}

# --- what is left ----------------------------------------------------------------
# engine_unmount: every tmpfs of engine_tmpfs, and anything mounted under
# it or under the daemons' state dirs, lazily as a last resort.
engine_unmount() {
  local m
  [ -s "$ENGINE_DIR/mounts" ] || return 0
  while read -r m; do
    umount -R "$m" 2>/dev/null || umount -R -l "$m" || true
  done < <(tac "$ENGINE_DIR/mounts")
  rm -f "$ENGINE_DIR/mounts"
  for m in /run/containerd /run/docker; do
    [ -d "$m" ] || continue
    grep -q " $m/" /proc/self/mountinfo && findmnt -rn -o TARGET | grep "^$m/" | sort -r | xargs -r umount -l
  done
  return 0
}

# engine_remove_cgroups NAME...: the cgroups an engine made under
# /sys/fs/cgroup/NAME, deepest first; fails naming any that remain.
engine_remove_cgroups() {
  local n d left=0
  for n in "$@"; do
    [ -d "$CGROOT/$n" ] || continue
    while read -r d; do
      rmdir "$d" 2>/dev/null || true
    done < <(find "$CGROOT/$n" -depth -type d)
    if [ -d "$CGROOT/$n" ]; then
      echo "cgroup left behind: $CGROOT/$n" >&2
      find "$CGROOT/$n" -name cgroup.procs -exec grep -H . {} + >&2 || true
      left=1
    fi
  done
  return $left
}

# engine_assert_clean: no daemon, shim or conmon left, no mount under the
# engines' dirs.
engine_assert_clean() {
  local bad=0 m
  for m in /var/lib/containerd /var/lib/docker /run/containerd /run/docker "$ENGINE_DIR"; do
    if findmnt -rn -o TARGET | grep -q "^$m\(/\|$\)"; then
      echo "mount left under $m:" >&2
      findmnt -rn -o TARGET | grep "^$m\(/\|$\)" >&2
      bad=1
    fi
  done
  if pgrep -x containerd >/dev/null || pgrep -x dockerd >/dev/null || pgrep -f containerd-shim-runc >/dev/null || pgrep -x conmon >/dev/null; then
    echo "engine processes left:" >&2
    pgrep -a -f 'containerd|dockerd|conmon' >&2
    bad=1
  fi
  return $bad
}

# engine_scopes_gone SLICE GLOB: no scope unit matching GLOB loaded
# (systemd unloads a stopped transient unit a moment after its stop), and
# no cgroup of one under SLICE; fails naming what is left.
engine_scopes_gone() {
  local slice=$1 glob=$2 out _
  for _ in $(seq 1 100); do
    out=$(systemctl list-units --type scope --all --plain --no-legend --no-pager "$glob")
    [ -z "$out" ] && break
    sleep 0.1
  done
  if [ -n "$out" ]; then
    echo "scopes left behind: $out" >&2
    return 1
  fi
  out=$(find "$CGROOT/$slice" -maxdepth 1 -name "$glob")
  [ -z "$out" ] || { echo "scope cgroups left behind: $out" >&2; return 1; }
}

# assert_no_runtime_state ROOT ID...: after the engine removed containers
# ID..., the runtime kept no state for them under its --root ROOT (podman
# passes no --root: the runtime's default, /run/shim or /run/runc).
assert_no_runtime_state() {
  local root=$1 id bad=0
  shift
  for id in "$@"; do
    if [ -e "$root/$id" ]; then
      echo "runtime state left behind: $root/$id" >&2
      bad=1
    fi
  done
  return $bad
}

# engine_dump_logs: the daemons' logs, for a failing suite's output.
engine_dump_logs() {
  local f
  for f in "$ENGINE_DIR"/*.log; do
    [ -s "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 40 "$f" >&2
  done
}

# engine_wait_for_text FILE TEXT [TENTHS]: until FILE contains TEXT (a
# fixed string; default 30 s).
engine_wait_for_text() {
  local _
  for _ in $(seq 1 "${3:-300}"); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1:" >&2
  cat "$1" >&2
  return 1
}

# history_verdict ID: "REASON OOM_KILLED" of shim's verdict of container ID
# as its history kept it at the engine's delete (engines pass the runtime
# no environment: the default directory); nothing unless exactly one
# record names ID.
history_verdict() {
  local out
  out=$("$ENGINE_RUNTIME" --history-dir /var/lib/shim/history verdicts --json "$1") || return 1
  echo "shim verdicts: $out" >&2
  [ "$(jq -r 'length' <<<"$out")" -eq 1 ] || return 1
  jq -r '.[0].verdict.reason + " " + (.[0].verdict.oom_killed | tostring)' <<<"$out"
}
