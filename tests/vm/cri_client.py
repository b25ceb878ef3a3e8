#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A small CRI client that drives containerd's CRI plugin as the kubelet
does, for tests/vm/cri_matrix.bash: one pod with one container, from
RunPodSandbox to RemovePodSandbox, and what the kubelet would show for the
container once it exited (ContainerStatus's Reason, ExitCode, Message, and
the termination-log the kubelet adds to the Message).

  cri_client.py --socket SOCK --pb DIR version
  cri_client.py --socket SOCK --pb DIR image-ready IMAGE
  cri_client.py --socket SOCK --pb DIR pod --handler H --name N [options] -- CMD...

DIR holds cri_pb2.py, made by `protoc --python_out=DIR tests/vm/cri.proto`.
`pod` prints one JSON object on stdout; each CRI call and how long it took
goes to stderr.  Exit status 0 when every call succeeded (the container's
own exit status is in the JSON), 1 otherwise, naming the call.
"""

import argparse
import json
import os
import signal
import sys
import time

import grpc

RUNTIME = "/runtime.v1.RuntimeService/"
IMAGES = "/runtime.v1.ImageService/"
# The kubelet's default terminationMessagePath.
TERMINATION_LOG = "/dev/termination-log"


class CallError(Exception):
    pass


class Cri:
    def __init__(self, socket, pb):
        self.pb = pb
        self.secs = {}  # seconds spent in each method
        self.channel = grpc.insecure_channel("unix://" + socket)

    def call(self, service, method, request, reply_type, timeout=60):
        """One unary call; the reply, or CallError naming the method."""
        start = time.monotonic()
        stub = self.channel.unary_unary(
            service + method,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=reply_type.FromString,
        )
        try:
            reply = stub(request, timeout=timeout)
        except grpc.RpcError as e:
            raise CallError("%s: %s: %s" % (method, e.code().name, e.details())) from None
        secs = time.monotonic() - start
        self.secs[method] = round(self.secs.get(method, 0) + secs, 2)
        if method != "ContainerStatus":  # polled: too many to log
            log("%s %.2f s" % (method, secs))
        return reply

    def runtime(self, method, **fields):
        pb = self.pb
        return self.call(RUNTIME, method, getattr(pb, method + "Request")(**fields),
                         getattr(pb, method + "Response"))

    def status(self, cid, verbose=False):
        return self.runtime("ContainerStatus", container_id=cid, verbose=verbose)


def log(msg):
    print("cri_client: " + msg, file=sys.stderr, flush=True)


def poll(what, timeout, cond):
    """cond() until it is true (its value returned), every 0.1 s, at most
    TIMEOUT seconds: the kubelet's relist, bounded."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise CallError("timed out after %d s waiting for %s" % (timeout, what))
        time.sleep(0.1)


