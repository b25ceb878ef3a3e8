/* SPDX-License-Identifier: Apache-2.0 */
/* The container's cgroup v2: where it goes, the controllers its ancestors
 * must delegate, linux.resources written to it, and its teardown. */
#ifndef SHIM_CGROUP_H
#define SHIM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/config.h"

struct cgroup_opts
{
  bool systemd;          /* --systemd-cgroup: cgroupsPath is slice:prefix:name */
  bool allow_unenforced; /* run even when a limit cannot be enforced */
};

struct shim_cgroup
{
  char *path;   /* from the cgroup2 mount, with a leading slash */
  int dirfd;    /* the container's cgroup directory, or -1 without cgroup2 */
  int mountfd;  /* the cgroup2 mount, or -1 */
  bool created; /* we made it, so teardown removes it */
  size_t created_depth; /* how many trailing path components we made */
  bool memory_limit_enforced;
  char *unenforced_reason; /* why not, when a limit was asked for; else NULL */
};

/* Where the cgroup2 hierarchy is mounted (/sys/fs/cgroup on a cgroup v2
 * host, /sys/fs/cgroup/unified on a hybrid one), or NULL. */
const char *cgroup_mount_point (void);

/* The path of the container's cgroup from the cgroup2 root: cgroupsPath
 * (cgroupfs or, with systemd, slice:prefix:name) or /shim/ID.  Pure. */
int cgroup_path_for (const char *cgroups_path, bool systemd, const char *id, char **out,
                     shim_error_t *err);

/* systemd's cpu.weight for OCI cpu.shares, as runc and crun convert it. */
unsigned long long cgroup_cpu_shares_to_weight (unsigned long long shares);

/* Create it (or adopt an existing, empty one), enable the controllers the
 * spec needs in every ancestor, and write linux.resources.  A limit that
 * cannot be enforced is an error naming the controller and why, unless
 * opts->allow_unenforced. */
int cgroup_create (const struct shim_config *cfg, const char *id, const struct cgroup_opts *opts,
                   struct shim_cgroup *out, shim_error_t *err);

/* Kill every process in it (cgroup.kill) and remove it, waiting for the
 * kernel to report it empty.  A cgroup that cannot be removed is an error. */
int cgroup_destroy (struct shim_cgroup *cg, shim_error_t *err);

void cgroup_release (struct shim_cgroup *cg);

/* A container's cgroup again, for the commands after create: path and
 * created_depth as state.json keeps them.  A cgroup already removed (by an
 * engine, or systemd) is not an error: dirfd is then -1. */
int cgroup_open (const char *path, size_t created_depth, struct shim_cgroup *out, shim_error_t *err);

/* pause/resume: cgroup.freeze, waiting until cgroup.events says frozen. */
int cgroup_freeze (struct shim_cgroup *cg, bool frozen, shim_error_t *err);

/* `update`: write new linux.resources to a running container's cgroup. */
int cgroup_update (struct shim_cgroup *cg, const struct shim_resources *r, shim_error_t *err);

/* Signal every process in it (kill --all). */
int cgroup_signal_all (struct shim_cgroup *cg, int sig, shim_error_t *err);

#endif
