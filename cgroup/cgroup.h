/* SPDX-License-Identifier: Apache-2.0 */
/* A container's cgroup as a library: a path and linux.resources in, a
 * handle out; nothing here knows what a container is.  One manager per host
 * does the work behind the cgroup_* entry points (runc's fs/fs2/systemd
 * managers, crun's cgroup manager table): today the cgroupfs v2 one
 * (cgroup/v2.c); a cgroup v1/hybrid and a systemd (transient scope) manager
 * go behind the same table. */
#ifndef SHIM_CGROUP_H
#define SHIM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "cgroup/cgroup_files.h"
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

/* linux.resources.blockIO's per-device entries: weightDevice and the four
 * throttle lists, one kind each. */
enum cgroup_blkio_kind
{
  CGROUP_BLKIO_WEIGHT,
  CGROUP_BLKIO_READ_BPS,
  CGROUP_BLKIO_WRITE_BPS,
  CGROUP_BLKIO_READ_IOPS,
  CGROUP_BLKIO_WRITE_IOPS,
};
struct cgroup_blkio_device
{
  enum cgroup_blkio_kind kind;
  int64_t major, minor;
  uint64_t value; /* the weight, or the rate (bytes or operations per second) */
};

/* linux.resources.hugepageLimits[]: pageSize as the spec writes it ("2MB"). */
struct cgroup_hugepage_limit
{
  char *page_size;
  uint64_t limit;
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
  bool oom_kill_disable; /* memory.disableOOMKiller */
  bool has_cpu_rt_runtime, has_cpu_rt_period;
  int64_t cpu_rt_runtime;
  uint64_t cpu_rt_period;
  struct cgroup_hugepage_limit *hugepages;
  size_t n_hugepages;
  struct cgroup_blkio_device *blkio_devices;
  size_t n_blkio_devices;
  /* Set by cgroup_update on its own copy, never by a caller: an update
   * writes only what it is given.  create's defaults (memory.oom.group=1,
   * no swap under a limit without one) are the container's from create
   * on, and a user's `unified` "0" or an engine's choice stays. */
  bool update;
};

/* What cgroup_create needs to know, and nothing of the container besides. */
struct cgroup_spec
{
  const char *cgroups_path; /* linux.cgroupsPath; NULL or "" for /shim/ID */
  const char *id;           /* only for that default path */
  bool systemd;             /* --systemd-cgroup: cgroupsPath is slice:prefix:name */
  bool allow_unenforced;    /* run even when a limit cannot be enforced */
  const struct cgroup_resources *resources;
  uid_t owner; /* give the cgroup to this uid (delegation), or CGROUP_NO_OWNER */
  /* The caller is not root: where it may not make the cgroup and no limit
   * or device rule needs one, the container runs without (runc's rule for
   * rootless containers). */
  bool rootless;
};
#define CGROUP_NO_OWNER ((uid_t) -1)

struct cgroup;
struct cgroup_v1; /* the cgroup v1 manager's directories (cgroup/v1.c) */
struct cgroup_systemd; /* the systemd manager's unit (cgroup/systemd.c) */

/* The operations of one way of managing cgroups.  Callers use the cgroup_*
 * functions below, which dispatch here; a backend fills one of these. */
struct cgroup_manager
{
  const char *name; /* for messages and debug logs: "cgroupfs v2" */
  /* Create PATH (or adopt it when it exists and is empty), delegate the
   * controllers, write the resources, give it to spec->owner. */
  int (*create) (const struct cgroup_spec *spec, const char *path, struct cgroup *out, shim_error_t *err);
  /* The cgroup again from the path state.json keeps (out->path,
   * out->created, out->created_depth are set). */
  int (*open) (struct cgroup *cg, shim_error_t *err);
  int (*update) (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err);
  int (*freeze) (struct cgroup *cg, bool frozen, shim_error_t *err);
  int (*signal_all) (struct cgroup *cg, int sig, shim_error_t *err);
  /* Kill everything in it, wait until empty, remove what we made. */
  int (*destroy) (struct cgroup *cg, shim_error_t *err);
  /* The files the verdict reads. */
  int (*snapshot) (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err);
};

