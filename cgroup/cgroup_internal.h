/* SPDX-License-Identifier: Apache-2.0 */
/* What hierarchy.c gives cgroup.c (selection, dispatch) and the backends: the
 * controllers by name, and the backends' tables.  Only for cgroup/. */
#ifndef SHIM_CGROUP_INTERNAL_H
#define SHIM_CGROUP_INTERNAL_H

#include "cgroup/cgroup.h"

/* The controllers linux.resources can ask for, as bits. */
enum
{
  CGROUP_CTRL_MEMORY = 1 << 0,
  CGROUP_CTRL_PIDS = 1 << 1,
  CGROUP_CTRL_CPU = 1 << 2,
  CGROUP_CTRL_CPUSET = 1 << 3,
  CGROUP_CTRL_IO = 1 << 4,
  CGROUP_CTRL_HUGETLB = 1 << 5,
};
#define CGROUP_N_CTRL 6

/* "memory", "pids", "cpu", "cpuset", "io", "hugetlb", by bit number. */
extern const char *const cgroup_ctrl_names[CGROUP_N_CTRL];

/* What the spec asks to be limited: these controllers must work. */
unsigned cgroup_required_controllers (const struct cgroup_resources *r);

/* The name of the first controller in mask, for messages. */
const char *cgroup_first_ctrl (unsigned mask);

/* Whether a linux.resources.unified key (`memory.high`) belongs to
 * controller number i. */
bool cgroup_key_is_ctrl (const char *key, size_t i);

/* A container may have made cgroups of its own below its cgroup DIRFD (a
 * delegated subtree, or a nested v1 memory cgroup): they must go first,
 * deepest first (DEPTH: 0 at the container's; PATH for messages). */
int cgroup_remove_descendants (int dirfd, const char *path, int depth, shim_error_t *err);

/* FN for each cgroup directly below DIRFD (at PATH, DEPTH deep; more than
 * 64 is refused): DIRFD, the child's name, its fd (O_CLOEXEC, closed
 * after), its path for messages and its depth.  One removed under us is
 * skipped. */
typedef int (*cgroup_child_fn) (int dirfd, const char *name, int child, const char *cpath, int depth, void *arg,
                                shim_error_t *err);
int cgroup_walk_children (int dirfd, const char *path, int depth, cgroup_child_fn fn, void *arg, shim_error_t *err);

/* rmdir PATH under MOUNTFD (its descendants first) and then up to DEPTH - 1
 * of its parents, innermost first; ENOTEMPTY/EBUSY on a parent shared with
 * another container is expected.  A task that was just killed may still be
 * counted for a moment: the leaf is retried up to a bound.  WHERE names
 * the hierarchy for messages. */
int cgroup_remove_path (int mountfd, const char *where, const char *path, size_t depth, shim_error_t *err);

/* No cgroupsPath: /shim/ID, whose /shim every such container shares. */
bool cgroup_default_path (const char *cgroups_path);

/* Open the cgroup2 mount into CG->mountfd: the v2 and systemd managers
 * reach every cgroup from it. */
int cgroup_open_mount (struct cgroup *cg, shim_error_t *err);

/* systemd.c: the transient scope systemd makes for the systemd manager,
 * over D-Bus; bounded waits for systemd's jobs. */
bool cgroup_systemd_running (void);
int cgroup_systemd_start_scope (const char *unit, const char *slice, pid_t pid,
                                const struct cgroup_resources *r, const char *description,
                                shim_error_t *err);
int cgroup_systemd_stop_unit (const char *unit, shim_error_t *err);
/* Whether the systemd manager asked is the user's own (user@UID.service)
 * rather than PID 1: not root of the initial user namespace (rootless
 * podman runs the runtime as root of the user's), runc's choice too. */
bool cgroup_systemd_user_manager (void);
/* The manager's own cgroup (its ControlGroup property): "" for the system
 * manager, /user.slice/user-UID.slice/user@UID.service for a user's (the
 * one bus_open reaches when rootless); *out malloc'd. */
int cgroup_systemd_manager_cgroup (char **out, shim_error_t *err);
int cgroup_systemd_set_properties (const char *unit, const struct cgroup_resources *r,
                                   shim_error_t *err);

/* The systemd manager (--systemd-cgroup with systemd on the bus): the
 * container's cgroup is the transient scope `<prefix>-<name>.scope` in its
 * slice, made by systemd; otherwise used as the v2 manager's. */
struct cgroup_systemd
{
  char *unit;  /* shimtest-ID.scope */
  char *slice; /* system.slice */
  bool started;
  /* Until started: what create was asked for (the caller keeps it). */
  const struct cgroup_resources *resources;
  uid_t owner;
};
extern const struct cgroup_manager cgroup_systemd_manager;
/* Whether PATH names a scope (its last component ends in `.scope`): a
 * container's cgroup the systemd manager made, when systemd runs. */
bool cgroup_systemd_is_scope (const char *path);
int cgroup_systemd_enter (struct cgroup *cg, pid_t pid, shim_error_t *err);
void cgroup_systemd_free (struct cgroup_systemd *sd);


/* Give the cgroup2 directory DIRFD (PATH, for messages) to OWNER: the
 * directory and the files the kernel lists as safe to delegate. */
