/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup v2 files the verdict reads: strict parsers from a buffer, a
 * snapshot read from an open cgroup directory, and its JSON form.
 *
 * Parsing and I/O are separate so the verdict can be computed (and tested) from
 * snapshots alone, and so a snapshot taken by one process (the watcher, the
 * runtime at create) can be persisted and read back by another.
 *
 * Kernel versions (Documentation/admin-guide/cgroup-v2.rst and the commits that
 * added the keys): memory.events.local appeared in 5.2, `oom_group_kill` in
 * 5.17, the `kernel` line of memory.stat in 5.18, memory.peak in 5.19.  A key
 * or file an older kernel lacks is "absent", never 0: consumers test the have
 * bits before using a value. */
#ifndef SHIM_CGROUP_FILES_H
#define SHIM_CGROUP_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/error.h"

/* "max" in memory.max, memory.swap.max, pids.max.  Parsed values are capped at
 * INT64_MAX (JSON integers are signed), so this can never be a real value. */
#define CG_UNLIMITED UINT64_MAX

/* memory.events and memory.events.local.  have: CG_EV_* bits of the keys the
 * file had; a missing bit means the kernel does not count it. */
#define CG_EV_LOW (1u << 0)
#define CG_EV_HIGH (1u << 1)
#define CG_EV_MAX (1u << 2)
#define CG_EV_OOM (1u << 3)
#define CG_EV_OOM_KILL (1u << 4)
#define CG_EV_OOM_GROUP_KILL (1u << 5)
struct cg_memory_events
{
  unsigned have;
  uint64_t low, high, max, oom, oom_kill, oom_group_kill;
};

/* memory.stat: only what the verdict uses to say what filled memory.
 * CG_STAT_KERNEL_ESTIMATED: the kernel had no `kernel` line (before 5.18), so
 * `kernel` is the sum of kernel_stack, pagetables, percpu, vmalloc and slab as
 * far as present: a lower bound. */
#define CG_STAT_ANON (1u << 0)
#define CG_STAT_FILE (1u << 1)
#define CG_STAT_KERNEL (1u << 2)
#define CG_STAT_SHMEM (1u << 3)
#define CG_STAT_SOCK (1u << 4)
#define CG_STAT_FILE_MAPPED (1u << 5)
#define CG_STAT_ANON_THP (1u << 6)
#define CG_STAT_KERNEL_ESTIMATED (1u << 7)
struct cg_memory_stat
{
  unsigned have;
  uint64_t anon, file, kernel, shmem, sock, file_mapped, anon_thp;
};

/* cgroup.events (`frozen` appeared in 5.2). */
#define CG_CEV_POPULATED (1u << 0)
#define CG_CEV_FROZEN (1u << 1)
struct cg_cgroup_events
{
  unsigned have;
  bool populated, frozen;
};

/* Parsers.  name is the file name used in error messages ("`memory.events`
 * line 3: ...").  A malformed line (no value, not a number, negative, out of
 * range, duplicate known key) is an error with err->status 0; a missing known
 * key leaves its have bit clear; an unknown key (a newer kernel) is ignored as
 * long as the line has a key and a value. */
int cg_parse_memory_events (const char *name, const char *buf, struct cg_memory_events *out,
                            shim_error_t *err);
int cg_parse_memory_stat (const char *name, const char *buf, struct cg_memory_stat *out,
                          shim_error_t *err);
int cg_parse_cgroup_events (const char *name, const char *buf, struct cg_cgroup_events *out,
                            shim_error_t *err);
/* One number on one line: memory.peak, memory.current. */
int cg_parse_u64_file (const char *name, const char *buf, uint64_t *out, shim_error_t *err);
/* A number or "max" (-> CG_UNLIMITED): memory.max, memory.swap.max, pids.max. */
int cg_parse_limit_file (const char *name, const char *buf, uint64_t *out, shim_error_t *err);

/* Read an open cgroup.events again (which also re-arms its POLLPRI): true
 * when it says populated 0, or cannot be read because the cgroup is gone. */
