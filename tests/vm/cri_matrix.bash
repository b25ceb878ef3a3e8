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
# Every pod of the file (4 kinds x 2 handlers) runs side by side in
# setup_file, through one run of the client (a process costs ~40 ms under
# TCG, python3 with grpc ~5 s); each test then asserts its kind's outcome
# and prints one row per handler on fd 3 ("# cri row: ..." in the TAP
# output), the side-by-side table of issue 24's note; the last test checks
# that nothing is left.
# `load helpers` and `load engine_helpers` first.

CRI_IMAGE=localhost/shimtest-pause:latest
CRI_NS=k8s.io
CRI_CLIENT=$ROOT_DIR/tests/vm/cri_client.py
CRI_PB=$BATS_FILE_TMPDIR/pb
# The CRI plugin's container logs (PodSandboxConfig.log_directory).
CRI_LOGS=$BATS_FILE_TMPDIR/pods
CRI_MIB=1048576

# The cgroup driver: cgroupfs, or systemd when systemd is PID 1 (the -s
# VM).  Read once (bash builtins: a process costs ~40 ms under TCG).
read -r CRI_PID1 </proc/1/comm
CRI_DRIVER=cgroupfs
[ "$CRI_PID1" != systemd ] || CRI_DRIVER=systemd
CRI_KERNEL=$(uname -r)

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
  [ "$CRI_DRIVER" = systemd ] && systemd=true
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
# module of tests/vm/cri.proto, the pause image imported, `ctr events`
# running, then every pod of the matrix (cri_run_matrix).
cri_setup_file() {
  require_cgroup2_memory
  engine_setup
  export PATH=$ROOT_DIR:$PATH
  mkdir -p "$CRI_PB"
  protoc -I "$ROOT_DIR/tests/vm" --python_out="$CRI_PB" "$ROOT_DIR/tests/vm/cri.proto"
  cri_image_archive "$BATS_FILE_TMPDIR/pause.tar"
  cri_containerd_start
  ctr --address "$CONTAINERD_SOCK" -n "$CRI_NS" images import "$BATS_FILE_TMPDIR/pause.tar"
  # Every event from here on in $EVENTS (the containers' ids tell the
  # pods' apart).
  BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR BATS_TEST_NUMBER=0 containerd_events_start
  export EVENTS EVENTS_PID
  cri_run_matrix
}

# cri ARGS...: the client on our containerd.
cri() {
  /usr/bin/python3 "$CRI_CLIENT" --socket "$CONTAINERD_SOCK" --pb "$CRI_PB" "$@"
}

# The kinds of issue 24: cri_kind KIND sets KIND_LIMIT (the pod's memory
# limit, 0 for none) and KIND_ARGS (the client's arguments for the pod).
# A memory hog waits for /go/start, which the client makes once
# StartContainer returned: the OOM kill comes while the runtime's shim
# watches the container, as a pod's does (runc's shim starts watching
# memory.events after the start; a kill before it goes unseen).
CRI_KINDS="own child parent kill9"
CRI_HANDLERS="shim-v2 runc"
CRI_WAIT_GO='until [ -e /go/start ]; do sleep 0.1; done'
cri_kind() {
  KIND_LIMIT=0
  case $1 in
  own) # 1. init (a memory hog) over its own limit.
    KIND_ARGS=(--memory $((64 * CRI_MIB)) -- /bin/sh -c "$CRI_WAIT_GO; exec /bin/memhog -s 8 -n 256") ;;
  child) # 2. a child OOM-killed while init lives on, then the kubelet's
    # StopContainer: SIGTERM, which init's trap turns into exit 143.  The
    # living container's ContainerStats is read before the stop.
    KIND_ARGS=(--memory $((64 * CRI_MIB)) --unified memory.oom.group=0 --after 'log:init lives on' --stats --then stop:30
      -- /bin/sh -c "trap 'exit 143' TERM; $CRI_WAIT_GO; /bin/memhog -s 8 -n 256; echo init lives on; sleep 1000000 & wait") ;;
  parent) # 3. the pod's limit (a parent cgroup's) runs out; the container has none.
    KIND_LIMIT=$((64 * CRI_MIB))
    KIND_ARGS=(-- /bin/sh -c "$CRI_WAIT_GO; exec /bin/memhog -s 8 -n 256") ;;
  kill9) # 4. init killed with SIGKILL from outside (the client, as a node agent would).
    KIND_ARGS=(--memory $((64 * CRI_MIB)) --then kill9 -- /bin/sleep 1000000) ;;
  esac
}

