/* SPDX-License-Identifier: Apache-2.0 */
/* The exec'd processes (see execs.h). */
#include "shimv2/execs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "containerd/events.pb-c.h"
#include "shimv2/spawn.h"

/* As create's: hooks do not run for an exec, but the container may be
 * slow to enter under load. */
#define EXECS_START_MS 120000
/* How long an exited process's last output may wait for containerd's
 * reader: runc's shim waits as long for its copy at Delete. */
#define EXECS_DRAIN_MS 2000

/* containerd's rule for ids (identifiers.Validate): letters, digits, and
 * . _ - inside; the exec id names files in the bundle. */
static bool
valid_id (const char *id)
{
  size_t i, n = strlen (id);
  if (n == 0 || n > 76 || id[0] == '.' || id[0] == '-' || id[0] == '_')
    return false;
  for (i = 0; i < n; i++)
    if (!(id[i] >= 'a' && id[i] <= 'z') && !(id[i] >= 'A' && id[i] <= 'Z') && !(id[i] >= '0' && id[i] <= '9')
        && !strchr ("._-", id[i]))
      return false;
  return true;
}

/* The process's file SUFFIX in the bundle (exec-ID.json, exec-ID.pid). */
static char *
exec_file (const struct execs_container *c, const char *exec_id, const char *suffix)
{
  char *path = NULL;
  if (asprintf (&path, "%s/exec-%s.%s", c->bundle, exec_id, suffix) < 0)
    return NULL;
  return path;
}

static void
proc_free (const struct execs_container *c, struct execs_proc *p)
{
  const char *suffixes[] = { "json", "pid" };
  size_t i;
  for (i = 0; c && i < sizeof suffixes / sizeof suffixes[0]; i++)
    {
      cleanup_free char *f = exec_file (c, p->exec_id, suffixes[i]);
      if (f)
        unlink (f);
    }
  if (p->stdin_fd >= 0)
    close (p->stdin_fd);
  console_close (&p->console);
  free (p->exec_id);
  free (p->stdin_path);
  free (p->stdout_path);
  free (p->stderr_path);
  free (p);
}

void
execs_release (struct execs_table *t)
{
  size_t i;
  for (i = 0; i < t->n; i++)
    proc_free (NULL, t->p[i]);
  t->n = 0;
}

static struct execs_proc *
find (struct execs_table *t, const char *exec_id)
{
  size_t i;
  for (i = 0; i < t->n; i++)
    if (strcmp (t->p[i]->exec_id, exec_id) == 0)
      return t->p[i];
  return NULL;
}

/* The process EXEC_ID, or NULL with *r the NotFound reply. */
static struct execs_proc *
lookup (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out, size_t *len,
        int *r, shim_error_t *err)
{
  struct execs_proc *p = find (t, exec_id);
  if (p == NULL)
    *r = reply_status (TTRPC_NOT_FOUND, out, len, err, "task %s: exec %s: not found", c->id, exec_id);
  return p;
}

int
execs_add (struct execs_table *t, const struct execs_container *c, const Containerd__Task__V2__ExecProcessRequest *r,
           uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Events__TaskExecAdded ev = CONTAINERD__EVENTS__TASK_EXEC_ADDED__INIT;
  cleanup_free char *spec = NULL;
  struct execs_proc *p;
  shim_error_t e = NULL;

  if (!valid_id (r->exec_id))
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "exec %s in %s: not a valid exec id", r->exec_id,
                         c->id);
  if (find (t, r->exec_id))
    return reply_status (TTRPC_ALREADY_EXISTS, out, len, err, "exec %s in %s: already exists", r->exec_id, c->id);
  if (r->spec == NULL || r->spec->value.len == 0)
    return reply_status (TTRPC_INVALID_ARGUMENT, out, len, err, "exec %s in %s: no process spec", r->exec_id, c->id);
  if (t->n == EXECS_MAX)
    return reply_status (TTRPC_UNAVAILABLE, out, len, err, "exec %s in %s: %d exec'd processes already",
                         r->exec_id, c->id, EXECS_MAX);
  spec = exec_file (c, r->exec_id, "json");
  p = calloc (1, sizeof *p);
  if (spec == NULL || p == NULL)
    {
      free (p);
      return shim_error_errno (err, "exec: malloc");
    }
  p->stdin_fd = -1;
  console_init (&p->console);
  p->terminal = r->terminal;
  p->status = CONTAINERD__V1__TYPES__STATUS__CREATED;
  p->exec_id = strdup (r->exec_id);
  p->stdin_path = strdup (r->stdin);
  p->stdout_path = strdup (r->stdout);
  p->stderr_path = strdup (r->stderr);
  if (p->exec_id == NULL || p->stdin_path == NULL || p->stdout_path == NULL || p->stderr_path == NULL)
    {
      proc_free (NULL, p);
      return shim_error_errno (err, "exec: strdup");
    }
  /* containerd's Any holds the OCI process as JSON (typeurl's rule for
   * the runtime-spec's types): runtime_exec reads it as --process. */
  if (util_write_file_atomic_at (AT_FDCWD, spec, (const char *) r->spec->value.data, r->spec->value.len, 0600, &e)
      < 0)
    {
      proc_free (c, p);
      return reply_error (&e, "exec", out, len, err);
    }
  t->p[t->n++] = p;
  log_msg (LOG_INFO, "exec %s in %s: added", p->exec_id, c->id);
  ev.container_id = (char *) c->id;
  ev.exec_id = p->exec_id;
  events_send (c->ev, "/tasks/exec-added", &ev.base);
  return reply_empty (out, len, err);
}