/* The container's cgroup.  manager NULL: no cgroup (no cgroup2 mounted). */
struct cgroup
{
  const struct cgroup_manager *manager;
  char *path;   /* from the cgroup2 mount, with a leading slash */
  int dirfd;    /* the container's cgroup directory, or -1 without cgroup2 */
  int mountfd;  /* the cgroup2 mount, or -1 */
  bool created; /* we made it, so teardown removes it */
  size_t created_depth; /* how many trailing path components we made */
  bool memory_limit_enforced;
  char *unenforced_reason; /* why not, when a limit was asked for; else NULL */
  /* The v1 manager's directories, one per v1 hierarchy; NULL with the v2
   * manager.  Then path, dirfd and mountfd are the unified (cgroup2)
   * hierarchy's tracking cgroup on a hybrid host, the memory hierarchy's
   * on a pure v1 host. */
  struct cgroup_v1 *v1;
  /* "CTRLS PATH\n" for each v1 hierarchy whose directory is not at path (a
   * relative cgroupsPath resolved per hierarchy), NULL when none: what
   * state.json keeps besides path, for cgroup_open_paths. */
  char *v1_paths;
  /* The systemd manager's transient scope; NULL with the others.  Until
   * cgroup_enter has systemd start it with init's pid, dirfd is -1. */
  struct cgroup_systemd *sd;
  /* cgroup_destroy empties it and leaves its directories, with their
   * values, for a later destroy (run --keep, then delete) to remove.  Not
   * for a systemd scope: systemd removes an emptied one anyway. */
  bool keep;
};

/* This host's manager, chosen once: NULL when there is no cgroup to manage
 * (no cgroup2 mounted). */
const struct cgroup_manager *cgroup_manager_detect (void);

/* How this host mounts its cgroups, in systemd's words. */
enum cgroup_mode
{
  CGROUP_MODE_NONE,    /* no cgroup mounted */
  CGROUP_MODE_UNIFIED, /* cgroup v2 only */
  CGROUP_MODE_HYBRID,  /* controllers on v1, a controller-less cgroup2 at /sys/fs/cgroup/unified */
  CGROUP_MODE_LEGACY,  /* cgroup v1 only */
};
enum cgroup_mode cgroup_mode_detect (void);

/* Whether --systemd-cgroup can be honoured on a host of MODE, systemd
 * running as PID 1 or not: 0, or an error naming the flag and why.  Without
 * systemd, runc's refusal.  With it, a scope is made only on cgroup v2:
 * runc's v1 systemd manager (a scope, then its path joined in every v1
 * hierarchy) is not implemented, and the cgroupfs v1 manager would write
 * directories into systemd's tree behind its back, so a hybrid or legacy
 * host is refused naming its mode.  Pure: the decision cgroup_create
 * makes. */
int cgroup_systemd_check (enum cgroup_mode mode, bool systemd_running, shim_error_t *err);

/* Where the cgroup2 hierarchy is mounted (/sys/fs/cgroup on a cgroup v2
 * host, /sys/fs/cgroup/unified on a hybrid one), or NULL. */
const char *cgroup_mount_point (void);

/* Whether the cgroup2 mount has the `memory_localevents` option (then
 * memory.events counts only a cgroup's own events, like
 * memory.events.local): from /proc/self/mountinfo's super options, read
 * once per process.  0 and *on, or -1 when it is not known (no cgroup2
 * mount, mountinfo unreadable). */
int cgroup_mount_localevents (bool *on);
/* The same from the text of a mountinfo file, for the mount at MOUNT_POINT
 * (NULL: the first cgroup2 mount): 1 found, 0 no such cgroup2 mount. */
int cgroup_parse_mountinfo_localevents (const char *buf, const char *mount_point, bool *on);

/* The cgroup v2 path from the text of /proc/PID/cgroup: the `0::` line.
 * Refused: no such line (no cgroup v2), a path that is not absolute, one
 * that climbs with `..` (the reader is in another cgroup namespace;
 * err->status EXDEV), and a removed cgroup (` (deleted)`; ENOENT).  The
 * root cgroup is "/": whether that will do is the caller's call.  *path is
 * malloc'd. */
int cgroup_parse_proc_cgroup (const char *buf, char **path, shim_error_t *err);
/* The same for a cgroup v1 hierarchy: the path of the line whose
 * controller list ("cpu,cpuacct") names CTRL ("cpu"), refused alike. */
