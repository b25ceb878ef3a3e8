# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# Issue 24's CRI client matrix, shared by cri_matrix.bats (the cgroupfs
# driver, plain VM) and systemd_cri_matrix.bats (SystemdCgroup = true, the
# VM's systemd mode): Debian's containerd 1.6 with its CRI plugin, driven
# by tests/vm/cri_client.py as the kubelet drives it (RunPodSandbox,
# CreateContainer, StartContainer, ContainerStatus, StopContainer,
# RemoveContainer, StopPodSandbox, RemovePodSandbox), one pod per kind and
# runtime handler: "shim-v2" (our containerd-shim-shim-v2, runtime type
# io.containerd.shim.v2, from config/containerd/config.toml) and "runc"
# (Debian's io.containerd.runc.v2 with runc), side by side.
#
# No network in the VM: the pause image is examples/rootfs as an OCI
# archive made here (its command `sleep`), imported with `ctr -n k8s.io
# images import` and named as the CRI plugin's sandbox_image; pods use the
# node's network (NamespaceOption network NODE), so no CNI is needed.
# The pod's cgroup is made before RunPodSandbox, as the kubelet makes it:
# /kubepods/pod<uid> (cgroupfs) or the slice kubepods-pod<uid>.slice
# (systemd), with memory.max / MemoryMax when the kind wants a pod limit.
#
# Each kind prints one row per handler on fd 3 ("# cri row: ..." in the
# TAP output), the side-by-side table of issue 24's note.
# `load helpers` and `load engine_helpers` first.

CRI_IMAGE=localhost/shimtest-pause:latest
CRI_NS=k8s.io
CRI_CLIENT=$ROOT_DIR/tests/vm/cri_client.py
CRI_PB=$BATS_FILE_TMPDIR/pb
# The CRI plugin's container logs (PodSandboxConfig.log_directory).
CRI_LOGS=$BATS_FILE_TMPDIR/pods
CRI_MIB=1048576

# cri_driver: cgroupfs, or systemd when systemd is PID 1 (the -s VM).
cri_driver() {
  if [ "$(ps -p 1 -o comm=)" = systemd ]; then echo systemd; else echo cgroupfs; fi
}

# cri_image_archive OUT: examples/rootfs as a one-layer OCI image archive
# named $CRI_IMAGE (io.containerd.image.name, which ctr import takes), its
# command `sleep` for ever (the pause container's).
cri_image_archive() {
  local out=$1 d=$BATS_FILE_TMPDIR/oci ldig cdig mdig lsize csize msize
  rm -rf "$d"
  mkdir -p "$d/blobs/sha256"
  tar -C "$ROOTFS" --exclude=./.stamp --owner=0 --group=0 --numeric-owner -cf "$d/layer" .
  ldig=$(sha256sum "$d/layer" | cut -d' ' -f1)
  lsize=$(stat -c %s "$d/layer")
  mv "$d/layer" "$d/blobs/sha256/$ldig"
  jq -cn --arg l "sha256:$ldig" '{architecture: "amd64", os: "linux",
    config: {Cmd: ["/bin/sleep", "1000000000"], WorkingDir: "/"},
    rootfs: {type: "layers", diff_ids: [$l]}}' >"$d/config"
  cdig=$(sha256sum "$d/config" | cut -d' ' -f1)
  csize=$(stat -c %s "$d/config")
  mv "$d/config" "$d/blobs/sha256/$cdig"
  jq -cn --arg c "sha256:$cdig" --argjson cs "$csize" --arg l "sha256:$ldig" --argjson ls "$lsize" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
    layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}' >"$d/manifest"
  mdig=$(sha256sum "$d/manifest" | cut -d' ' -f1)
  msize=$(stat -c %s "$d/manifest")
  mv "$d/manifest" "$d/blobs/sha256/$mdig"
  jq -cn --arg m "sha256:$mdig" --argjson ms "$msize" --arg n "$CRI_IMAGE" '{schemaVersion: 2,
    manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
      platform: {architecture: "amd64", os: "linux"},
      annotations: {"io.containerd.image.name": $n, "org.opencontainers.image.ref.name": "latest"}}]}' \
    >"$d/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
  tar -C "$d" -cf "$out" oci-layout index.json blobs
  rm -rf "$d"
}

