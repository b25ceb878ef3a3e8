/* SPDX-License-Identifier: Apache-2.0 */
/* The task service (see task.h): each method decodes its request, calls
 * libshim, and encodes the reply or a gRPC status naming what failed. */
#include "shimv2/task.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "containerd/events.pb-c.h"
#include "containerd/shim.pb-c.h"
#include "shimv2/bundle.h"
#include "shimv2/metrics.h"
#include "shimv2/reply.h"
#include "shimv2/spawn.h"
#include "shimv2/ttrpc.h"

/* How long a Create may take (hooks, image mounts): runc's shim has no
 * bound; ours ends the wait and says so. */
#define TASK_CREATE_MS 120000
/* As `shim delete`: how long the watcher may take for its last record. */
#define TASK_VERDICT_WAIT_MS 2000
#define TASK_PID_FILE "init.pid"
/* Update's resources, as `shim update --resources` reads them. */
#define TASK_UPDATE_FILE "update-resources.json"
/* How long init's last output may wait for containerd's reader: runc's
 * shim waits as long for its copy at Delete. */
#define TASK_DRAIN_MS 2000

void
task_service_init (struct task_service *s, const char *root, const struct events_target *ev)
{
  memset (s, 0, sizeof *s);
  s->ctx.root = root;
  s->ev = *ev;
  s->status = CONTAINERD__V1__TYPES__STATUS__UNKNOWN;
  s->stdin_fd = -1;
  console_init (&s->console);
}