int cgroup_parse_proc_cgroup_v1 (const char *buf, const char *ctrl, char **path, shim_error_t *err);
/* The same, read from /proc/PID/cgroup (pid 0: /proc/self/cgroup); errors
 * name the file. */
int cgroup_proc_path (pid_t pid, char **path, shim_error_t *err);

/* The path of the container's cgroup from the cgroup2 root: cgroupsPath
 * (cgroupfs or, with systemd, slice:prefix:name) or /shim/ID.  Pure. */
int cgroup_path_for (const char *cgroups_path, bool systemd, const char *id, char **out,
                     shim_error_t *err);

/* systemd's cpu.weight for OCI cpu.shares, as runc and crun convert it. */
unsigned long long cgroup_cpu_shares_to_weight (unsigned long long shares);
/* blockIO weight (v1's blkio, 10..1000) as cgroup v2's io.weight and
 * systemd's IOWeight (1..10000), as runc converts it: 1 + (w - 10) * 9999 /
 * 990.  0 stays 0 (unset). */
uint64_t cgroup_blkio_weight_to_io (uint64_t weight);

/* Create it (or adopt an existing, empty one), enable the controllers the
 * spec needs in every ancestor, and write linux.resources.  A limit that
 * cannot be enforced is an error naming the controller and why, unless
 * spec->allow_unenforced. */
int cgroup_create (const struct cgroup_spec *spec, struct cgroup *out, shim_error_t *err);

/* Kill every process in it (cgroup.kill) and remove it, waiting for the
 * kernel to report it empty.  A cgroup that cannot be removed is an error.
 * With cg->keep, nothing is removed. */
int cgroup_destroy (struct cgroup *cg, shim_error_t *err);

void cgroup_release (struct cgroup *cg);

/* A container's cgroup again, for the commands after create: path and
 * created_depth as state.json keeps them.  A cgroup already removed (by an
 * engine, or systemd) is not an error: dirfd is then -1. */
int cgroup_open (const char *path, size_t created_depth, struct cgroup *out, shim_error_t *err);
/* The same with the v1 hierarchies' own paths as cgroup.v1_paths gave them
 * at create (NULL: path in every hierarchy). */
int cgroup_open_paths (const char *path, const char *v1_paths, size_t created_depth, struct cgroup *out,
                       shim_error_t *err);

/* The v1 hierarchies' own paths (cgroup.v1_paths, malloc'd; NULL when
 * every hierarchy has PATH, or not the v1 manager) as cgroup_create
 * resolves SPEC's relative cgroupsPath in each, from the caller's own
 * cgroups: `delete` of a container whose create died before it wrote
 * state.json finds its directories so. */
int cgroup_v1_paths_for (const struct cgroup_spec *spec, const char *path, char **v1_paths, shim_error_t *err);

/* pause/resume: cgroup.freeze, waiting until cgroup.events says frozen. */
int cgroup_freeze (struct cgroup *cg, bool frozen, shim_error_t *err);

/* Whether it is frozen (paused), as the kernel says: cgroup.events'
 * `frozen 1` of the cgroup2 cgroup (v2, and the unified one on a hybrid
 * host, which cgroup_freeze uses); on a pure v1 host freezer.state
 * `FROZEN` (not FREEZING: some task has not stopped yet).  No cgroup, or
 * one that cannot be read: false. */
bool cgroup_frozen (const struct cgroup *cg);

/* `update`: write new linux.resources to a running container's cgroup.
 * Only what R gives is written, as runc's update: memory.oom.group only
 * from `unified`; swap as it was unless R gives it (or the limit goes to
 * -1, which takes swap along, as runc), where "as it was" is the file
 * untouched on v2 and, on v1, memory.memsw.limit_in_bytes untouched or,
 * for a container without swap (memsw equal to the limit), following the
 * limit so that it stays without swap. */
int cgroup_update (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err);

/* What cgroup v2's memory.swap.max gets from R (swap alone; OCI's swap is
 * memory + swap), in BUF: "" when it is not written.  At create a limit
 * without swap means no swap ("0"); an update (R->update) writes it only
 * when R gives swap, or a limit of -1 without swap ("max", as runc).
 * Pure: what the v2 manager writes.  (The systemd manager's properties
 * still say MemorySwapMax=0 for a limit without swap, on update too:
 * cgroup/systemd.c's append_resources.) */
