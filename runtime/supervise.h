/* SPDX-License-Identifier: Apache-2.0 */
/* Waiting in the foreground for a process we started (`run`, `exec`):
 * signals forwarded through a signalfd, the cgroup's memory events taken as
 * they happen, and with a terminal the pty's traffic copied to and from our
 * own stdio. */
#ifndef SHIM_SUPERVISE_H
#define SHIM_SUPERVISE_H

#include "runtime/container.h"
#include "common/error.h"
#include "evidence/monitor.h"

/* Block the forwarded signals (before the clone, so none is lost; the child
 * unblocks them) and return a signalfd for them. */
int supervise_signals_fd (shim_error_t *err);

/* Until proc exits; *status is its wait status.  mon may be NULL. */
int supervise_wait (struct container_proc *proc, int sigfd, struct monitor *mon, int *status, shim_error_t *err);

/* process.terminal in the foreground without --console-socket joins the
 * container's pty to a terminal of ours, as runc does: stdin, stdout or
 * stderr, else the controlling terminal.  An error naming WHAT when there
 * is none: nothing could answer the workload (an interactive shell ignores
 * SIGTERM), the run would wait for ever. */
int supervise_need_terminal (const char *what, shim_error_t *err);

/* 128+N for a signal, as shells do. */
int supervise_exit_code (int status);

#endif
