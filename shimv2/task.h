/* SPDX-License-Identifier: Apache-2.0 */
/* containerd's task service (containerd.task.v2.Task) for one container,
 * on libshim's calls: Create, Start, State, Kill, Delete, Wait, Pids,
 * Pause, Resume, Connect, Shutdown, Exec, CloseIO, Update, ResizePty,
 * Stats (Start, State, Kill, Delete, Wait, CloseIO and ResizePty with an
 * exec id go to execs.h); Unimplemented for Checkpoint (libshim has no
 * checkpoint).  A process with terminal=true has a pty (console.h), its
 * copying done in the shim's loop (task_pollfds, task_polled); Stats
 * answers containerd's cgroups Metrics (metrics.h).  The shim is the
 * subreaper of init and of the exec'd processes: task_reaped is given
 * their wait status, and from init's and its verdict come the events
 * (TaskOOM only when the verdict says oom_killed true, and before
 * TaskExit; never for an exec'd one). */
#ifndef SHIMV2_TASK_H
#define SHIMV2_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "runtime/runtime.h"
#include "shimv2/console.h"
#include "shimv2/events.h"
#include "shimv2/execs.h"
#include "shimv2/reply.h"
#include "ttrpc.pb-c.h"

#define TASK_SERVICE "containerd.task.v2.Task"

struct task_service
{
  struct runtime_ctx ctx;
  struct events_target ev;
  char *id, *bundle, *stdin_path, *stdout_path, *stderr_path;
  int stdin_fd; /* the shim's writer on init's stdin FIFO, until CloseIO */
  bool terminal;  /* Create's terminal=true: init's stdio is console */
  struct console console;
  bool rootfs_mounted;
  pid_t pid;      /* init, 0 before Create */
  int status;     /* CONTAINERD__V1__TYPES__STATUS__* */
  bool exited;
  uint32_t exit_status;
  struct timespec exited_at;
  bool shutdown; /* Shutdown asked for: the server ends */
  struct reply_waits waits; /* init's deferred Waits */
  struct execs_table execs;
};

void task_service_init (struct task_service *s, const char *root, const struct events_target *ev);
void task_service_release (struct task_service *s);

/* One request: *resp is the ttrpc.Response to send (malloc'd).  Returns 1
 * when the answer is deferred (a Wait on a running task: FD and STREAM are
 * kept, answered by task_reaped), 0 when *resp is set, -1 on an internal
 * error. */
int task_handle (struct task_service *s, int fd, uint32_t stream, const Ttrpc__Request *req, uint8_t **resp,
                 size_t *len, shim_error_t *err);

/* A process the shim reaped: for init, the verdict (logged as JSON), the
 * events, and the deferred Waits answered. */
void task_reaped (struct task_service *s, pid_t pid, int status);

/* The terminals' fds for the loop's poll (init's and the exec'd
 * processes'), at most TASK_POLLFDS_MAX in P; returns how many. */
#define TASK_POLLFDS_MAX ((1 + EXECS_MAX) * CONSOLE_POLLFDS)
size_t task_pollfds (struct task_service *s, struct pollfd *p);
/* Right after the poll (before anything changes the terminals): the
 * copying P, as task_pollfds filled it (N of them), allows. */
void task_polled (struct task_service *s, const struct pollfd *p, size_t n);

/* A connection closed: its deferred Waits are dropped. */
void task_conn_closed (struct task_service *s, int fd);

/* The exit status containerd is told: the code, or 128+N for signal N. */
uint32_t task_exit_status (int wait_status);

/* TaskOOM is sent for this verdict: only when oom_killed is true. */
bool task_verdict_oom (const struct verdict *v);

#endif