void cgroup_v2_swap_max (const struct cgroup_resources *r, char *buf, size_t size);
/* Whether memory.oom.group=1, create's default, is written for R: at
 * create unless `unified` sets the key; never on an update. */
bool cgroup_v2_oom_group_default (const struct cgroup_resources *r);

/* Signal every process in it (kill --all). */
int cgroup_signal_all (struct cgroup *cg, int sig, shim_error_t *err);

/* The verdict's snapshot of it (cg_snapshot_read); without a cgroup, an
 * empty one (nothing known). */
int cgroup_snapshot (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err);

/* The fd to clone a process into with CLONE_INTO_CGROUP (a cgroup2
 * directory), or -1 (none: the caller clones into its own). */
int cgroup_clone_fd (const struct cgroup *cg);

/* Put PID (just cloned) where its cgroup is made for it: with the systemd
 * manager, the first PID (init) makes the cgroup: systemd starts the scope
 * with it (StartTransientUnit, PIDs=[PID]), then the limits systemd has no
 * property for are written to the scope's files; dirfd is set after.
 * Nothing to do with the others (cgroup_enter_needed): the clone
 * (CLONE_INTO_CGROUP) and the child's own join (cgroup_join_self) reach
 * every hierarchy. */
int cgroup_enter (const struct cgroup *cg, pid_t pid, shim_error_t *err);

/* `exec --cgroup`: the sub-cgroups of CG that ARGS (N of them) name, as
 * runc 1.1's exec takes them: one PATH, for every hierarchy (the one
 * there is on cgroup v2; on a hybrid host the v1 ones and the unified
 * one), or CTRL[,CTRL...]:PATH, one argument or more, for the v1
 * hierarchies carrying those controllers (the others stay at CG's).  PATH
 * is taken under CG's directory in each hierarchy, a leading `/` too (as
 * runc's path.Join); one whose `..` leads out of it is refused ("PATH is
 * not a sub cgroup path", EXDEV), and each must exist.  A controller no
 * hierarchy of CG carries is "unknown controller CTRL".  OUT is CG with
 * those directories, for cgroup_clone_fd and cgroup_enter; it owns its fds
 * (cgroup_release) and removes nothing. */
int cgroup_sub_open (const struct cgroup *cg, char *const *args, size_t n, struct cgroup *out, shim_error_t *err);
/* The processes in CG and in every cgroup below it (exec --cgroup's, or the
 * container's own), as cgroup.procs lists them: *text (malloc'd) one pid a
 * line.  CG's cgroup2 directory (on a pure v1 host, its memory one), which
 * every process of the container is under.  runc's ps lists them all. */
int cgroup_procs_all (const struct cgroup *cg, char **text, shim_error_t *err);
/* The part of cgroup_sub_open that is pure: SUB joined to BASE (a cgroup's
 * path) lexically, as runc's path.Join; *rel (malloc'd) the part under
 * BASE, "." for BASE itself; EXDEV when it leads out of BASE. */
int cgroup_sub_path (const char *base, const char *sub, char **rel, shim_error_t *err);

/* Whether cgroup_enter has anything to do for cg that the child cannot do
 * itself (cgroup_join_self): then the child must wait for it before it
 * runs anything of the container's.  Only the systemd manager's scope,
 * which systemd makes with the child's pid, until it is started. */
bool cgroup_enter_needed (const struct cgroup *cg);

/* What a child cloned into cgroup_clone_fd does itself, first thing, to
 * reach the rest of its cgroups: on cgroup v1, "0" (itself) into each
 * hierarchy's `tasks`.  A write of another task's pid to cgroup.procs
 * takes the kernel's global cgroup_threadgroup_rwsem, and its taker waits
 * for an RCU grace period: measured on 6.18 with 2 CPUs, 9 to 20 ms for
 * the first hierarchy.  A single thread naming itself skips that lock:
 * 0.03 ms.  The child is single-threaded, so its thread is the process.
 * cgroup_join_open, before the clone, opens the files; cgroup_join_self,
 * in the child, writes them; cgroup_join_close, in both, closes what is
 * left.  Nothing to do on cgroup v2 (the clone did it) or for a systemd
 * scope not yet started (cgroup_enter does it). */
