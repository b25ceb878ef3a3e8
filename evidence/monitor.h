/* SPDX-License-Identifier: Apache-2.0 */
/* Watching a container's cgroup while it runs: the baseline at create, and a
 * fresh snapshot each time the kernel signals a change of memory.events.local
 * (POLLPRI on the open file), so the evidence is in hand the moment an OOM
 * happens, even if the cgroup is removed before anyone asks.  Used by
 * `shim run` in its wait loop and by the detached watchers. */
#ifndef SHIM_MONITOR_H
#define SHIM_MONITOR_H

#include <stdbool.h>

#include "cgroup/cgroup_files.h"
#include "common/error.h"
#include "verdict/verdict.h"

struct monitor
{
  int cgroup_fd; /* borrowed */
  /* cgroup v1 (monitor_init_v1): memory_fd is the v1 memory directory
   * (borrowed) the snapshots are read from, with cgroup_fd the unified
   * tracking cgroup or -1; events_fd is then an OOM eventfd (POLLIN). */
  bool v1;
  int memory_fd;
  int events_fd; /* memory.events.local, polled for POLLPRI; -1 without */
  /* cgroup v1: the v1 pids directory (borrowed, -1: none), whose
   * pids.events and pids.max each snapshot adds (v2 reads them from
   * cgroup_fd). */
  int pids_fd;
  bool have_baseline, have_last, have_fullest;
  struct cg_snapshot baseline;
  struct cg_snapshot last;    /* the latest read */
  /* The snapshot with the most memory charged: memory.stat taken when the
   * OOM event is seen may already show the victims' memory freed. */
  struct cg_snapshot fullest;
  /* memory.oom.group emulated on cgroup v1 (monitor_emulate_oom_group):
   * freezer_fd is then the v1 freezer directory (owned, -1: none), and
   * group_killed says the monitor killed the container's tasks after the
   * first OOM kill counted in it; group_left counts the tasks still alive
   * in it just before that kill (0: the OOM kill had left nothing). */
  bool emulate_oom_group, group_killed;
  unsigned group_left;
  int freezer_fd;
  /* C's own oom_kill as the previous read had it: a notification's kill
   * must be newer than that (v1 notifies every cgroup below the one whose
   * limit ran out, so a parent's OOM wakes C too). */
  uint64_t kills_seen;
};

/* Take the baseline.  cgroup_fd may be -1 (no cgroup2): the monitor is then
 * inert and the verdict says the counters are unknown. */
int monitor_init (struct monitor *m, int cgroup_fd, shim_error_t *err);

/* The same on cgroup v1: snapshots from MEMORY_FD, the v1 memory
 * directory (cgroup_v1_snapshot_read, counters marked CG_SNAP_V1), with
 * cgroup.events from UNIFIED_FD (-1: none); OOMs are notified through an
 * eventfd registered in cgroup.event_control. */
int monitor_init_v1 (struct monitor *m, int memory_fd, int unified_fd, shim_error_t *err);

/* monitor_init or monitor_init_v1, as the container's cgroup CG is
 * managed (borrowed: CG outlives the monitor). */
struct cgroup;
struct cgroup_resources;
int monitor_init_cgroup (struct monitor *m, const struct cgroup *cg, shim_error_t *err);

/* cgroup v1 has no memory.oom.group: emulate it for the v1 monitor M of
 * the container's cgroup CG (borrowed).  On the first OOM kill counted in
 * the container's own v1 memory cgroup (the eventfd fired and
 * memory.oom_control's oom_kill rose above the baseline), monitor_update
 * kills every task of the container (cgroup_v1_group_kill: cgroup.kill on
 * a hybrid host, the freezer on a pure v1 one) and sets group_killed.
 * Nothing for a v2 monitor, nor when the resources R (the container's
 * linux.resources) set unified memory.oom.group to "0": the survivors are
 * left alone then, as on v2.  Used by the detached watcher and the
 * foreground `run`, the only ones that keep watching. */
int monitor_emulate_oom_group (struct monitor *m, const struct cgroup *cg, const struct cgroup_resources *r,
                               shim_error_t *err);

/* The fd to poll, or -1, and the poll events to ask for: POLLPRI on
 * memory.events.local (v2), POLLIN on the eventfd (v1). */
int monitor_fd (const struct monitor *m);
short monitor_poll_events (const struct monitor *m);

/* Read a snapshot now (on an event, and once more when init has exited). */
int monitor_update (struct monitor *m, shim_error_t *err);

void monitor_release (struct monitor *m);

#endif