# cri_containerd_start: containerd with config/containerd/config.toml (its
# shim-v2 runtime is the one tested) plus the CRI plugin's settings for the
# VM: the local sandbox image, no AppArmor (securityfs is mounted in the
# systemd mode, and no profile is loaded), an empty CNI dir, Debian's runc v2
# shim as the handler "runc" (SystemdCgroup as the driver wants).
cri_containerd_start() {
  local systemd=false
  [ "$(cri_driver)" = systemd ] && systemd=true
  mkdir -p "$ENGINE_DIR/containerd" "$ENGINE_DIR/cni/bin" "$ENGINE_DIR/cni/conf" "$CRI_LOGS"
  CONTAINERD_CONFIG=$ENGINE_DIR/containerd/config.toml
  cat "$ROOT_DIR/config/containerd/config.toml" - >"$CONTAINERD_CONFIG" <<EOF

# tests/vm/cri_matrix.bash: the CRI plugin in the VM.
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$CRI_IMAGE"
  disable_apparmor = true

[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "$ENGINE_DIR/cni/bin"
  conf_dir = "$ENGINE_DIR/cni/conf"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = $systemd
EOF
  engine_tmpfs /var/lib/containerd
  daemon_start containerd "$ENGINE_DIR/containerd.log" \
    containerd --config "$CONTAINERD_CONFIG" --log-level debug
  wait_for_cmd 600 ctr --address "$CONTAINERD_SOCK" version || { cat "$ENGINE_DIR/containerd.log" >&2; return 1; }
}

# cri_setup_file: from setup_file: containerd with CRI, the protobuf
# module of tests/vm/cri.proto, the pause image imported and known to CRI.
cri_setup_file() {
  require_cgroup2_memory
  engine_setup
  export PATH=$ROOT_DIR:$PATH
  mkdir -p "$CRI_PB"
  protoc -I "$ROOT_DIR/tests/vm" --python_out="$CRI_PB" "$ROOT_DIR/tests/vm/cri.proto"
  cri_image_archive "$BATS_FILE_TMPDIR/pause.tar"
  cri_containerd_start
  ctr --address "$CONTAINERD_SOCK" -n "$CRI_NS" images import "$BATS_FILE_TMPDIR/pause.tar"
  cri version
  cri image-ready "$CRI_IMAGE"
}

# cri ARGS...: the client on our containerd.
cri() {
  /usr/bin/python3 "$CRI_CLIENT" --socket "$CONTAINERD_SOCK" --pb "$CRI_PB" "$@"
}

# cri_teardown_file: containerd and everything of the engines' gone
# (engine_teardown), the pods' cgroups or slices gone.
cri_teardown_file() {
  local rc=0
  engine_teardown || rc=1
  if [ "$(cri_driver)" = systemd ]; then
    systemctl stop kubepods.slice 2>/dev/null || true
  else
    engine_remove_cgroups kubepods || rc=1
  fi
  return $rc
}

# no_shimv2_left: every shim v2 daemon of ours has ended.
no_shimv2_left() {
  [ -z "$(pgrep -f containerd-shim-shim-v2)" ]
}

# cri_teardown: from teardown: no CRI container left in containerd, no
# shim of ours running, no container cgroup left in the pods' cgroups.
cri_teardown() {
  local left rc=0
  containerd_events_stop
  left=$(ctr --address "$CONTAINERD_SOCK" -n "$CRI_NS" containers ls -q)
  if [ -n "$left" ]; then
    echo "CRI containers left behind: $left" >&2
    containerd_rm_containers "$CRI_NS"
    rc=1
  fi
  wait_for_cmd 300 no_shimv2_left || { pgrep -af containerd-shim-shim-v2 >&2; rc=1; }
  if [ "$(cri_driver)" = systemd ]; then
    left=$(systemctl list-units --type scope --all --plain --no-legend --no-pager 'cri-containerd-*')
    [ -z "$left" ] || { echo "scopes left behind: $left" >&2; rc=1; }
  else
    left=$(find "$CGROOT/kubepods" -mindepth 2 -type d 2>/dev/null)
    [ -z "$left" ] || { echo "container cgroups left behind: $left" >&2; rc=1; }
  fi
  return $rc
}

# cri_pod_cgroup KIND POD_LIMIT_BYTES: the pod's cgroup parent, made as the
# kubelet makes it before RunPodSandbox, with memory.max (MemoryMax) when
# POD_LIMIT_BYTES is not 0; $POD_UID is the pod's uid, $CGROUP_PARENT what
# the kubelet puts in LinuxPodSandboxConfig, $POD_CG its cgroup's path
# (under /sys/fs/cgroup).
cri_pod_cgroup() {
  local kind=$1 limit=$2
  POD_UID=$(printf '%08x-0000-4000-8000-%012x' "$BATS_TEST_NUMBER" "$RANDOM$RANDOM")
  if [ "$(cri_driver)" = systemd ]; then
    local slice=kubepods-pod${POD_UID//-/_}.slice
    CGROUP_PARENT=$slice
    POD_CG=/kubepods.slice/$slice
    if [ "$limit" != 0 ]; then
      # The kubelet's way: a transient slice with its limit (go-systemd's
      # StartTransientUnit).
      busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
        StartTransientUnit 'ssa(sv)a(sa(sv))' "$slice" fail 2 MemoryMax t "$limit" MemorySwapMax t 0 0
      wait_for_cmd 100 test -e "$CGROOT$POD_CG/memory.max"
      [ "$(cat "$CGROOT$POD_CG/memory.max")" = "$limit" ]
    fi
  else
    CGROUP_PARENT=/kubepods/pod$POD_UID
    POD_CG=$CGROUP_PARENT
    mkdir -p "$CGROOT$POD_CG"
    echo "+memory +pids" >"$CGROOT/kubepods/cgroup.subtree_control"
    if [ "$limit" != 0 ]; then
      echo "$limit" >"$CGROOT$POD_CG/memory.max"
      echo 0 >"$CGROOT$POD_CG/memory.swap.max"
    fi
  fi
}

# cri_pod_gone: the pod's cgroup removed (the kubelet's job after
# RemovePodSandbox); fails if a container's cgroup is still in it.
cri_pod_gone() {
  if [ "$(cri_driver)" = systemd ]; then
    systemctl stop "$CGROUP_PARENT" 2>/dev/null || true
  else
    rmdir "$CGROOT$POD_CG"
  fi
}

# cri_pod KIND HANDLER POD_LIMIT CLIENT_ARGS...: one pod of KIND under
# HANDLER through the CRI client; $pod is its JSON line, $cid its container,
# $sid its sandbox.  The client's status must be 0.
cri_pod() {
  local kind=$1 handler=$2 limit=$3
  shift 3
  cri_pod_cgroup "$kind" "$limit"
  local tlog=$BATS_TEST_TMPDIR/$handler-termination-log
  : >"$tlog"
  run cri pod --handler "$handler" --name "$kind-$handler" --uid "$POD_UID" --cgroup-parent "$CGROUP_PARENT" \
    --log-dir "$CRI_LOGS/$kind-$handler" --image "$CRI_IMAGE" --termination-log "$tlog" "$@"
  echo "$output"
  pod=$(printf '%s\n' "$output" | grep '^{' | tail -n 1)
  cid=$(jq -r '.container_id // empty' <<<"$pod")
  sid=$(jq -r '.sandbox_id // empty' <<<"$pod")
  cri_pod_gone
  [ "$status" -eq 0 ]
  [ -n "$cid" ]
  cri_row "$kind" "$handler"
}

# p FIELD: a field of $pod.
p() {
  jq -r "$1" <<<"$pod"
}

# cri_row KIND HANDLER: the table's row, on fd 3 (a TAP comment).
cri_row() {
  local msg
  msg=$(p '.message' | tr '\n' ' ' | cut -c1-150)
  printf '# cri row: %s | %s | %s | %s | %s | %s | %s | %s s\n' "$(uname -r)" "$(cri_driver)" "$1" "$2" \
    "$(p .reason)" "$(p .exit_code)" "$msg" "$(p .seconds)" >&3
}

# cri_verdict_of ID: the verdict our shim logged for container ID
# (containerd's log has the shim's).
cri_verdict_of() {
  engine_wait_for_text "$ENGINE_DIR/containerd.log" "verdict $1: {" >/dev/null
  grep -F "verdict $1: {" "$ENGINE_DIR/containerd.log" | head -n 1 | sed 's/.*msg="verdict [^:]*: //; s/"$//; s/\\"/"/g'
}

# cri_oom_events ID: how many /tasks/oom events containerd published for ID.
cri_oom_events() {
  awk -v k="/tasks/oom {\"container_id\":\"$1\"" 'index($0, k) { n++ } END { print n + 0 }' "$EVENTS"
}

# cri_events_done ID: the container's /tasks/delete is in $EVENTS (the
# shim sends its events in order, the delete last).
cri_events_done() {
  engine_wait_for_text "$EVENTS" "/tasks/delete {\"container_id\":\"$1\""
}

# cri_shim_events OOM: for our shim's pod ($cid, $sid): the verdict it
# logged says oom_killed OOM (true or false), and `ctr events` showed
# /tasks/oom for the container exactly then (once), never for the sandbox.
cri_shim_events() {
  local want=$1
  cri_events_done "$cid"
  verdict=$(cri_verdict_of "$cid")
  echo "verdict: $verdict"
  [ "$(v .oom_killed)" = "$want" ]
  if [ "$want" = true ]; then
    [ "$(cri_oom_events "$cid")" -eq 1 ]
  else
    [ "$(cri_oom_events "$cid")" -eq 0 ]
  fi
  [ "$(cri_oom_events "$sid")" -eq 0 ]
}

# The kinds of issue 24.  Each runs the pod under our shim and asserts the
# one outcome, then the same pod under runc's shim, whose row is recorded
# and asserted only where it cannot vary.

# 1. init (a memory hog) hits its own limit.
cri_kind_own_limit() {
  local hog=(/bin/memhog -s 8 -n 256)
  cri_pod own shim-v2 0 --memory $((64 * CRI_MIB)) -- "${hog[@]}"
  [ "$(p .reason)" = OOMKilled ]
  [ "$(p .exit_code)" = 137 ]
  [[ "$(p .message)" == "container $cid was OOM-killed: it hit its 64 MiB memory limit"* ]]
  cri_shim_events true
  [ "$(v .oom.scope)" = container ]

  # runc's shim publishes TaskOOM from memory.events, in a race with the
  # exit (containerd #12714): its Reason is recorded, not asserted.
  cri_pod own runc 0 --memory $((64 * CRI_MIB)) -- "${hog[@]}"
  [ "$(p .exit_code)" = 137 ]
  [ -z "$(p .message)" ]
}

# 2. a child is OOM-killed while init lives on; then the kubelet's
# StopContainer: SIGTERM, which init's trap turns into exit 143.
cri_kind_child_then_stop() {
  local init=(/bin/sh -c 'trap "exit 143" TERM; /bin/memhog -s 8 -n 256; echo init lives on; sleep 1000000 & wait')
  local args=(--memory $((64 * CRI_MIB)) --unified memory.oom.group=0 --after 'log:init lives on' --then stop:30)
  cri_pod child shim-v2 0 "${args[@]}" -- "${init[@]}"
  [ "$(p .reason)" = Error ]
  [ "$(p .exit_code)" = 143 ]
  [ -z "$(p .message)" ]
  cri_shim_events false
  # The kernel did kill the child: the verdict counted it.
  [ "$(v .oom.kills)" -ge 1 ]

  # runc's shim: TaskOOM when the child's kill raised oom_kill, long
  # before the stop; CRI keeps OOMKilled through the exit (kubernetes
  # #140716).
  cri_pod child runc 0 "${args[@]}" -- "${init[@]}"
  [ "$(p .exit_code)" = 143 ]
  [ "$(p .reason)" = OOMKilled ]
}

# 3. the pod's limit (a parent cgroup's) runs out, the container has none.
cri_kind_pod_limit() {
  local hog=(/bin/memhog -s 8 -n 256)
  cri_pod parent shim-v2 $((64 * CRI_MIB)) -- "${hog[@]}"
  [ "$(p .reason)" = OOMKilled ]
  [ "$(p .exit_code)" = 137 ]
  [[ "$(p .message)" == "container $cid was OOM-killed: it hit the memory limit of its parent cgroup $POD_CG, not its own limit"* ]]
  cri_shim_events true
  [ "$(v .oom.scope)" = ancestor ]

  cri_pod parent runc $((64 * CRI_MIB)) -- "${hog[@]}"
  [ "$(p .exit_code)" = 137 ]
}

# 4. init killed with SIGKILL from outside (the client, as a node agent
# would).
cri_kind_kill9() {
  cri_pod kill9 shim-v2 0 --memory $((64 * CRI_MIB)) --then kill9 -- /bin/sleep 1000000
  [ "$(p .reason)" = Error ]
  [ "$(p .exit_code)" = 137 ]
  [ -z "$(p .message)" ]
  cri_shim_events false
  [ "$(v .reason)" = Killed ]

  cri_pod kill9 runc 0 --memory $((64 * CRI_MIB)) --then kill9 -- /bin/sleep 1000000
  [ "$(p .reason)" = Error ]
  [ "$(p .exit_code)" = 137 ]
  [ "$(cri_oom_events "$cid")" -eq 0 ]
}