#define CGROUP_JOIN_MAX 16
struct cgroup_join
{
  const struct cgroup *cg;
  size_t n;
  int fd[CGROUP_JOIN_MAX]; /* per v1 hierarchy of cg, -1 where none */
};
int cgroup_join_open (const struct cgroup *cg, struct cgroup_join *j, shim_error_t *err);
int cgroup_join_self (struct cgroup_join *j, shim_error_t *err);
void cgroup_join_close (struct cgroup_join *j);
/* Whether the child has a join to do (and so is not yet in every cgroup
 * right after the clone). */
bool cgroup_join_pending (const struct cgroup_join *j);

/* The directory holding the container's memory controller files: the
 * cgroup itself on v2, its memory hierarchy directory on v1; -1 when there
 * is none.  Borrowed: the cgroup keeps it. */
int cgroup_memory_dirfd (const struct cgroup *cg);
/* The same for the pids controller (pids.events, pids.max). */
int cgroup_pids_dirfd (const struct cgroup *cg);
/* The path the kernel names the container's memory cgroup by in its OOM
 * records: the memory hierarchy's own on v1 (a relative cgroupsPath is
 * resolved per hierarchy, under the runtime's own cgroup there), else
 * cg->path.  Borrowed. */
const char *cgroup_memory_path (const struct cgroup *cg);

/* What `events --stats` reports (runc's stats event), from whichever files
 * this host has (cgroup/stats.c): cgroup v2's cpu.stat, memory.current,
 * memory.peak, memory.max, memory.swap.*, pids.*; on v1 cpuacct.usage and
 * cpuacct.stat, cpu.stat, memory.usage_in_bytes, max_usage_in_bytes,
 * limit_in_bytes, failcnt, memory.memsw.* and pids.*.  Times in ns; a
 * missing file, and a limit that is no limit, read 0 (as the stream always
 * said). */
struct cgroup_stats
{
  uint64_t cpu_total, cpu_kernel, cpu_user; /* ns */
  uint64_t cpu_periods, cpu_throttled_periods, cpu_throttled_time;
  uint64_t memory_usage, memory_max_usage, memory_limit, memory_failcnt;
  uint64_t swap_usage, swap_limit; /* swap alone: v1's memsw minus memory */
  uint64_t pids_current, pids_limit;
};
void cgroup_stats_read (const struct cgroup *cg, struct cgroup_stats *out);

/* ---- cgroup v1 (cgroup/v1*.c) -------------------------------------------
 * On a hybrid host (controllers on v1 hierarchies, a controller-less cgroup2
 * at /sys/fs/cgroup/unified) and a pure v1 host the v1 manager is chosen:
 * limits in the v1 hierarchies (cgroupsPath at the same path in each, as
 * runc), and on hybrid the unified cgroup for tracking (cgroup.events,
 * cgroup.kill); on pure v1 the freezer kills the tree. */

/* Use the cgroup mounts this text (a /proc/self/mountinfo) lists instead of
 * the host's: unit tests with a fake cgroupfs.  NULL: the host's again. */
void cgroup_v1_set_mountinfo (const char *mountinfo);

/* The directory of process PID's cgroup in the v1 hierarchy carrying
 * controller CTRL ("memory"): its /proc/PID/cgroup line for CTRL joined
 * with that hierarchy's mount point from mountinfo (an OCI hook finds the
 * container's v1 memory cgroup from init's pid so).  0 and *fd (O_CLOEXEC)
 * and *path (malloc'd, from the hierarchy's root); 0 with *fd -1 when no v1
 * hierarchy carries CTRL; -1 when the process or its cgroup cannot be
 * found or opened, as cgroup_parse_proc_cgroup_v1 refuses paths. */
int cgroup_v1_proc_open (pid_t pid, const char *ctrl, int *fd, char **path, shim_error_t *err);

/* memory.oom.group emulated on v1 (the runtime's monitor): whether
 * linux.resources.unified sets it to "0" (v1 then leaves the survivors of
 * an OOM kill alone, as v2 does); "1", or no key, is the default, on. */
