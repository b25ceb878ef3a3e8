/* SPDX-License-Identifier: Apache-2.0 */
/* The detached watcher, the one copy for the runtime (create/start under an
 * engine) and the hook (inside runc or crun): a small process that waits on
 * the container cgroup's memory.events.local, memory.events, cgroup.events,
 * init's pidfd and the kernel log, and persists a record of every change,
 * so the verdict can be written after the engine or the runtime has removed
 * the cgroup.  It is not an ancestor of init, idles in poll(2), and ends
 * when the cgroup empties (or is gone), or when its caller's stop fd says
 * so.  What it does besides the record is the caller's choice, in a
 * struct watcher_policy: podman's marker, a lock to hold, where the record
 * goes.
 *
 * Two steps, so that the baseline is taken before init exists:
 * watcher_arm (the baseline, the open files, the surviving ancestor's
 * counters, the kernel log's position) and, once init runs,
 * watcher_spawn. */
#ifndef SHIM_WATCHER_H
#define SHIM_WATCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup/cgroup.h"
#include "cgroup/cgroup_files.h"
#include "common/error.h"
#include "evidence/kmsg_reader.h"
#include "evidence/mark.h"
#include "evidence/monitor.h"
#include "verdict/verdict.h"

/* What the watcher persisted (the file is rewritten atomically). */
struct watcher_record
{
  bool have_baseline, have_last, have_fullest;
  struct cg_snapshot baseline, last, fullest;
  /* The nearest ancestor that outlives the container: its memory.events
   * (and cgroup id) at arming and at the end. */
  bool have_ancestor_baseline, have_ancestor_final;
  struct cg_snapshot ancestor_baseline, ancestor_final;
  bool ended; /* the watcher saw the cgroup empty (populated 0) or vanish */
  bool have_status;
  int status; /* init's wait status, from the kernel (pidfd_exit_status) */
  /* Without it: only init's zombie could have told, and the engine reaped
   * it first. */
  bool status_reaped_first;
  struct kmsg_evidence kmsg; /* access KMSG_NOT_READ: no reader was armed */
  /* cgroup v1: the watcher killed the container's tasks after an OOM kill
   * in it, emulating memory.oom.group (monitor_emulate_oom_group). */
  bool oom_group_emulated;
  /* ... and how many tasks it found alive to kill (0: none were left). */
  unsigned oom_group_left;
};

int watcher_record_write (int dirfd, const char *name, const struct watcher_record *r,
                          shim_error_t *err);
/* ENOENT (no record) is reported in err->status. */
int watcher_record_read (int dirfd, const char *name, struct watcher_record *out,
                         shim_error_t *err);

/* A watcher armed but not yet running. */
struct watcher
{
  struct monitor m;
  int tree_fd;      /* memory.events: kills in nested cgroups and from above */
  int peak_fd;      /* memory.peak, read at the end */
  int cg_events_fd; /* cgroup.events: populated 0, or the cgroup removed */
  int ancestor_fd;  /* the surviving ancestor's memory.events, or -1 */
  /* cgroup v1: the memory cgroup's counters, read at the end through these */
  struct cgroup_v1_counter_fds v1_counters;
  bool have_ancestor_baseline;
  struct cg_snapshot ancestor_baseline;
  struct kmsg_reader kmsg;
  struct kmsg_evidence kmsg_ev;
};
#define WATCHER_INIT                                                                               \
  { .m = { .cgroup_fd = -1, .memory_fd = -1, .events_fd = -1 }, .tree_fd = -1, .peak_fd = -1, .cg_events_fd = -1, \
    .ancestor_fd = -1, .v1_counters = CGROUP_V1_COUNTER_FDS_INIT, .kmsg = { .fd = -1 } }

/* Arm on the cgroup CGROUP_FD (not taken; it must stay open until
 * watcher_spawn): take the baseline, open the files to poll, read the
 * memory.events of the ancestor ANCESTOR_LEVELS up (the nearest one that
 * outlives the container: 1 is the parent; 0 none), and open the kernel
 * log at its end for KERNEL_PATH, the cgroup's path from the cgroup2 root
 * (NULL: no kernel log). */
