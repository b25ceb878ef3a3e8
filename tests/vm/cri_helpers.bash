# shellcheck shell=bash
# A pod container as containerd's CRI plugin (1.6/1.7, SystemdCgroup = true)
# hands it to its runtime: tests/vm/cri-container.json is that config.json,
# for container `hog` of pod `oom-demo` (namespace `default`) with a 32 MiB
# limit: the io.kubernetes.cri.* annotations, linux.cgroupsPath
# `kubepods-burstable-pod<uid>.slice:cri-containerd:<id>` (the pod's uid with
# `_` for `-`), the bind mounts kubelet asks for (/etc/hosts, the
# termination-log, the service account token) and containerd adds from the
# sandbox (/etc/hostname, /etc/resolv.conf, /dev/shm), the sandbox's ipc, uts
# and network namespaces by path.  Not in it: apparmorProfile (containerd
# sets it only where AppArmor runs with its profile loaded) and seccomp
# (kubelet's default, Unconfined).  `load helpers` first.

CRI_FIXTURE=$ROOT_DIR/tests/vm/cri-container.json
POD_UID=6c1a2a4e-9d1b-4b8e-8a8e-3c2f1d0e5b7a
POD_SLICE=kubepods-burstable-pod${POD_UID//-/_}.slice
SANDBOX_ID=b7ad567477c83756aab9a542b2be04f77dbae25115d85f22070d74d8cc4779dc
CONTAINER_ID=96e436883f4940841fc9f1f7e935bada3859d2ffb0e5455952438d844f8e9c26

# cri_host_setup: the fixture's host paths, made under $H (the test's
# stand-in for the node's /): kubelet's pod dir with etc-hosts, the empty
# termination-log ($TERMINATION_LOG) and the token volume; containerd's
# sandbox dir with hostname and resolv.conf, and its shm.
cri_host_setup() {
  H=$BATS_TEST_TMPDIR/host
  local pod=$H/var/lib/kubelet/pods/$POD_UID
  local sb=$H/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/$SANDBOX_ID
  local token=$pod/volumes/kubernetes.io~projected/kube-api-access-7x2kq
  mkdir -p "$pod/containers/hog" "$token" "$sb" "$H/run/containerd/io.containerd.grpc.v1.cri/sandboxes/$SANDBOX_ID/shm"
  printf '127.0.0.1\tlocalhost\n10.244.0.7\toom-demo\n' >"$pod/etc-hosts"
  # kubelet creates it empty before the container is created.
  TERMINATION_LOG=$pod/containers/hog/0b5d6e1c
  : >"$TERMINATION_LOG"
  echo oom-demo >"$sb/hostname"
  printf 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n' \
    >"$sb/resolv.conf"
  echo token >"$token/token"
}

# cri_bundle SANDBOX_PID [JQ_FILTER...]: $BUNDLE/config.json from the
# fixture, with every bind mount's source under $H, root.path the examples'
# rootfs and the namespaces given by path those of SANDBOX_PID (the pod's
# sandbox: containerd's pause, whose network namespace CNI made), then
# each filter.
cri_bundle() {
  local spid=$1; shift
  local filter=". " f
  for f in "$@"; do filter="$filter | $f"; done
  BUNDLE=$BATS_TEST_TMPDIR/bundle-cri
  mkdir -p "$BUNDLE"
  jq --arg h "$H" --arg root "$ROOTFS" --arg pid "$spid" '
    .mounts |= map(if .type == "bind" then .source = $h + .source else . end)
    | .root.path = $root
    | .linux.namespaces |= map(if .path then
        .path = "/proc/\($pid)/ns/" + ({ ipc: "ipc", uts: "uts", network: "net" }[.type]) else . end)
    | '"$filter" "$CRI_FIXTURE" >"$BUNDLE/config.json"
}

# cri_sandbox_bundle: $SANDBOX_BUNDLE, the pod's sandbox (a sleeper standing
# in for pause) in its own scope in the pod's slice, as containerd makes it.
cri_sandbox_bundle() {
  SANDBOX_BUNDLE=$BATS_TEST_TMPDIR/bundle-sandbox
  mkdir -p "$SANDBOX_BUNDLE"
  jq --arg root "$ROOTFS" --arg cg "$POD_SLICE:cri-containerd:$SANDBOX_ID" --arg sid "$SANDBOX_ID" \
    --arg uid "$POD_UID" '
    .root.path = $root | .linux.cgroupsPath = $cg
    | .annotations = {
        "io.kubernetes.cri.container-type": "sandbox",
        "io.kubernetes.cri.sandbox-id": $sid,
        "io.kubernetes.cri.sandbox-name": "oom-demo",
        "io.kubernetes.cri.sandbox-namespace": "default",
        "io.kubernetes.cri.sandbox-uid": $uid }' \
    "$ROOT_DIR/examples/sleeper/config.json" >"$SANDBOX_BUNDLE/config.json"
}
