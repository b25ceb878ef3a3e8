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
  int events_fd; /* memory.events.local, polled for POLLPRI; -1 without */
  bool have_baseline, have_last, have_fullest;
  struct cg_snapshot baseline;
  struct cg_snapshot last;    /* the latest read */
  /* The snapshot with the most memory charged: memory.stat taken when the
   * OOM event is seen may already show the victims' memory freed. */
  struct cg_snapshot fullest;
};

/* Take the baseline.  cgroup_fd may be -1 (no cgroup2): the monitor is then
 * inert and the verdict says the counters are unknown. */
int monitor_init (struct monitor *m, int cgroup_fd, shim_error_t *err);

/* The fd to poll for POLLPRI, or -1. */
int monitor_fd (const struct monitor *m);

/* Read a snapshot now (on an event, and once more when init has exited). */
int monitor_update (struct monitor *m, shim_error_t *err);

void monitor_release (struct monitor *m);

#endif
