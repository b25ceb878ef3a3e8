/* SPDX-License-Identifier: Apache-2.0 */
/* The shim v2's Exec, CloseIO and Update, through task_handle with real
 * ttrpc requests, on a task the test makes up (no container, no cgroup):
 * the exec id's checks, the spec written to the bundle, Start's error, the
 * exec'd process's State, Kill, Wait (deferred, answered on the
 * connection when it is reaped), Delete; its events (TaskExecAdded, a
 * TaskExit with the exec id, never a TaskOOM) through a publish binary
 * that logs the topics; CloseIO closing the shim's writer on stdin (the
 * reader sees EOF); Update's resources file; and a Create that fails
 * leaving the events target as it was. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "containerd/shim.pb-c.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"
#include "shimv2_call.h"
#include "tap.h"

static char dir[] = "/tmp/test_shimv2_exec.XXXXXX";
static char topics[4096], topics_file[128];

static Ttrpc__Response *
call_fd (struct task_service *s, int fd, const char *method, const ProtobufCMessage *m, int *ret)
{
  return shimv2_call_fd (s, fd, TASK_SERVICE, method, m, ret);
}

static Ttrpc__Response *
call (struct task_service *s, const char *method, const ProtobufCMessage *m)
{
  int ret;
  return call_fd (s, -1, method, m, &ret);
}

#define code_of shimv2_code_of

/* The topics the publish binary was run with, one a line. */
static const char *
published (void)
{
  cleanup_free char *text = NULL;
  shim_error_t e = NULL;
  topics[0] = '\0';
  if (util_read_file_at (AT_FDCWD, topics_file, &text, NULL, &e) == 0)
    snprintf (topics, sizeof topics, "%s", text);
  shim_error_release (&e);
  return topics;
}

static Containerd__Task__V2__ExecProcessRequest
exec_req (const char *exec_id, Google__Protobuf__Any *spec)
{
  Containerd__Task__V2__ExecProcessRequest r = CONTAINERD__TASK__V2__EXEC_PROCESS_REQUEST__INIT;
  r.id = (char *) "c1";
  r.exec_id = (char *) exec_id;
  r.stdin = r.stdout = r.stderr = (char *) "";
  r.spec = spec;
  return r;
}

/* A child standing for an exec'd process: it exits with CODE, or waits
 * for a signal when CODE is -1. */
static pid_t
fake_process (int code)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      if (code < 0)
        pause ();
      _exit (code);
    }
  return pid;
}

