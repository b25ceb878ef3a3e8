/* SPDX-License-Identifier: Apache-2.0 */
/* The task service (see task.h): each method decodes its request, calls
 * libshim, and encodes the reply or a gRPC status naming what failed. */
#include "shimv2/task.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "containerd/events.pb-c.h"
#include "containerd/shim.pb-c.h"
#include "google/protobuf/empty.pb-c.h"
#include "shimv2/ttrpc.h"

/* How long a Create may take (hooks, image mounts): runc's shim has no
 * bound; ours ends the wait and says so. */
#define TASK_CREATE_MS 120000
/* As `shim delete`: how long the watcher may take for its last record. */
#define TASK_VERDICT_WAIT_MS 2000
#define TASK_PID_FILE "init.pid"

void
task_service_init (struct task_service *s, const char *root, const struct events_target *ev)
{
  memset (s, 0, sizeof *s);
  s->ctx.root = root;
  s->ev = *ev;
  s->status = CONTAINERD__V1__TYPES__STATUS__UNKNOWN;
}

void
task_service_release (struct task_service *s)
{
  free (s->id);
  free (s->bundle);
  free (s->stdin_path);
  free (s->stdout_path);
  free (s->stderr_path);
}

uint32_t
task_exit_status (int wait_status)
{
  if (WIFSIGNALED (wait_status))
    return 128u + (uint32_t) WTERMSIG (wait_status);
  return (uint32_t) WEXITSTATUS (wait_status);
}

bool
task_verdict_oom (const struct verdict *v)
{
  return v->oom_killed == VERDICT_TRUE;
}

static int
reply_msg (const ProtobufCMessage *m, uint8_t **out, size_t *len, shim_error_t *err)
{
  cleanup_free uint8_t *buf = malloc (protobuf_c_message_get_packed_size (m) + 1);
  size_t n;
  if (buf == NULL)
    return shim_error_errno (err, "task: malloc");
  n = protobuf_c_message_pack (m, buf);
  return ttrpc_response_encode (TTRPC_OK, NULL, buf, n, out, len, err);
}

static int
reply_empty (uint8_t **out, size_t *len, shim_error_t *err)
{
  Google__Protobuf__Empty e = GOOGLE__PROTOBUF__EMPTY__INIT;
  return reply_msg (&e.base, out, len, err);
}

static int __attribute__ ((format (printf, 5, 6)))
reply_status (enum ttrpc_code code, uint8_t **out, size_t *len, shim_error_t *err, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  return ttrpc_response_encode (code, msg, NULL, 0, out, len, err);
}

/* A libshim error as the reply: its errno says the code. */
static int
reply_error (shim_error_t *e, const char *what, uint8_t **out, size_t *len, shim_error_t *err)
{
  int r = reply_status (ttrpc_code_from_errno ((*e)->status), out, len, err, "%s: %s", what, (*e)->msg);
  log_msg (LOG_ERROR, "%s: %s", what, (*e)->msg);
  shim_error_release (e);
  return r;
}

static Google__Protobuf__Timestamp
timestamp (const struct timespec *t)
{
  Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
  ts.seconds = t->tv_sec;
  ts.nanos = (int32_t) t->tv_nsec;
  return ts;
}

/* As containerd's own shims, a failed publish is tried again (5 times in
 * all, 100 ms more apart each time), in place, so that the events keep
 * their order (TaskOOM before TaskExit). */
static void
publish (struct task_service *s, const char *topic, const ProtobufCMessage *m)
{
  int attempt;
  for (attempt = 1; attempt <= 5; attempt++)
    {
      shim_error_t e = NULL;
      struct timespec pause = { 0, 100000000L * attempt };
      if (events_publish (&s->ev, topic, m, &e) == 0)
        return;
      log_msg (LOG_WARNING, "%s not published (attempt %d of 5): %s", topic, attempt, e->msg);
      shim_error_release (&e);
      nanosleep (&pause, NULL);
    }
}

