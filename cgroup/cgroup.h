/* SPDX-License-Identifier: Apache-2.0 */
/* The container's cgroup v2: where it goes, the controllers its ancestors
 * must delegate, linux.resources written to it, and its teardown. */
#ifndef SHIM_CGROUP_H
#define SHIM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "common/error.h"
#include "common/util.h"

/* Access bits of a device rule, as the kernel's BPF_DEVCG_ACC_*. */
enum
{
  CGROUP_DEV_MKNOD = 1,
  CGROUP_DEV_READ = 2,
  CGROUP_DEV_WRITE = 4,
};

/* linux.resources.devices[]: one rule of the device cgroup. */
struct cgroup_device_rule
{
  bool allow;
  char type;      /* 'a', 'c' or 'b' */
  int64_t major;  /* -1 = any */
  int64_t minor;  /* -1 = any */
  unsigned access; /* CGROUP_DEV_* */
};

/* A resource value is "set" only when the field was present. */
struct cgroup_resources
{
  bool has_memory_limit, has_memory_reservation, has_memory_swap;
  int64_t memory_limit, memory_reservation, memory_swap; /* -1 = unlimited */
  bool has_pids_limit;
  int64_t pids_limit; /* <= 0 = unlimited, as runc */
  bool has_cpu_shares, has_cpu_quota, has_cpu_period;
  uint64_t cpu_shares, cpu_period;
  int64_t cpu_quota;
  char *cpu_cpus, *cpu_mems;
  bool has_blkio_weight;
  uint16_t blkio_weight;
  struct util_kv *unified;
  size_t n_unified;
  bool has_devices; /* linux.resources.devices was given, even empty */
  struct cgroup_device_rule *devices;
  size_t n_devices;
};

/* FIXME(layout): cgroup_create still reads the whole config. */
struct shim_config;

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
int cgroup_update (struct shim_cgroup *cg, const struct cgroup_resources *r, shim_error_t *err);

/* Signal every process in it (kill --all). */
int cgroup_signal_all (struct shim_cgroup *cg, int sig, shim_error_t *err);

#endif