bool cg_events_fd_ended (int cgroup_events_fd);

/* Which files a snapshot holds; a clear bit means the file did not exist
 * (controller not enabled, older kernel, cgroup removed). */
#define CG_SNAP_EVENTS_LOCAL (1u << 0)
#define CG_SNAP_EVENTS (1u << 1)
#define CG_SNAP_PEAK (1u << 2)
#define CG_SNAP_MAX (1u << 3)
#define CG_SNAP_SWAP_MAX (1u << 4)
#define CG_SNAP_STAT (1u << 5)
#define CG_SNAP_CGROUP_EVENTS (1u << 6)
#define CG_SNAP_OOM_GROUP (1u << 7)   /* oom_group: memory.oom.group */
#define CG_SNAP_ID (1u << 8)          /* cgroup_id: the directory's inode number */
#define CG_SNAP_LOCALEVENTS (1u << 9) /* localevents: the mount's option is known */
/* v1: read from a cgroup v1 memory directory (cgroup_v1_snapshot_read): its
 * counters are the cgroup's own only (events_local: oom_kill from
 * memory.oom_control, max from memory.failcnt; no oom, no tree counts). */
#define CG_SNAP_V1 (1u << 10)
/* pids.events (its `max`: forks refused at pids.max) and pids.max, of the
 * cgroup itself on v2 and of its v1 pids cgroup on v1 (a 6.18 host has
 * pids.events there too): absent without the pids controller. */
#define CG_SNAP_PIDS_EVENTS (1u << 11)
#define CG_SNAP_PIDS_MAX (1u << 12)
struct cg_snapshot
{
  unsigned have;
  struct cg_memory_events events_local; /* memory.events.local */
  struct cg_memory_events events;       /* memory.events: C and everything below it */
  uint64_t memory_peak;
  uint64_t memory_max;      /* or CG_UNLIMITED */
  uint64_t memory_swap_max; /* or CG_UNLIMITED */
  struct cg_memory_stat stat;
  struct cg_cgroup_events cgroup_events;
  bool oom_group;
  /* The cgroup's identity: a cgroup removed and made again under the same
   * path has another id, and its counters start again from 0. */
  uint64_t cgroup_id;
  /* The cgroup2 mount has memory_localevents: memory.events then counts
   * only the cgroup's own events, like memory.events.local. */
  bool localevents;
  /* CG_SNAP_V1: the v1 memory cgroup had subdirectories (nested cgroups,
   * whose kills its own counters do not count) when it was read. */
  bool v1_nested;
  uint64_t pids_max_events; /* pids.events max */
  uint64_t pids_max;        /* pids.max, or CG_UNLIMITED */
};

/* Read every file above from an open cgroup directory.  ENOENT marks a part
 * absent; any other read error or a malformed file fails, naming the file. */
int cg_snapshot_read (int cgroup_dirfd, struct cg_snapshot *out, shim_error_t *err);

/* pids.events and pids.max from an open pids cgroup directory into OUT
 * (cg_snapshot_read reads them from the cgroup itself; a v1 host's are in
 * the pids hierarchy).  Absent files leave their bits clear. */
int cg_snapshot_read_pids (int pids_dirfd, struct cg_snapshot *out, shim_error_t *err);
/* One-line JSON object; *out is malloc'd.  Absent files are null, absent keys
 * are left out, CG_UNLIMITED is the string "max". */
int cg_snapshot_to_json (const struct cg_snapshot *snap, char **out, shim_error_t *err);
/* The inverse.  what names the source (a path) in error messages. */
int cg_snapshot_from_json (const char *json, const char *what, struct cg_snapshot *out,
                           shim_error_t *err);

/* The same, embedded in a larger document (the state file): generate the
 * object as the next value of g; read it from a parsed node (NULL or JSON null
 * gives an empty snapshot: nothing known). */
int cg_snapshot_gen (yajl_gen g, const struct cg_snapshot *snap, shim_error_t *err);
int cg_snapshot_from_tree (yajl_val node, const char *what, struct cg_snapshot *out,
                           shim_error_t *err);

#endif
