/* SPDX-License-Identifier: Apache-2.0 */
/* A libshim call that brings up a process of the container (create's
 * init, an exec'd process) made in a helper child whose stdio are
 * containerd's FIFOs: the process inherits them, and, the helper gone, is
 * reparented to the shim, its subreaper. */
#ifndef SHIMV2_SPAWN_H
#define SHIMV2_SPAWN_H

#include <sys/types.h>

#include "common/error.h"

/* containerd's FIFOs (NULL or "": /dev/null). */
struct spawn_stdio
{
  const char *in, *out, *err;
};

/* FN (ARG) in a child with IO as fds 0-2, its signal mask cleared and
 * libshim's log on the shim's stderr; waited for at most TIMEOUT_MS (then
 * killed).  Its error comes back in *err, with the errno it exited with. */
int spawn_run (const struct spawn_stdio *io, int (*fn) (void *arg, shim_error_t *err), void *arg, int timeout_ms,
               shim_error_t *err);

/* The pid a libshim call wrote in the file NAME of the directory DIR. */
int spawn_read_pid (const char *dir, const char *name, pid_t *pid, shim_error_t *err);

/* *FD: a write end of the stdin FIFO PATH for the shim to hold (-1 for no
 * PATH): the process reading it sees EOF only once the shim closes it
 * (CloseIO) and containerd's writer is gone, never before containerd's
 * writer opened. */
int spawn_stdin_holder (const char *path, int *fd, shim_error_t *err);

#endif