bool cgroup_oom_group_off (const struct cgroup_resources *r);
/* Whether linux.resources.unified sets memory.oom.group, to "0" or "1". */
bool cgroup_oom_group_given (const struct cgroup_resources *r);
/* The v1 freezer directory of CG, or -1 (none, or not the v1 manager).
 * Borrowed. */
int cgroup_v1_freezer_dirfd (const struct cgroup *cg);
/* Kill every task of a v1 container from its fds: cgroup.kill of the
 * unified cgroup UNIFIED_FD on a hybrid host; else freeze FREEZER_FD's
 * cgroup (-1: none), SIGKILL each task of TASKS_FD's cgroup.procs, thaw.
 * PATH names it in errors. */
int cgroup_v1_group_kill (int unified_fd, int freezer_fd, int tasks_fd, const char *path, shim_error_t *err);

/* What memory.oom_control says besides the oom_kill counter. */
struct cgroup_v1_oom
{
  bool have;             /* memory.oom_control was read */
  bool under_oom;        /* the cgroup is in OOM now (with the killer disabled: stuck) */
  bool oom_kill_disable; /* the OOM killer is off in it */
};

/* The verdict's snapshot from a v1 memory cgroup directory (MEMORY_DIRFD)
 * and, on a hybrid host, the unified tracking cgroup (UNIFIED_DIRFD, -1:
 * none) for cgroup.events.  What maps, and how (v1 counters are the
 * cgroup's own, never its descendants'):
 *   memory.oom_control oom_kill  -> events_local.oom_kill (CG_EV_OOM_KILL)
 *   memory.failcnt               -> events_local.max (times the limit was hit)
 *   memory.max_usage_in_bytes    -> memory_peak
 *   memory.limit_in_bytes        -> memory_max (the kernel's "no limit" is CG_UNLIMITED)
 *   memory.memsw.limit_in_bytes  -> memory_swap_max (minus the limit: swap alone, as v2)
 *   memory.stat total_rss, total_cache, total_shmem, total_mapped_file,
 *     total_rss_huge             -> stat anon, file, shmem, file_mapped, anon_thp
 *   the directory's inode        -> cgroup_id
 * CG_SNAP_EVENTS (hierarchical counts) is never set: v1 has none.  OOM
 * (may be NULL) gets under_oom and oom_kill_disable. */
int cgroup_v1_snapshot_read (int memory_dirfd, int unified_dirfd, struct cg_snapshot *out,
                             struct cgroup_v1_oom *oom, shim_error_t *err);

/* An eventfd (O_CLOEXEC, non-blocking) that becomes readable on each OOM of
 * the memory cgroup MEMORY_DIRFD, registered through cgroup.event_control
 * for memory.oom_control.  The kernel also signals it once when the cgroup
 * is removed: read memory.oom_control (cgroup_v1_snapshot_read) to tell. */
int cgroup_v1_oom_eventfd (int memory_dirfd, shim_error_t *err);

/* The counters that change when the container is OOM-killed, through files
 * opened once: at the container's end there is no path lookup between the
 * cgroup emptying and the runtime's rmdir (runc removes it right after it
 * reaps init).  -1: not open. */
struct cgroup_v1_counter_fds
{
  int oom_control; /* memory.oom_control: oom_kill */
  int failcnt;     /* memory.failcnt */
  int max_usage;   /* memory.max_usage_in_bytes */
};
#define CGROUP_V1_COUNTER_FDS_INIT { .oom_control = -1, .failcnt = -1, .max_usage = -1 }
/* Open them in the memory cgroup MEMORY_DIRFD; a file that is missing stays
 * -1 (an old kernel). */
int cgroup_v1_counters_open (int memory_dirfd, struct cgroup_v1_counter_fds *fds, shim_error_t *err);
/* Read them into OUT's events_local (oom_kill, max) and memory_peak, with
 * the have bits of what was read (CG_SNAP_EVENTS_LOCAL, CG_SNAP_PEAK);
 * nothing else of OUT is touched.  An error when none could be read (the
 * cgroup was removed: ENODEV). */
int cgroup_v1_counters_pread (const struct cgroup_v1_counter_fds *fds, struct cg_snapshot *out,
                              shim_error_t *err);
void cgroup_v1_counters_close (struct cgroup_v1_counter_fds *fds);

#endif