int watcher_arm (struct watcher *w, int cgroup_fd, unsigned ancestor_levels,
                 const char *kernel_path, shim_error_t *err);
/* The same for the container's cgroup CG (borrowed, open until
 * watcher_spawn): on cgroup v1 the snapshots come from its v1 memory
 * cgroup (monitor_init_v1), with cgroup.events from the unified one. */
int watcher_arm_cgroup (struct watcher *w, const struct cgroup *cg, unsigned ancestor_levels,
                        const char *kernel_path, shim_error_t *err);
/* The same from the fds of a v1 memory cgroup (MEMORY_FD) and the unified
 * cgroup that tracks the container (UNIFIED_FD: its cgroup.events says
 * when the container has ended), both borrowed until watcher_spawn: an OCI
 * hook under runc on a hybrid host.  KERNEL_PATH is the v1 memory path
 * (the kernel log names memory cgroups by it).  UNIFIED_FD -1: a pure v1
 * host, where init's exit (watcher_policy.init_pidfd, then required) is
 * the container's end. */
int watcher_arm_v1 (struct watcher *w, int memory_fd, int unified_fd, const char *kernel_path,
                    shim_error_t *err);
void watcher_release (struct watcher *w);

/* How the watcher behaves, all chosen by its caller. */
struct watcher_policy
{
  const char *id; /* the container, in the verdict the marker is decided by */
  bool memory_limit_enforced;
  /* Where the record goes (not taken). */
  int dirfd;
  const char *name;
  /* podman's <bundle>/oom, created (mark_oom) the moment the
   * counters prove the container itself was OOM-killed; -1: none. */
  int bundle_fd;
  /* Kubernetes' termination-log, written (mark_termination_log)
   * at the same moment; 0 (left out) or -1: none (the watcher's fds 0-2
   * are /dev/null). */
  int termination_log_fd;
  /* Held open by the watcher until it has written its last record (the
   * hook's flock'ed watcher.lock); -1: none. */
  int lock_fd;
  /* Besides the cgroup's end: the watcher ends at once, without a last
   * record, when the fd STOP_OPEN (DIRFD, &GONE) gave (-1: none) is
   * readable and STOP (fd, ARG) says so, or when STOP_OPEN set GONE
   * (`delete` removed the state: there is no one left to tell).  The
   * watcher calls STOP_OPEN itself, once detached: the caller is spared
   * the fd's close, which for an inotify instance with a watch waits for
   * an SRCU grace period in the kernel.  NULL: no such end. */
  int (*stop_open) (int dirfd, bool *gone);
  bool (*stop) (int fd, void *arg);
  void *arg;
  /* init's pidfd, for its exit and its status (-1: none), and its pid as
   * the caller sees it (0: unknown), for the kernel log's victims. */
  int init_pidfd;
  int64_t init_pid;
  /* The runtime's record of the signals it sent, read from DIRFD: < 0 when
   * unreadable.  NULL: not seen (an OCI hook), which is not "none sent". */
  int (*signals) (int dirfd, uint64_t *sent);
};

/* The watcher holds LOCK_NAME in DIRFD (watcher_policy.lock_fd, flock'ed)
 * until it has written its last record.  watcher_running: it holds it
 * now.  watcher_wait_done: wait for it to let go, at most TIMEOUT_MS;
 * true when it did (or there is nothing to wait for). */
bool watcher_running (int dirfd, const char *lock_name);
bool watcher_wait_done (int dirfd, const char *lock_name, int timeout_ms);

/* Write the first record (the baseline: a container that dies at once
 * still has one), fork the watcher fully detached and wait (bounded) until
 * it says it runs.  An error when it could not be started: then the record
 * is removed again, so that nobody reads a watcher that never ran as one
 * that saw nothing.  W is released either way. */
int watcher_spawn (struct watcher *w, const struct watcher_policy *p, shim_error_t *err);

#endif