int cgroup_delegate_to (int dirfd, const char *path, uid_t owner, shim_error_t *err);

/* A frozen cgroup2 directory DIRFD (PATH, for messages), by its own
 * cgroup.freeze or a frozen parent's, would stop the container's init
 * before its first instruction, and `run` would wait for it forever:
 * refused (EBUSY), in runc's words.  Both backends check the cgroup2
 * directory they track the container in (cgroup_files.c). */
int cgroup_refuse_frozen (int dirfd, const char *path, shim_error_t *err);

/* The backends, which cgroup.c chooses from.  cgroupfs v2: cgroup/v2.c;
 * cgroupfs v1 (hybrid and pure v1 hosts): cgroup/v1.c. */
extern const struct cgroup_manager cgroup_v2_manager;
extern const struct cgroup_manager cgroup_v1_manager;

/* Whether this host's controllers are on cgroup v1 hierarchies (hybrid or
 * pure v1): then cgroup_v1_manager is the one. */
bool cgroup_v1_present (void);

/* The kernel's "no limit" in a v1 memory.limit_in_bytes is PAGE_COUNTER_MAX
 * pages in bytes (9223372036854771712 with 4 KiB pages): anything from
 * here up is no limit. */
#define CGROUP_V1_UNLIMITED_FROM 0x7fffffffff000000ULL

/* The container's directories in the v1 hierarchies (cgroup/v1.c keeps
 * them; v1_apply.c writes the limits through them). */
#define CGROUP_V1_MAX 16
struct cgroup_v1_dir
{
  char *ctrls;   /* the hierarchy's controllers, as its super options: "cpu,cpuacct" */
  int mountfd;   /* the hierarchy's mount */
  int dirfd;     /* the container's cgroup in it, or -1 (removed) */
  size_t created; /* trailing path components we made in it */
  bool created_saved; /* created came from cgroup.v1_paths (an "=CTRLS N" line) */
  char *path;     /* the container's cgroup in it, when not cgroup.path: a
                   * relative cgroupsPath is under the runtime's own cgroup
                   * of each hierarchy, as runc does */
};
struct cgroup_v1
{
  size_t n;
  struct cgroup_v1_dir h[CGROUP_V1_MAX];
};
void cgroup_v1_free (struct cgroup_v1 *v);

/* A relative cgroupsPath in the v1 hierarchy carrying CTRL ("cpu"): under
 * the runtime's own cgroup there (its /proc/self/cgroup line), as runc's
 * fs manager does.  *out NULL: not a relative path (absolute, systemd's,
 * the default), or no line for CTRL; the caller uses the one path. */
int cgroup_path_for_v1 (const char *cgroups_path, bool systemd, const char *ctrl, char **out, shim_error_t *err);

/* The container's directory in the hierarchy carrying controller NAME
 * ("memory", "cpu"), or -1 when none is mounted (or it was removed). */
int cgroup_v1_dirfd (const struct cgroup_v1 *v, const char *name);
/* The hierarchy carrying controller NAME, or NULL. */
const struct cgroup_v1_dir *cgroup_v1_find (const struct cgroup_v1 *v, const char *name);

/* The v1 hierarchies of CG opened, and a relative cgroupsPath resolved in
 * each as create does (CG's v1_paths). */
int cgroup_v1_resolve (const struct cgroup_spec *spec, const char *path, struct cgroup *cg, shim_error_t *err);

/* Write linux.resources to the v1 hierarchies (v1_apply.c), and the
 * `unified` keys of core cgroup files (cgroup.max.depth) to UNIFIED_FD, the
 * unified tracking cgroup (-1: none).  A limit with no hierarchy to enforce
 * it, and any other `unified` key (memory.high: v1 cannot express it), is an
 * error naming it unless ALLOW_UNENFORCED: then *why (malloc'd, may be
 * NULL) says what is not enforced. */
int v1_apply_resources (const struct cgroup_v1 *v, int unified_fd, const struct cgroup_resources *r,
                        bool allow_unenforced, char **why, shim_error_t *err);
/* Make PATH (the container's cgroup) under MOUNTFD, hierarchy WHERE (for
 * messages), level by level (v1_path.c); *CREATED: how many trailing
 * levels are ours, *LEAF: its directory.  CPUSET: each new level's cpus and
 * mems from its parent's. */
int cgroup_v1_make_path (int mountfd, const char *where, const char *path, bool cpuset, size_t *created, int *leaf,
                         shim_error_t *err);
/* A new cpuset cgroup has empty cpuset.cpus and cpuset.mems, and v1 lets no
 * task in until they are set: copy the parent's (PARENT_FD) into DIRFD's
 * where empty. */
int v1_apply_cpuset_inherit (int parent_fd, int dirfd, shim_error_t *err);
/* A v1 freezer cgroup (FREEZER_FD, at PATH) someone left FROZEN, or under a
 * frozen parent (it then reads FROZEN or FREEZING), would stop init before
 * its first instruction and leave create waiting: refused, as runc does. */
int cgroup_v1_refuse_frozen (int freezer_fd, const char *path, shim_error_t *err);

#endif