int
main (void)
{
  struct events_target ev = { .address = "/nonexistent.sock", .ns = "t" };
  struct task_service s;
  Google__Protobuf__Any spec = GOOGLE__PROTOBUF__ANY__INIT;
  const char *json = "{\"args\":[\"/bin/true\"],\"cwd\":\"/\"}";
  char pubbin[128], path[256];
  int sv[2];

  if (mkdtemp (dir) == NULL)
    return 1;
  snprintf (pubbin, sizeof pubbin, "%s/publish", dir);
  snprintf (topics_file, sizeof topics_file, "%s/topics", dir);
  {
    FILE *f = fopen (pubbin, "w");
    fprintf (f, "#!/bin/sh\ncat >/dev/null\necho \"$5\" >>%s\n", topics_file);
    fclose (f);
    chmod (pubbin, 0755);
  }
  ev.publish_binary = pubbin;
  task_service_init (&s, "/nonexistent", &ev);
  spec.type_url = (char *) "types.containerd.io/opencontainers/runtime-spec/1/Process";
  spec.value.data = (uint8_t *) json;
  spec.value.len = strlen (json);

  {
    Containerd__Task__V2__ExecProcessRequest r = exec_req ("e1", &spec);
    Containerd__Task__V2__CreateTaskRequest cr = CONTAINERD__TASK__V2__CREATE_TASK_REQUEST__INIT;
    Ttrpc__Response *resp;
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_NOT_FOUND, "Exec without a task: NotFound");
    /* A Create that fails (no such bundle) leaves the service as new,
     * its events target kept. */
    cr.id = (char *) "c1";
    cr.bundle = (char *) "/nonexistent";
    cr.stdin = cr.stdout = cr.stderr = (char *) "";
    resp = call (&s, "Create", &cr.base);
    ok (resp && resp->status && resp->status->code != 0, "Create in a missing bundle fails");
    code_of (resp);
    ok (s.id == NULL && s.ev.publish_binary == pubbin && s.ev.address == ev.address && s.ev.ns == ev.ns
            && strcmp (s.ctx.root, "/nonexistent") == 0,
        "after a failed Create: no task, the events target and the root kept");
  }
  /* A task made up: a bundle, no container. */
  s.id = strdup ("c1");
  s.bundle = strdup (dir);
  s.pid = 1;
  s.status = CONTAINERD__V1__TYPES__STATUS__RUNNING;
  {
    Containerd__Task__V2__ExecProcessRequest r = exec_req ("../x", &spec);
    Ttrpc__Response *resp;
    cleanup_free char *written = NULL;
    shim_error_t e = NULL;

    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_INVALID_ARGUMENT, "Exec id ../x: InvalidArgument");
    r.exec_id = (char *) "et";
    r.terminal = true;
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_OK, "Exec et with a terminal: OK");
    {
      Containerd__Task__V2__StateRequest st = CONTAINERD__TASK__V2__STATE_REQUEST__INIT;
      Containerd__Task__V2__StartRequest sr = CONTAINERD__TASK__V2__START_REQUEST__INIT;
      Containerd__Task__V2__ResizePtyRequest rz = CONTAINERD__TASK__V2__RESIZE_PTY_REQUEST__INIT;
      Containerd__Task__V2__DeleteRequest dr = CONTAINERD__TASK__V2__DELETE_REQUEST__INIT;
      Containerd__Task__V2__StateResponse *state;
      st.id = sr.id = rz.id = dr.id = (char *) "c1";
      st.exec_id = sr.exec_id = rz.exec_id = dr.exec_id = (char *) "et";
      resp = call (&s, "State", &st.base);
      state = resp && !resp->status
                  ? containerd__task__v2__state_response__unpack (NULL, resp->payload.len, resp->payload.data)
                  : NULL;
      ok (state && state->terminal, "State of et: terminal");
      if (state)
        containerd__task__v2__state_response__free_unpacked (state, NULL);
      code_of (resp);
      rz.width = 80;
      rz.height = 24;
      resp = call (&s, "ResizePty", &rz.base);
      has_str (resp && resp->status ? resp->status->message : "", "no terminal",
               "ResizePty of et before its Start: says it has no terminal");
      is_int (code_of (resp), TTRPC_FAILED_PRECONDITION, "and is FailedPrecondition");
      /* The console socket goes in the root, /nonexistent here. */
      resp = call (&s, "Start", &sr.base);
      has_str (resp && resp->status ? resp->status->message : "", "console socket",
               "Start of et where no console socket can be made: says so");
      code_of (resp);
      ok (s.execs.n == 1 && s.execs.p[0]->pid == 0 && s.execs.p[0]->stdin_fd < 0
              && !console_active (&s.execs.p[0]->console),
          "and et is left created, no writer, no terminal");
      is_int (code_of (call (&s, "Delete", &dr.base)), TTRPC_OK, "Delete of et: OK");
    }
    r.exec_id = (char *) "e1";
    r.terminal = false;
    r.spec = NULL;
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_INVALID_ARGUMENT, "Exec without a spec: InvalidArgument");
    r.spec = &spec;
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_OK, "Exec e1: OK");
    snprintf (path, sizeof path, "%s/exec-e1.json", dir);
    ok (util_read_file_at (AT_FDCWD, path, &written, NULL, &e) == 0 && strcmp (written, json) == 0,
        "the process spec is in the bundle as exec-e1.json");
    shim_error_release (&e);
    has_str (published (), "/tasks/exec-added", "TaskExecAdded published");
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_ALREADY_EXISTS, "Exec e1 again: AlreadyExists");
  }
  {
    Containerd__Task__V2__StateRequest st = CONTAINERD__TASK__V2__STATE_REQUEST__INIT;
    Containerd__Task__V2__StartRequest sr = CONTAINERD__TASK__V2__START_REQUEST__INIT;
    Containerd__Task__V2__KillRequest kr = CONTAINERD__TASK__V2__KILL_REQUEST__INIT;
    Ttrpc__Response *resp;
    Containerd__Task__V2__StateResponse *state;

    st.id = sr.id = kr.id = (char *) "c1";
    st.exec_id = sr.exec_id = kr.exec_id = (char *) "e1";
    resp = call (&s, "State", &st.base);
    state = resp && !resp->status
                ? containerd__task__v2__state_response__unpack (NULL, resp->payload.len, resp->payload.data)
                : NULL;
    ok (state && strcmp (state->exec_id, "e1") == 0 && strcmp (state->id, "e1") == 0
            && state->status == CONTAINERD__V1__TYPES__STATUS__CREATED && state->pid == 0,
        "State of e1: created, no pid");
    if (state)
      containerd__task__v2__state_response__free_unpacked (state, NULL);
    code_of (resp);
    st.exec_id = (char *) "nope";
    is_int (code_of (call (&s, "State", &st.base)), TTRPC_NOT_FOUND, "State of an unknown exec: NotFound");
    kr.signal = SIGKILL;
    is_int (code_of (call (&s, "Kill", &kr.base)), TTRPC_FAILED_PRECONDITION,
            "Kill of an exec not started: FailedPrecondition");
    /* No container under /nonexistent: runtime_exec says so. */
    resp = call (&s, "Start", &sr.base);
    ok (resp && resp->status && resp->status->code != 0, "Start of e1 without a container fails");
    has_str (resp && resp->status ? resp->status->message : "", "start exec", "and says what failed");
    code_of (resp);
    ok (s.execs.n == 1 && s.execs.p[0]->pid == 0 && s.execs.p[0]->stdin_fd < 0,
        "after a failed Start: still created, no stdin writer held");
  }
  {
    /* e1 stands for a process that exits 7; a Wait on it is deferred and
     * answered on its connection at the reaping. */
    Containerd__Task__V2__WaitRequest wr = CONTAINERD__TASK__V2__WAIT_REQUEST__INIT;
    Containerd__Task__V2__DeleteRequest dr = CONTAINERD__TASK__V2__DELETE_REQUEST__INIT;
    struct execs_proc *p = s.execs.p[0];
    struct ttrpc_header h;
    uint8_t *frame = NULL;
    shim_error_t e = NULL;
    int ret, status;
    pid_t pid = fake_process (7);
    Ttrpc__Response *resp;

    p->pid = pid;
    p->status = CONTAINERD__V1__TYPES__STATUS__RUNNING;
    wr.id = dr.id = (char *) "c1";
    wr.exec_id = dr.exec_id = (char *) "e1";
    socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    resp = call_fd (&s, sv[0], "Wait", &wr.base, &ret);
    ok (resp == NULL && ret == 1, "Wait on a running exec: deferred");
    is_int (code_of (call (&s, "Delete", &dr.base)), TTRPC_FAILED_PRECONDITION,
            "Delete of a running exec: FailedPrecondition");
    waitpid (pid, &status, 0);
    task_reaped (&s, pid, status);
    ok (p->exited && p->exit_status == 7 && p->status == CONTAINERD__V1__TYPES__STATUS__STOPPED,
        "reaped: e1 stopped, exit status 7");
    ok (!s.exited, "and the task's init is not taken for exited");
    if (ttrpc_read_frame (sv[1], 1000, &h, &frame, &e) == 1)
      {
        Ttrpc__Response *wresp = ttrpc__response__unpack (NULL, h.length, frame);
        Containerd__Task__V2__WaitResponse *w
            = wresp && !wresp->status
                  ? containerd__task__v2__wait_response__unpack (NULL, wresp->payload.len, wresp->payload.data)
                  : NULL;
        ok (h.stream_id == 9 && w && w->exit_status == 7 && w->exited_at,
            "the deferred Wait answered on its stream: exit status 7");
        if (w)
          containerd__task__v2__wait_response__free_unpacked (w, NULL);
        code_of (wresp);
      }
    else
      ok (0, "the deferred Wait answered on its stream: %s", e ? e->msg : "nothing");
    free (frame);
    shim_error_release (&e);
    has_str (published (), "/tasks/exit", "TaskExit published for the exec");
    ok (strstr (published (), "/tasks/oom") == NULL, "and no TaskOOM");
    resp = call (&s, "Wait", &wr.base);
    ok (resp && !resp->status, "Wait on an exited exec: answered at once");
    code_of (resp);
    is_int (code_of (call (&s, "Delete", &dr.base)), TTRPC_OK, "Delete of the exited exec: OK");
    ok (access (path, F_OK) < 0 && s.execs.n == 0, "its spec file removed, the exec forgotten");
    is_int (code_of (call (&s, "Wait", &wr.base)), TTRPC_NOT_FOUND, "Wait on a deleted exec: NotFound");
  }
  {
    /* Kill of a running exec: its signal, then 128+9 at the reaping. */
    Containerd__Task__V2__ExecProcessRequest r = exec_req ("e2", &spec);
    Containerd__Task__V2__KillRequest kr = CONTAINERD__TASK__V2__KILL_REQUEST__INIT;
    int status;
    pid_t pid = fake_process (-1);

    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_OK, "Exec e2: OK");
    s.execs.p[0]->pid = pid;
    kr.id = (char *) "c1";
    kr.exec_id = (char *) "e2";
    kr.signal = SIGKILL;
    is_int (code_of (call (&s, "Kill", &kr.base)), TTRPC_OK, "Kill e2 with SIGKILL: OK");
    waitpid (pid, &status, 0);
    ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "the process got SIGKILL");
    task_reaped (&s, pid, status);
    is_int (s.execs.p[0]->exit_status, 137, "its exit status: 137");
    is_int (code_of (call (&s, "Kill", &kr.base)), TTRPC_NOT_FOUND, "Kill after its exit: NotFound");
  }
  {
    /* CloseIO: the shim's writer on the stdin FIFO closed, the reader
     * sees EOF (the FIFO has no writer left). */
    Containerd__Task__V2__ExecProcessRequest r = exec_req ("e3", &spec);
    Containerd__Task__V2__CloseIORequest cr = CONTAINERD__TASK__V2__CLOSE_IOREQUEST__INIT;
    char fifo[256], c;
    int rd;

    snprintf (fifo, sizeof fifo, "%s/stdin", dir);
    mkfifo (fifo, 0600);
    r.stdin = fifo;
    is_int (code_of (call (&s, "Exec", &r.base)), TTRPC_OK, "Exec e3 with a stdin FIFO: OK");
    rd = open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    s.execs.p[1]->stdin_fd = open (fifo, O_WRONLY | O_CLOEXEC);
    ok (read (rd, &c, 1) < 0 && errno == EAGAIN, "while the shim holds its writer: no EOF");
    cr.id = (char *) "c1";
    cr.exec_id = (char *) "e3";
    cr.stdin = true;
    is_int (code_of (call (&s, "CloseIO", &cr.base)), TTRPC_OK, "CloseIO stdin: OK");
    ok (s.execs.p[1]->stdin_fd < 0 && read (rd, &c, 1) == 0, "the writer closed: the reader sees EOF");
    close (rd);
    cr.exec_id = (char *) "nope";
    is_int (code_of (call (&s, "CloseIO", &cr.base)), TTRPC_NOT_FOUND, "CloseIO of an unknown exec: NotFound");
  }
  {
    char id[16];
    int i, full = 0;
    for (i = 0; i < 40; i++)
      {
        Containerd__Task__V2__ExecProcessRequest r;
        snprintf (id, sizeof id, "many%d", i);
        r = exec_req (id, &spec);
        full = code_of (call (&s, "Exec", &r.base));
        if (full != TTRPC_OK)
          break;
      }
    is_int (full, TTRPC_UNAVAILABLE, "Exec beyond the table: Unavailable");
    is_int ((int) s.execs.n, EXECS_MAX, "at %d exec'd processes", EXECS_MAX);
  }
  {
    Containerd__Task__V2__UpdateTaskRequest ur = CONTAINERD__TASK__V2__UPDATE_TASK_REQUEST__INIT;
    Google__Protobuf__Any res = GOOGLE__PROTOBUF__ANY__INIT;
    const char *rjson = "{\"memory\":{\"limit\":134217728}}";
    cleanup_free char *written = NULL;
    shim_error_t e = NULL;
    Ttrpc__Response *resp;

    ur.id = (char *) "nope";
    is_int (code_of (call (&s, "Update", &ur.base)), TTRPC_NOT_FOUND, "Update of no such task: NotFound");
    ur.id = (char *) "c1";
    is_int (code_of (call (&s, "Update", &ur.base)), TTRPC_INVALID_ARGUMENT, "Update without resources");
    res.type_url = (char *) "types.containerd.io/opencontainers/runtime-spec/1/LinuxResources";
    res.value.data = (uint8_t *) rjson;
    res.value.len = strlen (rjson);
    ur.resources = &res;
    /* No container under /nonexistent: runtime_update says so. */
    resp = call (&s, "Update", &ur.base);
    has_str (resp && resp->status ? resp->status->message : "", "update", "Update without a container: says so");
    code_of (resp);
    snprintf (path, sizeof path, "%s/update-resources.json", dir);
    ok (util_read_file_at (AT_FDCWD, path, &written, NULL, &e) == 0 && strcmp (written, rjson) == 0,
        "the resources are in the bundle as update-resources.json");
    shim_error_release (&e);
  }
  task_service_release (&s);
  close (sv[0]);
  close (sv[1]);
  {
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
    if (system (cmd) != 0)
      diag ("%s failed", cmd);
  }
  return done_testing ();
}
