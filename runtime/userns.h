/* SPDX-License-Identifier: Apache-2.0 */
/* User namespaces: the runtime writes the maps of the container's new user
 * namespace from outside (the parent), the container's init waits for them
 * on the sync socket and becomes root in it. */
#ifndef SHIM_USERNS_H
#define SHIM_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/config.h"

/* Whether the config asks for a new user namespace (not one joined by path). */
bool userns_is_new (const struct shim_config *cfg);

/* Parent, right after clone3: write /proc/PID/uid_map, setgroups (only
 * where the kernel requires it) and gid_map, then tell the child on
 * SYNC_FD, handing it a detached copy (open_tree) of each bind mount's
 * source: the host's root can reach a source the namespace's root cannot
 * (a 0700 directory of the host's).  A no-op without a new user
 * namespace. */
int userns_write_maps (pid_t pid, int sync_fd, const struct shim_config *cfg, shim_error_t *err);

/* Child, first thing: wait until the parent has written the maps, then
 * become root of the namespace.  MOUNT_FDS (cfg->n_mounts entries, -1
 * each) gets the detached trees the parent sent, -1 where none came: the
 * caller closes them.  A no-op without a new user namespace. */
int userns_wait_maps (int sync_fd, const struct shim_config *cfg, int *mount_fds, shim_error_t *err);

/* Child, right after joining a user namespace: become its root. */
int userns_become_root (shim_error_t *err);

#endif
