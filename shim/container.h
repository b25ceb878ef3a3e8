/* SPDX-License-Identifier: Apache-2.0 */
/* Starting the container's init: namespaces, the process's own settings
 * (user, rlimits, cwd, environment) and the exec.  The filesystem part is in
 * rootfs.c. */
#ifndef SHIM_CONTAINER_H
#define SHIM_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"

struct container_opts
{
  bool no_pivot;
  const char *id; /* the container's id (told to a seccomp listener) */
  int cgroup_fd; /* the container's cgroup directory (CLONE_INTO_CGROUP), or -1 */
};

struct container_proc
{
  pid_t pid; /* in the runtime's pid namespace */
  int pidfd;
};

/* Create init and wait until it has exec'd the process (or failed: then the
 * child's own error, e.g. `process.args[0] "/bin/nope": not found in the
 * container`, is returned and the child has been reaped). */
int container_spawn (const struct shim_config *cfg, const struct container_opts *opts,
                     struct container_proc *out, shim_error_t *err);

#endif