# cri_run_matrix: each kind's pod under each handler, side by side,
# through one run of the client: $CRI_OUT its stdout (a JSON line and a
# line of 0x1f-separated fields per pod), $CRI_OUT.err its log, $CRI_OUT.cg the pods'
# cgroups ("KIND-HANDLER PARENT CGROUP" lines).  The pods' cgroups are
# removed after it, as the kubelet removes them.  A failed CRI call fails
# the test of its kind (cri_use), not the file.
CRI_OUT=$BATS_FILE_TMPDIR/matrix
cri_run_matrix() {
  local k h args=() rc=0
  : >"$CRI_OUT.cg"
  for k in $CRI_KINDS; do
    cri_kind "$k"
    for h in $CRI_HANDLERS; do
      cri_pod_cgroup "$KIND_LIMIT"
      echo "$k-$h $PARENT $POD_CG" >>"$CRI_OUT.cg"
      : >"$BATS_FILE_TMPDIR/$k-$h.termination-log"
      mkdir -p "$BATS_FILE_TMPDIR/go/$k-$h"
      args+=(--- --handler "$h" --name "$k-$h" --uid "$POD_UID" --cgroup-parent "$PARENT"
        --log-dir "$CRI_LOGS/$k-$h" --image "$CRI_IMAGE" --termination-log "$BATS_FILE_TMPDIR/$k-$h.termination-log"
        --go-dir "$BATS_FILE_TMPDIR/go/$k-$h" --timeout 300 "${KIND_ARGS[@]}")
    done
  done
  cri pods "${args[@]}" >"$CRI_OUT" 2>"$CRI_OUT.err" || rc=$?
  echo "$rc" >"$CRI_OUT.rc"
  # One left behind is the last test's failure.
  while read -r k PARENT POD_CG; do
    cri_pod_gone || echo "pod cgroup $POD_CG not removed" >&2
  done <"$CRI_OUT.cg"
}

