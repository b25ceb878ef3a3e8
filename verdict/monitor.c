/* SPDX-License-Identifier: Apache-2.0 */
#include "verdict/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

static uint64_t
charged (const struct cg_snapshot *s)
{
  const struct cg_memory_stat *st = &s->stat;
  if (!(s->have & CG_SNAP_STAT))
    return 0;
  return st->anon + st->file + st->kernel + st->sock;
}

static void
log_snapshot (const char *when, const struct cg_snapshot *s)
{
  const struct cg_memory_events *l = &s->events_local;
  if (!log_debug_enabled ())
    return;
  if (!(s->have & CG_SNAP_EVENTS_LOCAL))
    {
      log_msg (LOG_DEBUG, "cgroup %s: no memory.events.local (no memory controller)", when);
      return;
    }
  log_msg (LOG_DEBUG,
           "cgroup %s: memory.events.local oom %llu oom_kill %llu oom_group_kill %llu max %llu; "
           "memory.peak %lld; memory.max %lld",
           when, (unsigned long long) l->oom, (unsigned long long) l->oom_kill,
           (unsigned long long) l->oom_group_kill, (unsigned long long) l->max,
           s->have & CG_SNAP_PEAK ? (long long) s->memory_peak : -1LL,
           !(s->have & CG_SNAP_MAX) ? -1LL : s->memory_max == CG_UNLIMITED ? 0LL : (long long) s->memory_max);
}

int
monitor_init (struct monitor *m, int cgroup_fd, shim_error_t *err)
{
  *m = (struct monitor){ .cgroup_fd = cgroup_fd, .events_fd = -1 };
  if (cgroup_fd < 0)
    return 0;
  if (cg_snapshot_read (cgroup_fd, &m->baseline, err) < 0)
    return -1;
  m->have_baseline = true;
  log_snapshot ("baseline", &m->baseline);
  if (m->baseline.have & CG_SNAP_EVENTS_LOCAL)
    {
      m->events_fd = openat (cgroup_fd, "memory.events.local", O_RDONLY | O_CLOEXEC);
      if (m->events_fd < 0)
        return shim_error_errno (err, "open `memory.events.local`");
    }
  return 0;
}

int
monitor_fd (const struct monitor *m)
{
  return m->events_fd;
}

int
monitor_update (struct monitor *m, shim_error_t *err)
{
  struct cg_snapshot s;
  char ack[512];

  if (m->cgroup_fd < 0)
    return 0;
  /* kernfs keeps reporting POLLPRI until the change has been read through
   * the polled fd itself: without this read, poll(2) on events_fd returns at
   * once forever.  Read before the snapshot, so that a change during it wakes
   * the caller again. */
  if (m->events_fd >= 0 && pread (m->events_fd, ack, sizeof ack, 0) < 0 && errno == ENODEV)
    return shim_error_plain (err, ENOENT, "the cgroup was removed");
  if (cg_snapshot_read (m->cgroup_fd, &s, err) < 0)
    return -1;
  /* Files of a removed cgroup read as absent (ENOENT): that is no evidence,
   * and must not replace the last real snapshot. */
  if (m->have_baseline && (s.have & m->baseline.have) != m->baseline.have)
    return shim_error_plain (err, ENOENT, "the cgroup was removed while it was read");
  log_snapshot ("update", &s);
  m->last = s;
  m->have_last = true;
  if (!m->have_fullest || charged (&s) > charged (&m->fullest))
    {
      m->fullest = s;
      m->have_fullest = true;
    }
  return 0;
}

void
monitor_release (struct monitor *m)
{
  if (m->events_fd >= 0)
    close (m->events_fd);
  m->events_fd = -1;
}
