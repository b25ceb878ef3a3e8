/* SPDX-License-Identifier: Apache-2.0 */
/* Where a verdict is left for the engines that read files: podman's
 * <bundle>/oom marker and Kubernetes' termination-log. */
#ifndef SHIM_MARK_H
#define SHIM_MARK_H

#include "common/error.h"
#include "verdict/verdict.h"

/* podman's marker, <bundle>/oom: it reads the file's existence as
 * State.OOMKilled.  mark_oom creates it (empty) in BUNDLE_FD when,
 * and only when, V says the container itself was OOM-killed (oom_killed
 * true): 1 created (or already there), 0 not an OOM kill, -1 error. */
#define MARK_OOM_FILE "oom"
int mark_oom (int bundle_fd, const struct verdict *v, shim_error_t *err);
/* Creates the marker whatever the verdict: for a caller that decided. */
int mark_oom_file (int bundle_fd, shim_error_t *err);
/* Removes the marker the caller made, when a later verdict overturned the
 * one it was made from (not there: no error).  0, or -1 error. */
int mark_oom_remove (int bundle_fd, shim_error_t *err);

/* Kubernetes' termination-log (the source of the `/dev/termination-log`
 * mount), so that `kubectl describe pod` shows the verdict next to its own
 * OOMKilled: when V says the container was OOM-killed and FD (open for
 * writing on the host side, by the runtime; -1: none) is a regular file
 * the workload left empty, V's message is written to it as one line.  A
 * file that is not empty (the workload's own message, or ours already) is
 * left as it is.  1 written, 0 nothing to do, -1 error. */
int mark_termination_log (int fd, const struct verdict *v, shim_error_t *err);

#endif
