/* SPDX-License-Identifier: Apache-2.0 */
/* The processes exec'd in the task's container (containerd's Exec, then
 * Start, State, Kill, Wait, CloseIO, Delete with their exec_id), up to
 * EXECS_MAX at once: each one's spec (an OCI process, JSON) written to the
 * bundle and run by runtime_exec, detached, its stdio containerd's FIFOs.
 * The shim reaps them; an exec's exit is a TaskExit with the exec id,
 * never a TaskOOM (that one is init's verdict alone).  One with
 * terminal=true has a pty (console.h), as init may. */
#ifndef SHIMV2_EXECS_H
#define SHIMV2_EXECS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "containerd/shim.pb-c.h"
#include "runtime/runtime.h"
#include "shimv2/console.h"
#include "shimv2/events.h"
#include "shimv2/reply.h"

#define EXECS_MAX 32

/* The container the processes are exec'd in. */
struct execs_container
{
  const struct runtime_ctx *ctx;
  const char *id, *bundle;
  const struct events_target *ev;
};

struct execs_proc
{
  char *exec_id, *stdin_path, *stdout_path, *stderr_path;
  pid_t pid;  /* 0 before Start */
  int status; /* CONTAINERD__V1__TYPES__STATUS__* */
  bool exited;
  uint32_t exit_status;
  struct timespec exited_at;
  int stdin_fd; /* the shim's writer on the stdin FIFO, until CloseIO */
  bool terminal;
  struct console console;
  struct reply_waits waits;
};

struct execs_table
{
  struct execs_proc *p[EXECS_MAX];
  size_t n;
};

/* Every process forgotten (their files left to the bundle's removal). */
void execs_release (struct execs_table *t);

/* The methods, as task_handle's (see task.h): 0 with *out set, 1 for a
 * deferred Wait, -1 on an internal error. */
int execs_add (struct execs_table *t, const struct execs_container *c,
               const Containerd__Task__V2__ExecProcessRequest *r, uint8_t **out, size_t *len, shim_error_t *err);
int execs_start (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
                 size_t *len, shim_error_t *err);
int execs_state (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
                 size_t *len, shim_error_t *err);
int execs_kill (struct execs_table *t, const struct execs_container *c, const char *exec_id, int sig,
                uint8_t **out, size_t *len, shim_error_t *err);
int execs_delete (struct execs_table *t, const struct execs_container *c, const char *exec_id, uint8_t **out,
                  size_t *len, shim_error_t *err);
int execs_wait (struct execs_table *t, const struct execs_container *c, const char *exec_id, int fd,
                uint32_t stream, uint8_t **out, size_t *len, shim_error_t *err);
int execs_close_io (struct execs_table *t, const struct execs_container *c, const char *exec_id, bool in,
                    uint8_t **out, size_t *len, shim_error_t *err);
int execs_resize_pty (struct execs_table *t, const struct execs_container *c, const char *exec_id,
                      uint32_t width, uint32_t height, uint8_t **out, size_t *len, shim_error_t *err);

/* The live terminals of the processes, in OUT (EXECS_MAX of room), in the
 * table's order; returns how many. */
size_t execs_consoles (struct execs_table *t, struct console **out);

/* PID reaped with EXIT_STATUS (containerd's: 128+N for signal N): true
 * when it was an exec'd process (its TaskExit sent, its Waits answered). */
bool execs_reaped (struct execs_table *t, const struct execs_container *c, pid_t pid, uint32_t exit_status);

/* A connection closed: its deferred Waits dropped. */
void execs_conn_closed (struct execs_table *t, int fd);

#endif