void
task_service_release (struct task_service *s)
{
  free (s->id);
  free (s->bundle);
  free (s->stdin_path);
  free (s->stdout_path);
  free (s->stderr_path);
  if (s->stdin_fd >= 0)
    close (s->stdin_fd);
  s->stdin_fd = -1;
  console_close (&s->console);
  execs_release (&s->execs);
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

struct create_call
{
  struct task_service *s;
  const char *console_socket; /* with a terminal, else NULL */
};

/* In the helper child: runtime_create. */
static int
create_in_child (void *arg, shim_error_t *err)
{
  const struct create_call *a = arg;
  /* The shim reaps init: the termination-log is written from its verdict,
   * which has init's status on every kernel. */
  struct runtime_create_opts o = { .bundle = a->s->bundle, .id = a->s->id, .pid_file = TASK_PID_FILE,
                                   .console_socket = a->console_socket, .reaper_verdict = true };
  return runtime_create (&a->s->ctx, &o, err);
}

static int
do_create (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__CreateTaskRequest *req
      = containerd__task__v2__create_task_request__unpack (NULL, p->len, p->data);
  Containerd__Task__V2__CreateTaskResponse resp = CONTAINERD__TASK__V2__CREATE_TASK_RESPONSE__INIT;
  Containerd__Events__TaskCreate ev = CONTAINERD__EVENTS__TASK_CREATE__INIT;
  Containerd__Events__TaskIO io = CONTAINERD__EVENTS__TASK_IO__INIT;
  struct spawn_stdio io_paths = { NULL, NULL, NULL };
  struct create_call call = { .s = s };
  cleanup_free char *sock = NULL;
  cleanup_close int lfd = -1;
  shim_error_t e = NULL;
  int r;

  if (req == NULL)
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "create: not a CreateTaskRequest");
  if (s->id)
    r = reply_status (TTRPC_ALREADY_EXISTS, out, len, err, "create: this shim already has task %s", s->id);
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
  s->terminal = req->terminal;
  /* The cgroup manager for this task's every libshim call, from the
   * cgroupsPath's form (bundle.h): containerd says nothing else. */
  if (bundle_systemd_cgroup (req->bundle, &s->ctx.systemd_cgroup, &e) < 0)
    goto fail;
  if (s->ctx.systemd_cgroup)
    log_msg (LOG_INFO, "create %s: linux.cgroupsPath is systemd's slice:prefix:name: systemd makes the cgroup",
             s->id);
  if (mount_rootfs (req->bundle, req->rootfs, req->n_rootfs, &e) < 0)
    goto fail;
  s->rootfs_mounted = req->n_rootfs > 0;
  /* With a terminal init's stdio is the pty's, the FIFOs the shim's to
   * copy (console.h). */
  if (!s->terminal)
    io_paths = (struct spawn_stdio){ s->stdin_path, s->stdout_path, s->stderr_path };
  else if (console_socket_open (s->ctx.root, &sock, &lfd, &e) < 0)
    goto fail;
  call.console_socket = sock;
  /* runtime_create writes init's pid in the bundle before it returns. */
  if (spawn_stdin_holder (s->stdin_path, &s->stdin_fd, &e) < 0
      || spawn_run (&io_paths, create_in_child, &call, TASK_CREATE_MS, &e) < 0
      || spawn_read_pid (s->bundle, TASK_PID_FILE, &s->pid, &e) < 0)
    goto fail;
  if (s->terminal && console_attach (&s->console, &sock, &lfd, s->stdin_path, s->stdout_path, &e) < 0)
    {
      /* A container without its terminal is of no use: removed. */
      shim_error_t tmp = NULL;
      if (runtime_delete (&s->ctx, s->id, true, &tmp) < 0)
        {
          log_msg (LOG_WARNING, "create %s: delete after the terminal failed: %s", s->id, tmp->msg);
          shim_error_release (&tmp);
        }
      goto fail;
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
  events_send (&s->ev, "/tasks/create", &ev.base);
  containerd__task__v2__create_task_request__free_unpacked (req, NULL);
  resp.pid = (uint32_t) s->pid;
  return reply_msg (&resp.base, out, len, err);

fail:
  containerd__task__v2__create_task_request__free_unpacked (req, NULL);
  console_socket_close (&sock, &lfd);
  unmount_rootfs (s);
  r = reply_error (&e, "create", out, len, err);
  /* Ready for another Create: the root and the events target kept (copied
   * out first, task_service_init clears *s). */
  {
    struct events_target ev_kept = s->ev;
    const char *root = s->ctx.root;
    task_service_release (s);
    task_service_init (s, root, &ev_kept);
  }
  return r;
}

/* The request's container id is this shim's task. */
static bool
is_ours (struct task_service *s, const char *id, uint8_t **out, size_t *len, int *r, shim_error_t *err)
{
  if (s->id != NULL && strcmp (id, s->id) == 0)
    return true;
  *r = reply_status (TTRPC_NOT_FOUND, out, len, err, "task %s: not found", id);
  return false;
}

/* An exec id names an exec'd process (execs.h); none names the init. */
static bool
is_exec (const char *exec_id)
{
  return exec_id != NULL && *exec_id != '\0';
}

static struct execs_container
exec_container (struct task_service *s)
{
  return (struct execs_container){ .ctx = &s->ctx, .id = s->id, .bundle = s->bundle, .ev = &s->ev };
}

/* Each method: the decoded request R (NULL: not that message), the reply;
 * C is the container for an exec'd process's methods. */
#define TASK_REQ(name, lower)                                                                           \
  Containerd__Task__V2__##name *r = containerd__task__v2__##lower##__unpack (NULL, p->len, p->data); \
  struct execs_container c __attribute__ ((unused)) = exec_container (s);                               \
  int ret;                                                                                              \
  if (r == NULL)                                                                                        \
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "not a " #name);
#define TASK_REQ_END(lower) containerd__task__v2__##lower##__free_unpacked (r, NULL)

static int
do_start (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (StartRequest, start_request);
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_start (&s->execs, &c, r->exec_id, out, len, err);
  else
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
          events_send (&s->ev, "/tasks/start", &ev.base);
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
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_state (&s->execs, &c, r->exec_id, out, len, err);
  else
    ret = reply_state (&(struct reply_state_of){ .id = s->id, .bundle = s->bundle, .stdin_path = s->stdin_path,
                                                 .stdout_path = s->stdout_path, .stderr_path = s->stderr_path,
                                                 .terminal = s->terminal, .pid = s->pid, .status = s->status,
                                                 .exited = s->exited, .exit_status = s->exit_status,
                                                 .exited_at = &s->exited_at },
                       out, len, err);
  TASK_REQ_END (state_request);
  return ret;
}

static int
do_kill (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (KillRequest, kill_request);
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_kill (&s->execs, &c, r->exec_id, (int) r->signal, out, len, err);
  else
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
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_delete (&s->execs, &c, r->exec_id, out, len, err);
  else
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
          ts = reply_timestamp (&s->exited_at);
          s->status = CONTAINERD__V1__TYPES__STATUS__STOPPED;
          resp.pid = ev.pid = (uint32_t) s->pid;
          resp.exit_status = ev.exit_status = s->exit_status;
          resp.exited_at = ev.exited_at = &ts;
          ev.container_id = s->id;
          events_send (&s->ev, "/tasks/delete", &ev.base);
          ret = reply_msg (&resp.base, out, len, err);
          execs_release (&s->execs);
          console_close (&s->console);
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
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_wait (&s->execs, &c, r->exec_id, fd, stream, out, len, err);
  else if (s->exited)
    ret = reply_wait (s->exit_status, &s->exited_at, out, len, err);
  else
    ret = reply_waits_add (&s->waits, fd, stream, s->id, out, len, err);
  TASK_REQ_END (wait_request);
  return ret;
}

/* Exec: an exec'd process added (execs.h); Start runs it. */
static int
do_exec (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (ExecProcessRequest, exec_process_request);
  if (is_ours (s, r->id, out, len, &ret, err))
    ret = execs_add (&s->execs, &c, r, out, len, err);
  TASK_REQ_END (exec_process_request);
  return ret;
}

/* CloseIO with stdin: the shim's writer on the process's stdin FIFO
 * closed, so that it reads EOF once containerd's is closed too. */
static int
do_close_io (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (CloseIORequest, close_iorequest);
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_close_io (&s->execs, &c, r->exec_id, r->stdin, out, len, err);
  else
    {
      if (r->stdin && s->stdin_fd >= 0)
        {
          close (s->stdin_fd);
          s->stdin_fd = -1;
        }
      ret = reply_empty (out, len, err);
    }
  TASK_REQ_END (close_iorequest);
  return ret;
}

/* Update: the Any holds an OCI LinuxResources as JSON, given to
 * runtime_update as `shim update --resources FILE` would (the file in the
 * bundle, replaced by each Update). */
static int
do_update (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (UpdateTaskRequest, update_task_request);
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (r->resources == NULL || r->resources->value.len == 0)
    ret = reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "update %s: no resources", s->id);
  else
    {
      struct cgroup_resources res;
      cleanup_free char *file = NULL;
      shim_error_t e = NULL;
      memset (&res, 0, sizeof res);
      if (asprintf (&file, "%s/" TASK_UPDATE_FILE, s->bundle) < 0)
        ret = shim_error_errno (err, "update: asprintf");
      else if (util_write_file_atomic_at (AT_FDCWD, file, (const char *) r->resources->value.data,
                                          r->resources->value.len, 0600, &e)
                   < 0
               || runtime_update (&s->ctx, s->id, &res, file, &e) < 0)
        ret = reply_error (&e, "update", out, len, err);
      else
        {
          log_msg (LOG_INFO, "updated %s from %s", s->id, file);
          ret = reply_empty (out, len, err);
        }
      runtime_resources_release (&res);
    }
  TASK_REQ_END (update_task_request);
  return ret;
}

