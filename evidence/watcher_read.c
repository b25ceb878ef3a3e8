/* SPDX-License-Identifier: Apache-2.0 */
/* The watcher's reads through the fds it holds open (watcher_internal.h):
 * no path lookups, so that they work after the cgroup is removed. */
#include "evidence/watcher_internal.h"

#include <unistd.h>

#include "cgroup/cgroup.h"

static bool
pread_events (int fd, const char *name, struct cg_memory_events *out)
{
  char buf[512];
  ssize_t n = fd >= 0 ? pread (fd, buf, sizeof buf - 1, 0) : -1;
  shim_error_t tmp = NULL;

  if (n < 0)
    return false;
  buf[n] = '\0';
  if (cg_parse_memory_events (name, buf, out, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  return true;
}

static bool
pread_u64 (int fd, const char *name, uint64_t *out)
{
  char buf[64];
  ssize_t n = fd >= 0 ? pread (fd, buf, sizeof buf - 1, 0) : -1;
  shim_error_t tmp = NULL;

  if (n < 0)
    return false;
  buf[n] = '\0';
  if (cg_parse_u64_file (name, buf, out, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  return true;
}

/* The ancestor's memory.events through its open fd: only the counters (its
 * memory.stat would cost a stats flush of a large subtree), and the id it
 * had at arming (the open fd pins that cgroup). */
bool
watcher_read_ancestor (const struct watcher *w, struct cg_snapshot *out)
{
  struct cg_snapshot s = { .have = CG_SNAP_EVENTS };

  if (!pread_events (w->ancestor_fd, "memory.events", &s.events))
    return false;
  /* Under memory_localevents the ancestor's memory.events counts only its
   * own kills: the rule must know whether the mount has it. */
  if (cgroup_mount_localevents (&s.localevents) == 0)
    s.have |= CG_SNAP_LOCALEVENTS;
  if (w->ancestor_baseline.have & CG_SNAP_ID)
    {
      s.cgroup_id = w->ancestor_baseline.cgroup_id;
      s.have |= CG_SNAP_ID;
    }
  *out = s;
  return true;
}

/* The counters through the fds already open, into S's events_local,
 * events and memory_peak (with their have bits): memory.events.local,
 * memory.events and memory.peak on v2; on v1 memory.oom_control's
 * oom_kill, memory.failcnt and memory.max_usage_in_bytes.  False when the
 * container's own counters could not be read.  A removal under way can
 * fail the later reads of one pass (measured on 6.18: .local read, then
 * memory.events ENODEV): what was read is kept, its have bits say what. */
bool
watcher_read_counters (const struct watcher *w, struct cg_snapshot *s)
{
  shim_error_t tmp = NULL;

  if (w->m.v1)
    {
      bool ok = cgroup_v1_counters_pread (&w->v1_counters, s, &tmp) == 0
                && (s->have & CG_SNAP_EVENTS_LOCAL);
      shim_error_release (&tmp);
      return ok;
    }
  if (!pread_events (w->m.events_fd, "memory.events.local", &s->events_local))
    return false;
  s->have |= CG_SNAP_EVENTS_LOCAL;
  if (pread_events (w->tree_fd, "memory.events", &s->events))
    s->have |= CG_SNAP_EVENTS;
  if (pread_u64 (w->peak_fd, "memory.peak", &s->memory_peak))
    s->have |= CG_SNAP_PEAK;
  return true;
}

/* What watcher_read_counters read, over the snapshot TO. */
void
watcher_merge_counters (struct cg_snapshot *to, const struct cg_snapshot *s)
{
  if (s->have & CG_SNAP_EVENTS_LOCAL)
    to->events_local = s->events_local;
  if (s->have & CG_SNAP_EVENTS)
    to->events = s->events;
  if (s->have & CG_SNAP_PEAK)
    to->memory_peak = s->memory_peak;
  to->have |= s->have & (CG_SNAP_EVENTS_LOCAL | CG_SNAP_EVENTS | CG_SNAP_PEAK);
}

/* The counters S read now, over M's last snapshot (the baseline's, when
 * there is none yet). */
void
watcher_take_counters (struct monitor *m, const struct cg_snapshot *s)
{
  /* The baseline's cgroup.events is not now's: a cgroup empty at arming
   * would make these counters look final. */
  if (!m->have_last)
    {
      m->last = m->baseline;
      m->last.have &= ~CG_SNAP_CGROUP_EVENTS;
      m->have_last = m->have_baseline;
    }
  /* A peak not read now is an earlier one: none rather than a stale one. */
  m->last.have &= ~CG_SNAP_PEAK;
  watcher_merge_counters (&m->last, s);
}
