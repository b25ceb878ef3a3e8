/* SPDX-License-Identifier: Apache-2.0 */
/* The container's filesystem view: mounts from config.json, the default /dev,
 * pivot_root, masked and read-only paths.  Runs inside the new mount
 * namespace, in the child, before the process is exec'd. */
#ifndef SHIM_ROOTFS_H
#define SHIM_ROOTFS_H

#include <stdbool.h>

#include "runtime/config.h"

struct rootfs_opts
{
  bool no_pivot; /* chroot instead of pivot_root (--no-pivot) */
};

/* The mounts of config.json and the default /dev, on the rootfs, still
 * seen from the runtime's root: createRuntime and createContainer hooks run
 * after this, before rootfs_enter.  MOUNT_FDS (NULL, or cfg->n_mounts
 * entries): for a bind mount, a detached tree (open_tree) of its source,
 * moved into place instead of binding the path; -1 for none. */
int rootfs_mount (const struct shim_config *cfg, const int *mount_fds, shim_error_t *err);

/* The switch into the new root: pivot_root, or chroot with --no-pivot. */
int rootfs_enter (const struct shim_config *cfg, const struct rootfs_opts *opts, shim_error_t *err);

/* After the switch: enter process.cwd, resolved inside the new root. */
int rootfs_chdir (const char *cwd, shim_error_t *err);

/* After the switch: masked and read-only paths, sysctls, a read-only root. */
int rootfs_finalize (const struct shim_config *cfg, shim_error_t *err);

/* mount(2) of a bind remount (MS_REMOUNT | MS_BIND | ...) of TARGET; on
 * EPERM once more with the flags a user namespace locked on it kept
 * (rootfs_remount.c).  -1 with errno set. */
int rootfs_remount (const char *target, unsigned long flags);

#endif