/* ResizePty: the window size of init's or an exec'd process's terminal. */
static int
do_resize_pty (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len,
               shim_error_t *err)
{
  TASK_REQ (ResizePtyRequest, resize_pty_request);
  if (!is_ours (s, r->id, out, len, &ret, err))
    ;
  else if (is_exec (r->exec_id))
    ret = execs_resize_pty (&s->execs, &c, r->exec_id, r->width, r->height, out, len, err);
  else
    {
      shim_error_t e = NULL;
      if (console_resize (&s->console, r->width, r->height, &e) < 0)
        ret = reply_error (&e, "resize", out, len, err);
      else
        ret = reply_empty (out, len, err);
    }
  TASK_REQ_END (resize_pty_request);
  return ret;
}

/* Stats: the cgroup's figures as containerd's cgroups Metrics (metrics.h). */
static int
do_stats (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (StatsRequest, stats_request);
  if (is_ours (s, r->id, out, len, &ret, err))
    {
      struct runtime_stats *st = malloc (sizeof *st);
      shim_error_t e = NULL;
      if (st == NULL)
        ret = shim_error_errno (err, "stats: malloc");
      else if (runtime_stats (&s->ctx, s->id, st, &e) < 0)
        ret = reply_error (&e, "stats", out, len, err);
      else
        ret = metrics_reply (st, out, len, err);
      free (st);
    }
  TASK_REQ_END (stats_request);
  return ret;
}

