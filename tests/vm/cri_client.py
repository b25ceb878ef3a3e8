#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A small CRI client that drives containerd's CRI plugin as the kubelet
does, for tests/vm/cri_matrix.bash: one pod with one container, from
RunPodSandbox to RemovePodSandbox, and what the kubelet would show for the
container once it exited (ContainerStatus's Reason, ExitCode, Message, and
the termination-log the kubelet adds to the Message); with --stats, the
running container's ContainerStats (cpu usage, memory working set) in the
pod's "stats".

  cri_client.py --socket SOCK --pb DIR version
  cri_client.py --socket SOCK --pb DIR image-ready IMAGE
  cri_client.py --socket SOCK --pb DIR pods POD_ARGS [--- POD_ARGS]...
     POD_ARGS: --handler H --name N --uid U --log-dir D --image I [options] -- CMD...

DIR holds cri_pb2.py, made by `protoc --python_out=DIR tests/vm/cri.proto`.
`pods` checks the runtime's Version and waits for the pods' images in CRI's
store, runs the pods side by side (a thread each) and prints, per pod in
their order, a JSON object and the same as one line of fields separated
by 0x1f ("pod", name, handler, container and sandbox ids, Reason, ExitCode,
seconds, error, Message) on stdout; each CRI call and how long it took
goes to stderr.  Exit status 0 when every call succeeded (the
containers' own exit statuses are in the JSON), 1 otherwise, naming the
call in the pod's "error".
"""

import argparse
import json
import os
import signal
import sys
import threading
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
    """To stderr, named by the pod (its thread's name) when there is one."""
    who = threading.current_thread().name
    who = "" if who == "MainThread" else who + ": "
    print("cri_client: " + who + msg, file=sys.stderr, flush=True)


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
    if a.go_dir:
        mounts.append(pb.Mount(container_path="/go", host_path=a.go_dir, readonly=True))
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
        if a.go_dir:
            # Started: the workload may go on (a memory hog then hits its
            # limit while the runtime's shim watches the container).
            with open(os.path.join(a.go_dir, "start"), "w"):
                pass
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
        if a.stats:
            # What the kubelet's summary reads (CRI decodes the runtime
            # shim's cgroups Metrics into these).
            s = cri.runtime("ContainerStats", container_id=cid).stats
            out["stats"] = {"cpu_ns": s.cpu.usage_core_nano_seconds.value,
                            "working_set_bytes": s.memory.working_set_bytes.value}
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
    return out


def pod_parser():
    pod = argparse.ArgumentParser(prog="cri_client.py pods")
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
    pod.add_argument("--go-dir", default="",
                     help="a host dir mounted at /go, where the file start is made once StartContainer returned")
    pod.add_argument("--after", default="", help="log:TEXT: wait for TEXT in the container's log first")
    pod.add_argument("--then", default="none", help="none, stop:SECONDS (StopContainer) or kill9")
    pod.add_argument("--stats", action="store_true",
                     help="ContainerStats of the running container (after --after) in the pod's \"stats\"")
    pod.add_argument("--timeout", type=int, default=120)
    pod.add_argument("cmd", nargs="+")
    return pod


def do_pods(cri, pb, argv):
    """Each pod's arguments (split on ---) in a thread of its own."""
    specs, cur = [], []
    for w in argv + ["---"]:
        if w == "---":
            if cur:
                specs.append(pod_parser().parse_args(cur))
            cur = []
        else:
            cur.append(w)
    if not specs:
        raise CallError("pods: no pod given")
    # The runtime answers, and its image store has every pod's image
    # (ctr's import reaches CRI's store through an event).
    v = cri.runtime("Version", version="v1")
    log("%s %s, CRI %s" % (v.runtime_name, v.runtime_version, v.runtime_api_version))
    for image in sorted({a.image for a in specs}):
        poll("image %s in CRI's store" % image, 60,
             lambda: cri.call(IMAGES, "ImageStatus", pb.ImageStatusRequest(image=pb.ImageSpec(image=image)),
                              pb.ImageStatusResponse).image.id)
    results = [None] * len(specs)

    def one(i):
        results[i] = do_pod(cri, pb, specs[i])

    threads = [threading.Thread(target=one, args=(i,), name=specs[i].name) for i in range(len(specs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rc = 0
    for spec, out in zip(specs, results):
        if out is None:
            out = {"handler": spec.handler, "pod": spec.name, "error": "the pod's thread failed"}
        print(json.dumps(out))
        # The same for a shell's `read`: fields separated by US (0x1f: not
        # white space, so an empty field is kept), the message last, on
        # one line.
        print("\x1f".join(["pod"] + [str(out.get(k, "")).replace("\x1f", " ").replace("\n", " ").rstrip()
                                    for k in ("pod", "handler", "container_id", "sandbox_id", "reason",
                                              "exit_code", "seconds", "error", "message")]))
        if "error" in out:
            rc = 1
    return rc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", default="/run/containerd/containerd.sock")
    p.add_argument("--pb", required=True, help="the directory of cri_pb2.py")
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("version")
    img = sub.add_parser("image-ready")
    img.add_argument("image")
    img.add_argument("--timeout", type=int, default=60)
    sub.add_parser("pods")
    # What follows `pods` is the pods' own arguments (pod_parser's).
    argv = sys.argv[1:]
    rest = []
    if "pods" in argv:
        rest = argv[argv.index("pods") + 1:]
        argv = argv[:argv.index("pods") + 1]
    a = p.parse_args(argv)

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
        return do_pods(cri, pb, rest)
    except CallError as e:
        print("cri_client: " + str(e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