def kubelet_message(st, termination_log):
    """The Message the kubelet shows for an exited container: the CRI's
    Message, then ": " and the termination-log's text when it has any
    (kuberuntime's convertToKubeContainerStatus)."""
    msg = st.message
    text = ""
    if termination_log and os.path.exists(termination_log):
        with open(termination_log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    if text:
        msg = (msg + ": " if msg else "") + text
    return msg, text


def do_pod(cri, pb, a):
    ns_opt = pb.NamespaceOption(network=pb.NODE, pid=pb.CONTAINER, ipc=pb.POD)
    sandbox_config = pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name=a.name, uid=a.uid, namespace="default", attempt=0),
        log_directory=a.log_dir,
        labels={"io.github.shim.test": a.name},
        linux=pb.LinuxPodSandboxConfig(
            cgroup_parent=a.cgroup_parent,
            security_context=pb.LinuxSandboxSecurityContext(namespace_options=ns_opt),
        ),
    )
    resources = pb.LinuxContainerResources(memory_limit_in_bytes=a.memory)
    for kv in a.unified:
        k, v = kv.split("=", 1)
        resources.unified[k] = v
    mounts = []
    annotations = {}
    if a.termination_log:
        mounts.append(pb.Mount(container_path=TERMINATION_LOG, host_path=a.termination_log))
        annotations["io.kubernetes.container.terminationMessagePath"] = TERMINATION_LOG
        annotations["io.kubernetes.container.terminationMessagePolicy"] = "File"
    config = pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=a.container, attempt=0),
        image=pb.ImageSpec(image=a.image),
        command=a.cmd,
        mounts=mounts,
        annotations=annotations,
        log_path=a.container + "/0.log",
        linux=pb.LinuxContainerConfig(
            resources=resources,
            security_context=pb.LinuxContainerSecurityContext(namespace_options=ns_opt),
        ),
    )
    out = {"handler": a.handler, "pod": a.name}
    start = time.monotonic()
    sid = cid = None
    failure = None
    try:
        sid = cri.runtime("RunPodSandbox", config=sandbox_config, runtime_handler=a.handler).pod_sandbox_id
        out["sandbox_id"] = sid
        cid = cri.runtime("CreateContainer", pod_sandbox_id=sid, config=config,
                          sandbox_config=sandbox_config).container_id
        out["container_id"] = cid
        cri.runtime("StartContainer", container_id=cid)
        # The host pid of init, from the verbose status (containerd's info).
        try:
            info = json.loads(cri.status(cid, verbose=True).info.get("info", "{}"))
            out["pid"] = info.get("pid")
        except ValueError:
            out["pid"] = None
        logfile = os.path.join(a.log_dir, a.container, "0.log")
        if a.after.startswith("log:"):
            text = a.after[4:]

            def in_log():
                try:
                    with open(logfile, encoding="utf-8", errors="replace") as f:
                        return text in f.read()
                except FileNotFoundError:
                    return False

            poll("%r in %s" % (text, logfile), a.timeout, in_log)
        if a.then == "kill9":
            if not out["pid"]:
                raise CallError("kill9: no pid in ContainerStatus's info")
            os.kill(out["pid"], signal.SIGKILL)
            log("kill -9 %d (init, from outside)" % out["pid"])
        elif a.then.startswith("stop:"):
            cri.runtime("StopContainer", container_id=cid, timeout=int(a.then[5:]))
        poll("container %s exited" % cid, a.timeout,
             lambda: cri.status(cid).status.state == pb.CONTAINER_EXITED)
        st = cri.status(cid).status
        out["state"] = pb.ContainerState.Name(st.state)
        out["reason"] = st.reason
        out["exit_code"] = st.exit_code
        out["cri_message"] = st.message
        out["message"], out["termination_log"] = kubelet_message(st, a.termination_log)
        try:
            with open(logfile, encoding="utf-8", errors="replace") as f:
                out["log"] = f.read()[-2000:]
        except FileNotFoundError:
            out["log"] = None
    except CallError as e:
        failure = str(e)
    # The kubelet's teardown of the pod, whatever happened above.
    for step in (("StopContainer", {"container_id": cid, "timeout": 0}),
                 ("RemoveContainer", {"container_id": cid}),
                 ("StopPodSandbox", {"pod_sandbox_id": sid}),
                 ("RemovePodSandbox", {"pod_sandbox_id": sid})):
        if list(step[1].values())[0] is None:
            continue
        try:
            cri.runtime(step[0], **step[1])
        except CallError as e:
            failure = failure or str(e)
    if failure:
        out["error"] = failure
    out["seconds"] = round(time.monotonic() - start, 1)
    out["call_seconds"] = cri.secs
    print(json.dumps(out))
    return 1 if failure else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", default="/run/containerd/containerd.sock")
    p.add_argument("--pb", required=True, help="the directory of cri_pb2.py")
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("version")
    img = sub.add_parser("image-ready")
    img.add_argument("image")
    img.add_argument("--timeout", type=int, default=60)
    pod = sub.add_parser("pod")
    pod.add_argument("--handler", required=True)
    pod.add_argument("--name", required=True)
    pod.add_argument("--uid", required=True)
    pod.add_argument("--container", default="main")
    pod.add_argument("--cgroup-parent", default="")
    pod.add_argument("--log-dir", required=True)
    pod.add_argument("--image", required=True)
    pod.add_argument("--memory", type=int, default=0)
    pod.add_argument("--unified", action="append", default=[], metavar="KEY=VALUE")
    pod.add_argument("--termination-log", default="")
    pod.add_argument("--after", default="", help="log:TEXT: wait for TEXT in the container's log first")
    pod.add_argument("--then", default="none", help="none, stop:SECONDS (StopContainer) or kill9")
    pod.add_argument("--timeout", type=int, default=120)
    pod.add_argument("cmd", nargs="+")
    a = p.parse_args()

    sys.path.insert(0, a.pb)
    import cri_pb2 as pb  # noqa: E402 (made at test time)

    cri = Cri(a.socket, pb)
    try:
        if a.what == "version":
            v = cri.runtime("Version", version="v1")
            print(v.runtime_name, v.runtime_version, v.runtime_api_version)
            return 0
        if a.what == "image-ready":
            def known():
                r = cri.call(IMAGES, "ImageStatus", pb.ImageStatusRequest(image=pb.ImageSpec(image=a.image)),
                             pb.ImageStatusResponse)
                return r.image.id
            print(poll("image %s in CRI's store" % a.image, a.timeout, known))
            return 0
        return do_pod(cri, pb, a)
    except CallError as e:
        print("cri_client: " + str(e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