struct exec_call
{
  const struct runtime_ctx *ctx;
  const char *id, *process_file, *pid_file;
  const char *console_socket; /* with a terminal, else NULL */
};

/* In the helper child: the process made, detached, its pid in pid_file. */
static int
exec_in_child (void *arg, shim_error_t *err)
{
  const struct exec_call *a = arg;
  struct runtime_exec_opts o = { .id = a->id, .process_file = a->process_file, .pid_file = a->pid_file,
                                 .detach = true, .tty = a->console_socket != NULL,
                                 .console_socket = a->console_socket };
  int code = 0;
  return runtime_exec (a->ctx, &o, &code, err);
}

int
execs_start (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
             size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__StartResponse resp = CONTAINERD__TASK__V2__START_RESPONSE__INIT;
  Containerd__Events__TaskExecStarted ev = CONTAINERD__EVENTS__TASK_EXEC_STARTED__INIT;
  cleanup_free char *spec = NULL, *pid_file = NULL, *pid_name = NULL, *sock = NULL;
  cleanup_close int lfd = -1;
  struct exec_call call = { .ctx = c->ctx, .id = c->id };
  struct spawn_stdio io = { NULL, NULL, NULL };
  struct execs_proc *p;
  shim_error_t e = NULL;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  if (p->pid != 0)
    return reply_status (TTRPC_FAILED_PRECONDITION, out, len, err, "start exec %s in %s: already started",
                         exec_id, c->id);
  spec = exec_file (c, exec_id, "json");
  pid_file = exec_file (c, exec_id, "pid");
  if (spec == NULL || pid_file == NULL || asprintf (&pid_name, "exec-%s.pid", exec_id) < 0)
    return shim_error_errno (err, "start: asprintf");
  call.process_file = spec;
  call.pid_file = pid_file;
  /* With a terminal the process's stdio is the pty's, the FIFOs the
   * shim's to copy (console.h). */
  if (!p->terminal)
    io = (struct spawn_stdio){ p->stdin_path, p->stdout_path, p->stderr_path };
  else if (console_socket_open (c->ctx->root, &sock, &lfd, &e) < 0)
    return reply_error (&e, "start exec", out, len, err);
  call.console_socket = sock;
  /* The shim's own writer on stdin first: the process never reads an EOF
   * before containerd's writer is there. */
  if (spawn_stdin_holder (p->stdin_path, &p->stdin_fd, &e) < 0
      || spawn_run (&io, exec_in_child, &call, EXECS_START_MS, &e) < 0
      || spawn_read_pid (c->bundle, pid_name, &p->pid, &e) < 0
      || (p->terminal && console_attach (&p->console, &sock, &lfd, p->stdin_path, p->stdout_path, &e) < 0))
    {
      if (p->stdin_fd >= 0)
        close (p->stdin_fd);
      p->stdin_fd = -1;
      /* A process that is up without its terminal is of no use: gone. */
      if (p->pid > 0)
        kill (p->pid, SIGKILL);
      p->pid = 0;
      console_socket_close (&sock, &lfd);
      return reply_error (&e, "start exec", out, len, err);
    }
  p->status = CONTAINERD__V1__TYPES__STATUS__RUNNING;
  log_msg (LOG_INFO, "exec %s in %s: started, pid %d", exec_id, c->id, (int) p->pid);
  ev.container_id = (char *) c->id;
  ev.exec_id = p->exec_id;
  ev.pid = resp.pid = (uint32_t) p->pid;
  events_send (c->ev, "/tasks/exec-started", &ev.base);
  return reply_msg (&resp.base, out, len, err);
}

int
execs_state (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
             size_t *len, shim_error_t *err)
{
  struct execs_proc *p;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  return reply_state (&(struct reply_state_of){ .id = p->exec_id, .exec_id = p->exec_id, .bundle = c->bundle,
                                                 .stdin_path = p->stdin_path, .stdout_path = p->stdout_path,
                                                 .stderr_path = p->stderr_path, .terminal = p->terminal,
                                                 .pid = p->pid, .status = p->status,
                                                 .exited = p->exited, .exit_status = p->exit_status,
                                                 .exited_at = &p->exited_at },
                      out, len, err);
}