static int
do_pids (struct task_service *s, const ProtobufCBinaryData *p, uint8_t **out, size_t *len, shim_error_t *err)
{
  TASK_REQ (PidsRequest, pids_request);
  if (is_ours (s, r->id, out, len, &ret, err))
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

  if (!is_ours (s, id, out, len, &ret, err))
    return ret;
  if ((pause ? runtime_pause : runtime_resume) (&s->ctx, s->id, &e) < 0)
    return reply_error (&e, pause ? "pause" : "resume", out, len, err);
  if (!s->exited)
    s->status = pause ? CONTAINERD__V1__TYPES__STATUS__PAUSED : CONTAINERD__V1__TYPES__STATUS__RUNNING;
  ev.container_id = rev.container_id = s->id;
  events_send (&s->ev, pause ? "/tasks/paused" : "/tasks/resumed", pause ? &ev.base : &rev.base);
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
  if (strcmp (m, "Exec") == 0)
    return do_exec (s, p, out, len, err);
  if (strcmp (m, "CloseIO") == 0)
    return do_close_io (s, p, out, len, err);
  if (strcmp (m, "Update") == 0)
    return do_update (s, p, out, len, err);
  if (strcmp (m, "ResizePty") == 0)
    return do_resize_pty (s, p, out, len, err);
  if (strcmp (m, "Stats") == 0)
    return do_stats (s, p, out, len, err);
  return reply_status (TTRPC_UNIMPLEMENTED, out, len, err, "%s.%s: not implemented by containerd-shim-shim-v2",
                       req->service, m);
}

/* The live terminals, init's first, then the exec'd processes'. */
static size_t
consoles (struct task_service *s, struct console **out)
{
  size_t n = 0;
  if (console_active (&s->console))
    out[n++] = &s->console;
  return n + execs_consoles (&s->execs, out + n);
}

size_t
task_pollfds (struct task_service *s, struct pollfd *p)
{
  struct console *c[1 + EXECS_MAX];
  size_t n = consoles (s, c), i;
  for (i = 0; i < n; i++)
    console_pollfds (c[i], p + i * CONSOLE_POLLFDS);
  return n * CONSOLE_POLLFDS;
}

void
task_polled (struct task_service *s, const struct pollfd *p, size_t n)
{
  struct console *c[1 + EXECS_MAX];
  size_t k = consoles (s, c), i;
  for (i = 0; i < k && (i + 1) * CONSOLE_POLLFDS <= n; i++)
    console_polled (c[i], p + i * CONSOLE_POLLFDS);
}

void
task_conn_closed (struct task_service *s, int fd)
{
  reply_waits_drop (&s->waits, fd);
  execs_conn_closed (&s->execs, fd);
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
      events_send (&s->ev, "/tasks/oom", &oom.base);
    }
  ts = reply_timestamp (&s->exited_at);
  ev.container_id = ev.id = s->id;
  ev.pid = (uint32_t) s->pid;
  ev.exit_status = s->exit_status;
  ev.exited_at = &ts;
  events_send (&s->ev, "/tasks/exit", &ev.base);
}

void
task_reaped (struct task_service *s, pid_t pid, int status)
{
  struct execs_container c = exec_container (s);

  if (s->id == NULL)
    return;
  if (execs_reaped (&s->execs, &c, pid, task_exit_status (status)))
    return;
  if (pid != s->pid || s->exited)
    return;
  if (s->stdin_fd >= 0)
    close (s->stdin_fd);
  s->stdin_fd = -1;
  /* Its last output reaches containerd before its exit is told. */
  console_drain (&s->console, TASK_DRAIN_MS);
  init_exited (s, status);
  reply_waits_answer (&s->waits, s->exit_status, &s->exited_at, s->id);
}