# cri_teardown_file: containerd and everything of the engines' gone
# (engine_teardown), the pods' cgroups or slices gone.  containerd is
# stopped first: its namespaces need no emptying one ctr call at a time
# (~15 s under TCG), the last test checked that every pod was removed and
# its image goes with the tmpfs.
cri_teardown_file() {
  local rc=0
  containerd_events_stop
  daemon_stop containerd
  engine_teardown || rc=1
  if [ "$CRI_DRIVER" = systemd ]; then
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

# no_cri_scopes: no scope unit of CRI's containers is loaded.
no_cri_scopes() {
  [ -z "$(systemctl list-units --type scope --all --plain --no-legend --no-pager 'cri-containerd-*')" ]
}

# cri_assert_nothing_left: the last test: no CRI container left in
# containerd, no shim of ours running, no container cgroup (or scope) left.
cri_assert_nothing_left() {
  local left
  left=$(ctr --address "$CONTAINERD_SOCK" -n "$CRI_NS" containers ls -q)
  [ -z "$left" ] || { echo "CRI containers left behind: $left" >&2; return 1; }
  wait_for_cmd 300 no_shimv2_left || { pgrep -af containerd-shim-shim-v2 >&2; return 1; }
  if [ "$CRI_DRIVER" = systemd ]; then
    # systemd unloads a stopped transient unit a moment after its stop.
    wait_for_cmd 100 no_cri_scopes || {
      systemctl list-units --type scope --all --plain --no-legend --no-pager 'cri-containerd-*' >&2
      return 1
    }
    left=$(find "$CGROOT/kubepods.slice" -mindepth 1 -type d 2>/dev/null)
  else
    left=$(find "$CGROOT/kubepods" -mindepth 1 -type d 2>/dev/null)
  fi
  [ -z "$left" ] || { echo "cgroups left behind: $left" >&2; return 1; }
}

# cri_pod_cgroup POD_LIMIT_BYTES: a pod's cgroup parent, made as the
# kubelet makes it before RunPodSandbox, with memory.max (MemoryMax) when
# POD_LIMIT_BYTES is not 0: $POD_UID is the pod's uid, $PARENT what the
# kubelet puts in LinuxPodSandboxConfig, $POD_CG its cgroup's path (under
# /sys/fs/cgroup).
cri_pod_cgroup() {
  local limit=$1
  POD_UID=$(printf '%08x-0000-4000-8000-%012x' "$((++CRI_PODS))" "$RANDOM$RANDOM")
  if [ "$CRI_DRIVER" = systemd ]; then
    PARENT=kubepods-pod${POD_UID//-/_}.slice
    POD_CG=/kubepods.slice/$PARENT
    if [ "$limit" != 0 ]; then
      # The kubelet's way: a transient slice with its limit (go-systemd's
      # StartTransientUnit).
      busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
        StartTransientUnit 'ssa(sv)a(sa(sv))' "$PARENT" fail 2 MemoryMax t "$limit" MemorySwapMax t 0 0
      wait_for_cmd 100 test -e "$CGROOT$POD_CG/memory.max"
      [ "$(cat "$CGROOT$POD_CG/memory.max")" = "$limit" ]
    fi
  else
    PARENT=/kubepods/pod$POD_UID
    POD_CG=$PARENT
    mkdir -p "$CGROOT$POD_CG"
    echo "+memory +pids" >"$CGROOT/kubepods/cgroup.subtree_control"
    if [ "$limit" != 0 ]; then
      echo "$limit" >"$CGROOT$POD_CG/memory.max"
      echo 0 >"$CGROOT$POD_CG/memory.swap.max"
    fi
  fi
}

# cri_pod_gone: the pod's cgroup ($PARENT, $POD_CG) removed, the kubelet's
# job after RemovePodSandbox; fails if a container's cgroup is still in it.
cri_pod_gone() {
  if [ "$CRI_DRIVER" = systemd ]; then
    systemctl stop "$PARENT" 2>/dev/null || true
  else
    rmdir "$CGROOT$POD_CG"
  fi
}

# cri_use KIND HANDLER: that pod of the matrix: $cid, $sid, $reason,
# $exit_code, $message (what the kubelet shows, on one line), $secs (the
# client's), $POD_CG; its JSON line and log shown (on failure); fails if
# it has none or a CRI call of it failed.  Its row goes to fd 3.
cri_use() {
  local pod=$1-$2 tag name handler error found=
  while IFS=$'\x1f' read -r tag name handler cid sid reason exit_code secs error message; do
    [ "$tag" = pod ] && [ "$name" = "$pod" ] && { found=1; break; }
  done <"$CRI_OUT"
  awk -v k="\"pod\": \"$pod\"" 'index($0, k)' "$CRI_OUT"
  awk -v k="cri_client: $pod: " 'index($0, k)' "$CRI_OUT.err"
  [ -n "$found" ] || { echo "no pod $pod in the client's output:" >&2; cat "$CRI_OUT" "$CRI_OUT.err" >&2; return 1; }
  [ -z "$error" ] || { echo "pod $pod: $error" >&2; return 1; }
  [ -n "$cid" ]
  while read -r name PARENT POD_CG; do
    [ "$name" = "$pod" ] && break
  done <"$CRI_OUT.cg"
  local shown=${message//$cid/ID}
  printf '# cri row: %s | %s | %s | %s | %s | %s | %s | %s s\n' "$CRI_KERNEL" "$CRI_DRIVER" "$1" "$2" \
    "$reason" "$exit_code" "${shown:0:240}" "$secs" >&3
}

# cri_stats KIND HANDLER FIELD: FIELD of the ContainerStats the client
# read for that pod (0 when it has none).
cri_stats() {
  awk -v k="\"pod\": \"$1-$2\"" 'index($0, k)' "$CRI_OUT" | jq ".stats.$3 // 0"
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
# logged ($verdict; $v_oom_killed, $v_scope, $v_kills, $v_reason) says
# oom_killed OOM (true or false), and `ctr events` showed
# /tasks/oom for the container exactly then (once), never for the sandbox.
cri_shim_events() {
  local want=$1
  cri_events_done "$cid"
  local f
  verdict=$(cri_verdict_of "$cid")
  echo "verdict: $verdict"
  mapfile -t f < <(jq -r '[.oom_killed, .oom.scope, .oom.kills, .reason] | map(tostring) | .[]' <<<"$verdict")
  v_oom_killed=${f[0]-} v_scope=${f[1]-} v_kills=${f[2]-} v_reason=${f[3]-}
  [ "$v_oom_killed" = "$want" ]
  if [ "$want" = true ]; then
    [ "$(cri_oom_events "$cid")" -eq 1 ]
  else
    [ "$(cri_oom_events "$cid")" -eq 0 ]
  fi
  [ "$(cri_oom_events "$sid")" -eq 0 ]
}

# The assertions of each kind: our shim's pod's one outcome; runc's shim's
# pod's where it cannot vary (its row shows the rest).

cri_kind_own_limit() {
  cri_use own shim-v2
  [ "$reason" = OOMKilled ]
  [ "$exit_code" = 137 ]
  [[ "$message" == "container $cid was OOM-killed: it hit its 64 MiB memory limit"* ]]
  cri_shim_events true
  [ "$v_scope" = container ]

  # runc's shim publishes TaskOOM from memory.events, in a race with the
  # exit (containerd #12714): its Reason is recorded, not asserted.
  cri_use own runc
  [ "$exit_code" = 137 ]
  [ -z "$message" ]
}

cri_kind_child_then_stop() {
  cri_use child shim-v2
  # ContainerStats through our shim's Stats: CRI found a memory working
  # set and cpu time in the Metrics (runc's shim's beside them, recorded).
  local h
  for h in shim-v2 runc; do
    printf '# cri stats: %s | %s | %s | working set %s B | cpu %s ns\n' "$CRI_KERNEL" "$CRI_DRIVER" "$h" \
      "$(cri_stats child "$h" working_set_bytes)" "$(cri_stats child "$h" cpu_ns)" >&3
  done
  [ "$(cri_stats child shim-v2 working_set_bytes)" -gt 0 ]
  [ "$(cri_stats child shim-v2 cpu_ns)" -gt 0 ]
  [ "$reason" = Error ]
  [ "$exit_code" = 143 ]
  [ -z "$message" ]
  cri_shim_events false
  # The kernel did kill the child: the verdict counted it.
  [ "$v_kills" -ge 1 ]

  # runc's shim: TaskOOM when the child's kill raised oom_kill, long
  # before the stop; CRI keeps OOMKilled through the exit (kubernetes
  # #140716).
  cri_use child runc
  [ "$exit_code" = 143 ]
  [ "$reason" = OOMKilled ]
  cri_events_done "$cid"
  [ "$(cri_oom_events "$cid")" -ge 1 ]
}

cri_kind_pod_limit() {
  cri_use parent shim-v2
  [ "$reason" = OOMKilled ]
  [ "$exit_code" = 137 ]
  [[ "$message" == "container $cid was OOM-killed: it hit the memory limit of its parent cgroup $POD_CG, not its own limit"* ]]
  cri_shim_events true
  [ "$v_scope" = ancestor ]

  # runc's shim: OOMKilled or, under systemd, Error when the scope was
  # gone before it read memory.events (containerd #12819): recorded.
  cri_use parent runc
  [ "$exit_code" = 137 ]
}

cri_kind_kill9() {
  cri_use kill9 shim-v2
  [ "$reason" = Error ]
  [ "$exit_code" = 137 ]
  [ -z "$message" ]
  cri_shim_events false
  [ "$v_reason" = Killed ]

  cri_use kill9 runc
  [ "$reason" = Error ]
  [ "$exit_code" = 137 ]
  cri_events_done "$cid"
  [ "$(cri_oom_events "$cid")" -eq 0 ]
}
