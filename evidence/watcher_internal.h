/* SPDX-License-Identifier: Apache-2.0 */
/* Between the watcher's files (watcher.c, watcher_read.c): its reads
 * through the fds it holds open. */
#ifndef SHIM_WATCHER_INTERNAL_H
#define SHIM_WATCHER_INTERNAL_H

#include <stdbool.h>

#include "evidence/watcher.h"

/* The surviving ancestor's memory.events into OUT, with the cgroup id it
 * had at arming: false when it could not be read. */
bool watcher_read_ancestor (const struct watcher *w, struct cg_snapshot *out);
/* The counters into S's events_local, events and memory_peak, each with
 * its have bit: false when the container's own (events_local) could not
 * be read. */
bool watcher_read_counters (const struct watcher *w, struct cg_snapshot *s);
/* What watcher_read_counters read, over the snapshot TO. */
void watcher_merge_counters (struct cg_snapshot *to, const struct cg_snapshot *s);
/* The same over M's last snapshot (the baseline's when there is none
 * yet), without a peak that was not read now. */
void watcher_take_counters (struct monitor *m, const struct cg_snapshot *s);

#endif