int
execs_kill (struct execs_table *t, const struct execs_container *c, const char *exec_id, int sig, uint8_t **out,
            size_t *len, shim_error_t *err)
{
  struct execs_proc *p;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  /* containerd's errdefs: NotFound is "process already finished". */
  if (p->exited)
    return reply_status (TTRPC_NOT_FOUND, out, len, err, "kill exec %s in %s: process already finished", exec_id,
                         c->id);
  if (p->pid == 0)
    return reply_status (TTRPC_FAILED_PRECONDITION, out, len, err, "kill exec %s in %s: not started", exec_id,
                         c->id);
  /* Not reaped yet (the shim reaps it), so the pid is still this one's. */
  if (kill (p->pid, sig) < 0)
    {
      shim_error_t e = NULL;
      shim_error_errno (&e, "kill exec %s (pid %d) with signal %d", exec_id, (int) p->pid, sig);
      return reply_error (&e, "kill", out, len, err);
    }
  return reply_empty (out, len, err);
}

int
execs_delete (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
              size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__DeleteResponse resp = CONTAINERD__TASK__V2__DELETE_RESPONSE__INIT;
  Google__Protobuf__Timestamp ts;
  struct execs_proc *p;
  size_t i;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  if (p->pid != 0 && !p->exited)
    return reply_status (TTRPC_FAILED_PRECONDITION, out, len, err, "delete exec %s in %s: the process is running",
                         exec_id, c->id);
  if (!p->exited)
    clock_gettime (CLOCK_REALTIME, &p->exited_at);
  ts = reply_timestamp (&p->exited_at);
  resp.pid = (uint32_t) p->pid;
  resp.exit_status = p->exit_status;
  resp.exited_at = &ts;
  r = reply_msg (&resp.base, out, len, err);
  for (i = 0; i < t->n && t->p[i] != p; i++)
    ;
  t->p[i] = t->p[--t->n];
  proc_free (c, p);
  return r;
}

int
execs_wait (struct execs_table *t, const struct execs_container *c, const char *exec_id, int fd, uint32_t stream,
            uint8_t **out, size_t *len, shim_error_t *err)
{
  struct execs_proc *p;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  if (p->exited)
    return reply_wait (p->exit_status, &p->exited_at, out, len, err);
  return reply_waits_add (&p->waits, fd, stream, exec_id, out, len, err);
}

int
execs_close_io (struct execs_table *t, const struct execs_container *c, const char *exec_id, bool in,
                uint8_t **out, size_t *len, shim_error_t *err)
{
  struct execs_proc *p;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  if (in && p->stdin_fd >= 0)
    {
      close (p->stdin_fd);
      p->stdin_fd = -1;
    }
  return reply_empty (out, len, err);
}

int
execs_resize_pty (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint32_t width,
                  uint32_t height, uint8_t **out, size_t *len, shim_error_t *err)
{
  struct execs_proc *p;
  shim_error_t e = NULL;
  int r;

  if ((p = lookup (t, c, exec_id, out, len, &r, err)) == NULL)
    return r;
  if (console_resize (&p->console, width, height, &e) < 0)
    return reply_error (&e, "resize exec", out, len, err);
  return reply_empty (out, len, err);
}

size_t
execs_consoles (struct execs_table *t, struct console **out)
{
  size_t i, n = 0;
  for (i = 0; i < t->n; i++)
    if (console_active (&t->p[i]->console))
      out[n++] = &t->p[i]->console;
  return n;
}

bool
execs_reaped (struct execs_table *t, const struct execs_container *c, pid_t pid, uint32_t exit_status)
{
  Containerd__Events__TaskExit ev = CONTAINERD__EVENTS__TASK_EXIT__INIT;
  Google__Protobuf__Timestamp ts;
  struct execs_proc *p = NULL;
  size_t i;

  for (i = 0; i < t->n && p == NULL; i++)
    if (t->p[i]->pid == pid && !t->p[i]->exited)
      p = t->p[i];
  if (p == NULL)
    return false;
  p->exited = true;
  p->exit_status = exit_status;
  p->status = CONTAINERD__V1__TYPES__STATUS__STOPPED;
  clock_gettime (CLOCK_REALTIME, &p->exited_at);
  if (p->stdin_fd >= 0)
    close (p->stdin_fd);
  p->stdin_fd = -1;
  /* Its last output reaches containerd before its exit is told. */
  console_drain (&p->console, EXECS_DRAIN_MS);
  log_msg (LOG_INFO, "exec %s in %s: pid %d exited, status %u", p->exec_id, c->id, (int) pid, exit_status);
  /* An exec's exit: TaskExit with the exec id, never a TaskOOM. */
  ts = reply_timestamp (&p->exited_at);
  ev.container_id = (char *) c->id;
  ev.id = p->exec_id;
  ev.pid = (uint32_t) pid;
  ev.exit_status = exit_status;
  ev.exited_at = &ts;
  events_send (c->ev, "/tasks/exit", &ev.base);
  reply_waits_answer (&p->waits, p->exit_status, &p->exited_at, p->exec_id);
  return true;
}

void
execs_conn_closed (struct execs_table *t, int fd)
{
  size_t i;
  for (i = 0; i < t->n; i++)
    reply_waits_drop (&t->p[i]->waits, fd);
}