/* The rootfs mounts containerd gives (a snapshot: overlay, bind) onto
 * BUNDLE/rootfs, as runc's shim does; OCI mount flags become flags, the
 * rest the filesystem's data. */
static int
mount_rootfs (const char *bundle, Containerd__Types__Mount *const *m, size_t n, shim_error_t *err)
{
  static const struct { const char *name; unsigned long flag; } flags[] = {
    { "ro", MS_RDONLY }, { "rw", 0 }, { "bind", MS_BIND }, { "rbind", MS_BIND | MS_REC },
    { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
  };
  cleanup_free char *target = NULL;
  size_t i, j, k;

  if (n == 0)
    return 0;
  if (n > 1)
    return shim_error (err, EOPNOTSUPP, "create: %zu rootfs mounts (one is supported)", n);
  if (asprintf (&target, "%s/rootfs", bundle) < 0)
    return shim_error_errno (err, "create: asprintf");
  for (i = 0; i < n; i++)
    {
      char data[4096] = "";
      unsigned long mf = 0;
      for (j = 0; j < m[i]->n_options; j++)
        {
          for (k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (strcmp (m[i]->options[j], flags[k].name) == 0)
              break;
          if (k < sizeof flags / sizeof flags[0])
            mf |= flags[k].flag;
          else if (snprintf (data + strlen (data), sizeof data - strlen (data), "%s%s", data[0] ? "," : "",
                             m[i]->options[j]) >= (int) (sizeof data - strlen (data)))
            return shim_error (err, E2BIG, "create: rootfs mount options over %zu bytes", sizeof data);
        }
      if (mount (m[i]->source, target, m[i]->type, mf, data[0] ? data : NULL) < 0)
        return shim_error_errno (err, "create: mount %s (%s) on %s", m[i]->source, m[i]->type, target);
    }
  return 0;
}

static void
unmount_rootfs (struct task_service *s)
{
  cleanup_free char *target = NULL;
  if (!s->rootfs_mounted || asprintf (&target, "%s/rootfs", s->bundle) < 0)
    return;
  if (umount2 (target, MNT_DETACH) < 0)
    log_msg (LOG_WARNING, "umount %s: %m", target);
  s->rootfs_mounted = false;
}

/* A stdio FIFO containerd made (or /dev/null for none) as fd TARGET of
 * the child about to create the container: read-write for the output
 * ones, which then never block on a reader that has not opened yet. */
static int
stdio_open (const char *path, int target, int flags)
{
  int fd = open (path && *path ? path : "/dev/null", flags | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (fcntl (fd, F_SETFL, flags) < 0 || dup2 (fd, target) < 0)
    return -1;
  close (fd);
  return 0;
}

/* In the child: stdio, then runtime_create; its error is written to ERRFD. */
static void __attribute__ ((noreturn))
create_child (struct task_service *s, int errfd)
{
  struct runtime_create_opts o = { .bundle = s->bundle, .id = s->id, .pid_file = TASK_PID_FILE };
  shim_error_t e = NULL;
  sigset_t all;

  sigemptyset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
  /* libshim's log stays the shim's (the bundle's log FIFO, our stderr
   * until the container's replaces it). */
  log_init ("containerd-shim-shim-v2", "/proc/self/fd/2", "text", log_debug_enabled (), NULL);
  if (stdio_open (s->stdin_path, 0, O_RDONLY) < 0 || stdio_open (s->stdout_path, 1, O_RDWR) < 0
      || stdio_open (s->stderr_path, 2, O_RDWR) < 0)
    {
      dprintf (errfd, "opening the stdio FIFOs: %m");
      _exit (1);
    }
  if (runtime_create (&s->ctx, &o, &e) < 0)
    {
      dprintf (errfd, "%s", e->msg);
      _exit (e->status ? e->status : 1);
    }
  _exit (0);
}

static int
do_create (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__CreateTaskRequest *req
      = containerd__task__v2__create_task_request__unpack (NULL, p->len, p->data);
  Containerd__Task__V2__CreateTaskResponse resp = CONTAINERD__TASK__V2__CREATE_TASK_RESPONSE__INIT;
  Containerd__Events__TaskCreate ev = CONTAINERD__EVENTS__TASK_CREATE__INIT;
  Containerd__Events__TaskIO io = CONTAINERD__EVENTS__TASK_IO__INIT;
  char msg[2048] = "";
  cleanup_free char *pidtext = NULL;
  shim_error_t e = NULL;
  int fds[2], r, status = 0;
  size_t got = 0;
  pid_t child;

  if (req == NULL)
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "create: not a CreateTaskRequest");
  if (s->id)
    r = reply_status (TTRPC_ALREADY_EXISTS, out, len, err, "create: this shim already has task %s", s->id);
  else if (req->terminal)
    r = reply_status (TTRPC_UNIMPLEMENTED, out, len, err,
                      "create %s: terminal=true: containerd-shim-shim-v2 has no console support yet", req->id);
  else if (req->checkpoint && *req->checkpoint)
    r = reply_status (TTRPC_UNIMPLEMENTED, out, len, err, "create %s: checkpoints are not supported", req->id);
  else
    r = 1;
  if (r != 1)
    {
      containerd__task__v2__create_task_request__free_unpacked (req, NULL);
      return r;
    }
  s->id = strdup (req->id);
  s->bundle = strdup (req->bundle);
  s->stdin_path = strdup (req->stdin);
  s->stdout_path = strdup (req->stdout);
  s->stderr_path = strdup (req->stderr);
  if (mount_rootfs (req->bundle, req->rootfs, req->n_rootfs, &e) < 0)
    goto fail;
  s->rootfs_mounted = req->n_rootfs > 0;
  if (pipe2 (fds, O_CLOEXEC) < 0 || (child = fork ()) < 0)
    {
      shim_error_errno (&e, "create: fork");
      goto fail;
    }
  if (child == 0)
    create_child (s, fds[1]);
  close (fds[1]);
  /* Wait for the child's exit, bounded; the pipe never ends by itself:
   * init, forked inside runtime_create, holds its write end until exec. */
  {
    cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, child, 0);
    struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
    ssize_t n;
    if (pidfd < 0 || poll (&pfd, 1, TASK_CREATE_MS) <= 0)
      kill (child, SIGKILL);
    while (waitpid (child, &status, 0) < 0 && errno == EINTR)
      ;
    fcntl (fds[0], F_SETFL, O_NONBLOCK);
    while (got < sizeof msg - 1 && (n = read (fds[0], msg + got, sizeof msg - 1 - got)) > 0)
      got += (size_t) n;
  }
  close (fds[0]);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      shim_error_plain (&e, WIFEXITED (status) ? WEXITSTATUS (status) : ETIMEDOUT, "%s",
                        got ? msg : "the container was not created (the creating process died)");
      goto fail;
    }
  /* runtime_create wrote init's pid in the bundle before it returned. */
  {
    cleanup_close int dfd = open (s->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int64_t pid = 0;
    if (util_read_file_at (dfd, TASK_PID_FILE, &pidtext, NULL, &e) < 0 || util_parse_i64 (pidtext, &pid) < 0
        || pid <= 0)
      {
        shim_error (&e, EPROTO, "create: no pid in %s/%s", s->bundle, TASK_PID_FILE);
        goto fail;
      }
    s->pid = (pid_t) pid;
  }
  s->status = CONTAINERD__V1__TYPES__STATUS__CREATED;
  log_msg (LOG_INFO, "created %s: init pid %d", s->id, (int) s->pid);
  ev.container_id = s->id;
  ev.bundle = s->bundle;
  ev.n_rootfs = req->n_rootfs;
  ev.rootfs = req->rootfs;
  io.stdin = s->stdin_path;
  io.stdout = s->stdout_path;
  io.stderr = s->stderr_path;
  ev.io = &io;
  ev.pid = (uint32_t) s->pid;
  publish (s, "/tasks/create", &ev.base);
  containerd__task__v2__create_task_request__free_unpacked (req, NULL);
  resp.pid = (uint32_t) s->pid;
  return reply_msg (&resp.base, out, len, err);

fail:
  containerd__task__v2__create_task_request__free_unpacked (req, NULL);
  unmount_rootfs (s);
  r = reply_error (&e, "create", out, len, err);
  task_service_release (s);
  task_service_init (s, s->ctx.root, &s->ev);
  return r;
}

/* The request's container id is this shim's task, and exec_id (none here)
 * names its init. */
static bool
is_ours (struct task_service *s, const char *id, const char *exec_id, uint8_t **out, size_t *len, int *r,
         shim_error_t *err)
{
  if (s->id == NULL || strcmp (id, s->id) != 0)
    *r = reply_status (TTRPC_NOT_FOUND, out, len, err, "task %s: not found", id);
  else if (exec_id && *exec_id)
    *r = reply_status (TTRPC_NOT_FOUND, out, len, err, "task %s: exec %s: not found (no exec support yet)", id,
                       exec_id);
  else
    return true;
  return false;
}

static int
reply_wait (struct task_service *s, uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__WaitResponse resp = CONTAINERD__TASK__V2__WAIT_RESPONSE__INIT;
  Google__Protobuf__Timestamp ts = timestamp (&s->exited_at);
  resp.exit_status = s->exit_status;
  resp.exited_at = &ts;
  return reply_msg (&resp.base, out, len, err);
}

/* Each method: the decoded request R (NULL: not that message), the reply. */
#define TASK_REQ(name, lower)                                                                           \
  Containerd__Task__V2__##name *r = containerd__task__v2__##lower##__unpack (NULL, p->len, p->data); \
  int ret;                                                                                              \
  if (r == NULL)                                                                                        \
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "not a " #name);
#define TASK_REQ_END(lower) containerd__task__v2__##lower##__free_unpacked (r, NULL)

static int
do_start (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (StartRequest, start_request);
  if (is_ours (s, r->id, r->exec_id, out, len, &ret, err))
    {
      Containerd__Task__V2__StartResponse resp = CONTAINERD__TASK__V2__START_RESPONSE__INIT;
      Containerd__Events__TaskStart ev = CONTAINERD__EVENTS__TASK_START__INIT;
      shim_error_t e = NULL;
      if (runtime_start (&s->ctx, s->id, &e) < 0)
        ret = reply_error (&e, "start", out, len, err);
      else
        {
          if (!s->exited)
            s->status = CONTAINERD__V1__TYPES__STATUS__RUNNING;
          ev.container_id = s->id;
          ev.pid = resp.pid = (uint32_t) s->pid;
          publish (s, "/tasks/start", &ev.base);
          ret = reply_msg (&resp.base, out, len, err);
        }
    }
  TASK_REQ_END (start_request);
  return ret;
}

static int
do_state (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (StateRequest, state_request);
  if (is_ours (s, r->id, r->exec_id, out, len, &ret, err))
    {
      Containerd__Task__V2__StateResponse resp = CONTAINERD__TASK__V2__STATE_RESPONSE__INIT;
      Google__Protobuf__Timestamp ts = timestamp (&s->exited_at);
      resp.id = s->id;
      resp.bundle = s->bundle;
      resp.pid = (uint32_t) s->pid;
      resp.status = s->status;
      resp.stdin = s->stdin_path;
      resp.stdout = s->stdout_path;
      resp.stderr = s->stderr_path;
      if (s->exited)
        {
          resp.exit_status = s->exit_status;
          resp.exited_at = &ts;
        }
      ret = reply_msg (&resp.base, out, len, err);
    }
  TASK_REQ_END (state_request);
  return ret;
}

static int
do_kill (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (KillRequest, kill_request);
  if (is_ours (s, r->id, r->exec_id, out, len, &ret, err))
    {
      shim_error_t e = NULL;
      /* containerd's errdefs: NotFound is "process already finished". */
      if (s->exited && !r->all)
        ret = reply_status (TTRPC_NOT_FOUND, out, len, err, "kill %s: process already finished", s->id);
      else if (runtime_kill (&s->ctx, s->id, (int) r->signal, r->all, &e) < 0)
        ret = reply_error (&e, "kill", out, len, err);
      else
        ret = reply_empty (out, len, err);
    }
  TASK_REQ_END (kill_request);
  return ret;
}

static int
do_delete (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (DeleteRequest, delete_request);
  if (is_ours (s, r->id, r->exec_id, out, len, &ret, err))
    {
      Containerd__Task__V2__DeleteResponse resp = CONTAINERD__TASK__V2__DELETE_RESPONSE__INIT;
      Containerd__Events__TaskDelete ev = CONTAINERD__EVENTS__TASK_DELETE__INIT;
      Google__Protobuf__Timestamp ts;
      shim_error_t e = NULL;
      if (!s->exited && s->status != CONTAINERD__V1__TYPES__STATUS__CREATED)
        ret = reply_status (TTRPC_FAILED_PRECONDITION, out, len, err, "delete %s: the task is running", s->id);
      else if (runtime_delete (&s->ctx, s->id, true, &e) < 0)
        ret = reply_error (&e, "delete", out, len, err);
      else
        {
          unmount_rootfs (s);
          if (!s->exited)
            clock_gettime (CLOCK_REALTIME, &s->exited_at);
          ts = timestamp (&s->exited_at);
          s->status = CONTAINERD__V1__TYPES__STATUS__STOPPED;
          resp.pid = ev.pid = (uint32_t) s->pid;
          resp.exit_status = ev.exit_status = s->exit_status;
          resp.exited_at = ev.exited_at = &ts;
          ev.container_id = s->id;
          publish (s, "/tasks/delete", &ev.base);
          ret = reply_msg (&resp.base, out, len, err);
          free (s->id);
          s->id = NULL;
        }
    }
  TASK_REQ_END (delete_request);
  return ret;
}

static int
do_wait (struct task_service *s, int fd, uint32_t stream, const ProtobufCBinaryData *p, uint8_t **out,
         size_t *len, shim_error_t *err)
{
  TASK_REQ (WaitRequest, wait_request);
  if (is_ours (s, r->id, r->exec_id, out, len, &ret, err))
    {
      if (s->exited)
        ret = reply_wait (s, out, len, err);
      else if (s->n_waits == TASK_WAITS_MAX)
        ret = reply_status (TTRPC_UNAVAILABLE, out, len, err, "wait %s: %d waits already", s->id, TASK_WAITS_MAX);
      else
        {
          s->waits[s->n_waits++] = (struct task_wait){ .fd = fd, .stream = stream };
          ret = 1;
        }
    }
  TASK_REQ_END (wait_request);
  return ret;
}

static int
do_pids (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (PidsRequest, pids_request);
  if (is_ours (s, r->id, NULL, out, len, &ret, err))
    {
      Containerd__Task__V2__PidsResponse resp = CONTAINERD__TASK__V2__PIDS_RESPONSE__INIT;
      struct runtime_ps_entry *ps = NULL;
      size_t n = 0, i;
      shim_error_t e = NULL;
      if (runtime_ps (&s->ctx, s->id, &ps, &n, &e) < 0)
        ret = reply_error (&e, "pids", out, len, err);
      else
        {
          Containerd__V1__Types__ProcessInfo *info = calloc (n + 1, sizeof *info);
          Containerd__V1__Types__ProcessInfo **ptrs = calloc (n + 1, sizeof *ptrs);
          if (info == NULL || ptrs == NULL)
            ret = shim_error_errno (err, "pids: calloc");
          else
            {
              for (i = 0; i < n; i++)
                {
                  int64_t pid = 0;
                  containerd__v1__types__process_info__init (&info[i]);
                  util_parse_i64 (ps[i].pid, &pid);
                  info[i].pid = (uint32_t) pid;
                  ptrs[i] = &info[i];
                }
              resp.n_processes = n;
              resp.processes = ptrs;
              ret = reply_msg (&resp.base, out, len, err);
            }
          free (info);
          free (ptrs);
          runtime_ps_free (ps, n);
        }
    }
  TASK_REQ_END (pids_request);
  return ret;
}

/* Pause and Resume: the cgroup frozen or thawed (runtime_pause), the
 * event containerd's own shims send. */
static int
pause_resume (struct task_service *s, const char *id, bool pause, uint8_t **out, size_t *len,
              shim_error_t *err)
{
  Containerd__Events__TaskPaused ev = CONTAINERD__EVENTS__TASK_PAUSED__INIT;
  Containerd__Events__TaskResumed rev = CONTAINERD__EVENTS__TASK_RESUMED__INIT;
  shim_error_t e = NULL;
  int ret;

  if (!is_ours (s, id, NULL, out, len, &ret, err))
    return ret;
  if ((pause ? runtime_pause : runtime_resume) (&s->ctx, s->id, &e) < 0)
    return reply_error (&e, pause ? "pause" : "resume", out, len, err);
  if (!s->exited)
    s->status = pause ? CONTAINERD__V1__TYPES__STATUS__PAUSED : CONTAINERD__V1__TYPES__STATUS__RUNNING;
  ev.container_id = rev.container_id = s->id;
  publish (s, pause ? "/tasks/paused" : "/tasks/resumed", pause ? &ev.base : &rev.base);
  return reply_empty (out, len, err);
}

static int
do_pause (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (PauseRequest, pause_request);
  ret = pause_resume (s, r->id, true, out, len, err);
  TASK_REQ_END (pause_request);
  return ret;
}

static int
do_resume (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (ResumeRequest, resume_request);
  ret = pause_resume (s, r->id, false, out, len, err);
  TASK_REQ_END (resume_request);
  return ret;
}

static int
do_connect (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (ConnectRequest, connect_request);
  Containerd__Task__V2__ConnectResponse resp = CONTAINERD__TASK__V2__CONNECT_RESPONSE__INIT;
  resp.shim_pid = (uint32_t) getpid ();
  resp.task_pid = (uint32_t) s->pid;
  resp.version = (char *) "containerd-shim-shim-v2";
  ret = reply_msg (&resp.base, out, len, err);
  TASK_REQ_END (connect_request);
  return ret;
}

static int
do_shutdown (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (ShutdownRequest, shutdown_request);
  /* As runc's shim: ends only once its task is deleted (or told now). */
  if (s->id == NULL || r->now)
    s->shutdown = true;
  ret = reply_empty (out, len, err);
  TASK_REQ_END (shutdown_request);
  return ret;
}

int
task_handle (struct task_service *s, int fd, uint32_t stream, const Ttrpc__Request *req, uint8_t **out,
             size_t *len, shim_error_t *err)
{
  const ProtobufCBinaryData *p = &req->payload;
  const char *m = req->method;

  if (strcmp (req->service, TASK_SERVICE) != 0)
    return reply_status (TTRPC_UNIMPLEMENTED, out, len, err, "service %s: not served here", req->service);
  if (strcmp (m, "Create") == 0)
    return do_create (s, p, out, len, err);
  if (strcmp (m, "Start") == 0)
    return do_start (s, p, out, len, err);
  if (strcmp (m, "State") == 0)
    return do_state (s, p, out, len, err);
  if (strcmp (m, "Kill") == 0)
    return do_kill (s, p, out, len, err);
  if (strcmp (m, "Delete") == 0)
    return do_delete (s, p, out, len, err);
  if (strcmp (m, "Wait") == 0)
    return do_wait (s, fd, stream, p, out, len, err);
  if (strcmp (m, "Pids") == 0)
    return do_pids (s, p, out, len, err);
  if (strcmp (m, "Pause") == 0)
    return do_pause (s, p, out, len, err);
  if (strcmp (m, "Resume") == 0)
    return do_resume (s, p, out, len, err);
  if (strcmp (m, "Connect") == 0)
    return do_connect (s, p, out, len, err);
  if (strcmp (m, "Shutdown") == 0)
    return do_shutdown (s, p, out, len, err);
  return reply_status (TTRPC_UNIMPLEMENTED, out, len, err, "%s.%s: not implemented by containerd-shim-shim-v2",
                       req->service, m);
}

void
task_conn_closed (struct task_service *s, int fd)
{
  size_t i, j = 0;
  for (i = 0; i < s->n_waits; i++)
    if (s->waits[i].fd != fd)
      s->waits[j++] = s->waits[i];
  s->n_waits = j;
}

/* init's verdict, in the log as one JSON line; TaskOOM only when it says
 * oom_killed true, and then before TaskExit, as the issue asks. */
static void
init_exited (struct task_service *s, int status)
{
  Containerd__Events__TaskExit ev = CONTAINERD__EVENTS__TASK_EXIT__INIT;
  Containerd__Events__TaskOOM oom = CONTAINERD__EVENTS__TASK_OOM__INIT;
  Google__Protobuf__Timestamp ts;
  cleanup_free char *json = NULL;
  struct verdict v;
  shim_error_t e = NULL;
  bool have_verdict;

  s->exited = true;
  s->exit_status = task_exit_status (status);
  clock_gettime (CLOCK_REALTIME, &s->exited_at);
  s->status = CONTAINERD__V1__TYPES__STATUS__STOPPED;
  have_verdict = runtime_verdict_reaped (&s->ctx, s->id, status, TASK_VERDICT_WAIT_MS, &v, &e) == 0
                 && verdict_to_json (&v, &json, &e) == 0;
  if (have_verdict)
    log_msg (LOG_INFO, "verdict %s: %s", s->id, json);
  else
    {
      log_msg (LOG_WARNING, "no verdict for %s: %s", s->id, e->msg);
      shim_error_release (&e);
    }
  if (have_verdict && task_verdict_oom (&v))
    {
      oom.container_id = s->id;
      publish (s, "/tasks/oom", &oom.base);
    }
  ts = timestamp (&s->exited_at);
  ev.container_id = ev.id = s->id;
  ev.pid = (uint32_t) s->pid;
  ev.exit_status = s->exit_status;
  ev.exited_at = &ts;
  publish (s, "/tasks/exit", &ev.base);
}

void
task_reaped (struct task_service *s, pid_t pid, int status)
{
  size_t i;

  if (s->id == NULL || pid != s->pid || s->exited)
    return;
  init_exited (s, status);
  for (i = 0; i < s->n_waits; i++)
    {
      struct ttrpc_header h = { .stream_id = s->waits[i].stream, .type = TTRPC_TYPE_RESPONSE };
      cleanup_free uint8_t *buf = NULL;
      size_t len;
      shim_error_t e = NULL;
      if (reply_wait (s, &buf, &len, &e) < 0
          || (h.length = (uint32_t) len, ttrpc_write_frame (s->waits[i].fd, 5000, &h, buf, &e) < 0))
        {
          log_msg (LOG_WARNING, "wait %s: no reply sent: %s", s->id, e->msg);
          shim_error_release (&e);
        }
    }
  s->n_waits = 0;
}
