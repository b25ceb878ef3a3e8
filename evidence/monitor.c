/* SPDX-License-Identifier: Apache-2.0 */
#include "evidence/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
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

static int
snapshot (const struct monitor *m, struct cg_snapshot *s, struct cgroup_v1_oom *oom, shim_error_t *err)
{
  if (!m->v1)
    return cg_snapshot_read (m->cgroup_fd, s, err);
  if (cgroup_v1_snapshot_read (m->memory_fd, m->cgroup_fd, s, oom, err) < 0)
    return -1;
  return m->pids_fd >= 0 ? cg_snapshot_read_pids (m->pids_fd, s, err) : 0;
}

static int
init_v1 (struct monitor *m, int memory_fd, int unified_fd, int pids_fd, shim_error_t *err)
{
  *m = (struct monitor){ .cgroup_fd = unified_fd, .memory_fd = memory_fd, .v1 = true, .events_fd = -1, .freezer_fd = -1, .pids_fd = pids_fd };
  if (snapshot (m, &m->baseline, NULL, err) < 0)
    return -1;
  m->have_baseline = true;
  m->kills_seen = m->baseline.events_local.oom_kill;
  log_snapshot ("baseline (v1)", &m->baseline);
  if (m->baseline.have & CG_SNAP_EVENTS_LOCAL)
    {
      m->events_fd = cgroup_v1_oom_eventfd (memory_fd, err);
      if (m->events_fd < 0)
        return -1;
    }
  return 0;
}

int
monitor_init_v1 (struct monitor *m, int memory_fd, int unified_fd, shim_error_t *err)
{
  return init_v1 (m, memory_fd, unified_fd, -1, err);
}

int
monitor_init (struct monitor *m, int cgroup_fd, shim_error_t *err)
{
  *m = (struct monitor){ .cgroup_fd = cgroup_fd, .memory_fd = cgroup_fd, .events_fd = -1, .freezer_fd = -1, .pids_fd = -1 };
  if (cgroup_fd < 0)
    return 0;
  if (snapshot (m, &m->baseline, NULL, err) < 0)
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
monitor_init_cgroup (struct monitor *m, const struct cgroup *cg, shim_error_t *err)
{
  int mem = cgroup_memory_dirfd (cg);

  /* The memory directory differs from the cgroup's exactly when the v1
   * manager keeps the limits in the v1 hierarchies. */
  if (mem >= 0 && mem != cg->dirfd)
    return init_v1 (m, mem, cg->mountfd >= 0 ? cg->dirfd : -1, cgroup_pids_dirfd (cg), err);
  return monitor_init (m, cg->dirfd, err);
}

int
monitor_emulate_oom_group (struct monitor *m, const struct cgroup *cg, const struct cgroup_resources *r,
                           shim_error_t *err)
{
  int fd = cgroup_v1_freezer_dirfd (cg);

  if (!m->v1 || m->emulate_oom_group || cgroup_oom_group_off (r))
    return 0;
  /* Owned: the watcher outlives the runtime's handle of the cgroup. */
  if (fd >= 0 && (m->freezer_fd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0)
    return shim_error_errno (err, "memory.oom.group on cgroup v1: dup the freezer directory");
  m->emulate_oom_group = true;
  return 0;
}

/* The kernel signals the v1 OOM eventfd before it picks and kills a victim
 * (memcg1_oom_prepare, then out_of_memory, in the charging task), so the
 * kill may not be counted yet when the eventfd wakes us.  How long, and how
 * often, to look again for it. */
#define OOM_KILL_WAIT_MS 200
#define OOM_KILL_STEP_MS 5

static bool
kill_counted (const struct monitor *m, const struct cg_snapshot *s)
{
  return (s->have & CG_SNAP_EVENTS_LOCAL) && (m->baseline.have & CG_SNAP_EVENTS_LOCAL)
         && s->events_local.oom_kill > m->kills_seen;
}

/* On a hybrid host the emulation first freezes the container through the
 * unified cgroup (cgroup v2's freezer: a frozen task still dies of
 * SIGKILL), the moment the eventfd fires, before the snapshot: a shell
 * waiting for the child the kernel is about to kill wakes as soon as it
 * dies, and exited 0 before the runtime's kill came (measured on this
 * host: `sh -c 'memhog & wait; exit 0'`, Exited 0 where cgroup v2 gives
 * 137).  Thawed again once the rest is killed, or when nothing was. */
static bool
freeze_first (struct monitor *m)
{
  cleanup_free char *now = NULL;
  shim_error_t tmp = NULL;

  if (!m->emulate_oom_group || m->group_killed || m->cgroup_fd < 0)
    return false;
  /* A container the user paused stays paused: neither frozen nor thawed
   * here (a frozen task still dies of the kill). */
  if (util_read_file_at (m->cgroup_fd, "cgroup.freeze", &now, NULL, &tmp) < 0)
    {
      log_error_release (&tmp);
      return false;
    }
  if (now[0] == '1')
    return false;
  if (util_write_file_at (m->cgroup_fd, "cgroup.freeze", "1", 1, &tmp) == 0)
    return true;
  log_error_release (&tmp);
  return false;
}

static void
thaw (struct monitor *m)
{
  shim_error_t tmp = NULL;

  if (util_write_file_at (m->cgroup_fd, "cgroup.freeze", "0", 1, &tmp) < 0)
    log_error_release (&tmp);
}

/* Whether task PID is still alive and not on its way out: not a zombie,
 * no SIGKILL pending (the OOM killer's victim stays listed in cgroup.procs
 * until it has exited). */
static bool
left_alive (int64_t pid)
{
  cleanup_free char *status = NULL;
  shim_error_t tmp = NULL;
  char path[64];
  const char *keys[] = { "\nState:\t", "\nSigPnd:\t", "\nShdPnd:\t" };

  snprintf (path, sizeof path, "/proc/%lld/status", (long long) pid);
  if (util_read_file_at (AT_FDCWD, path, &status, NULL, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    {
      const char *at = strstr (status, keys[i]);
      if (at == NULL)
        continue;
      at += strlen (keys[i]);
      if (i == 0 && (*at == 'Z' || *at == 'X'))
        return false;
      /* The mask in hex; SIGKILL (9) is bit 8. */
      if (i > 0 && (strtoull (at, NULL, 16) & (1ULL << (SIGKILL - 1))))
        return false;
    }
  return true;
}

/* How many tasks of the container's an OOM kill left alive (cgroup.procs
 * of the v1 memory cgroup): the emulation's sentence says it killed them
 * only when there were some. */
static unsigned
count_left (const struct monitor *m)
{
  cleanup_free char *procs = NULL;
  shim_error_t tmp = NULL;
  char *line, *save = NULL;
  unsigned n = 0;

  if (util_read_file_at (m->memory_fd, "cgroup.procs", &procs, NULL, &tmp) < 0)
    {
      log_error_release (&tmp);
      return 0;
    }
  for (line = strtok_r (procs, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      int64_t pid;
      if (util_parse_i64 (line, &pid) == 0 && pid > 0 && left_alive (pid))
        n++;
    }
  return n;
}

/* memory.oom.group emulated (monitor_emulate_oom_group): S, and OOM
 * (memory.oom_control), were read after the eventfd fired. */
static void
emulate_oom_group (struct monitor *m, struct cg_snapshot *s, const struct cgroup_v1_oom *oom)
{
  shim_error_t tmp = NULL;

  if (!m->emulate_oom_group || m->group_killed)
    return;
  /* With the OOM killer off nobody is killed: nothing to wait for. */
  for (int waited = 0; !kill_counted (m, s) && !oom->oom_kill_disable && waited < OOM_KILL_WAIT_MS;
       waited += OOM_KILL_STEP_MS)
    {
      struct timespec ts = { 0, OOM_KILL_STEP_MS * 1000000L };
      struct cg_snapshot again;
      nanosleep (&ts, NULL);
      if (snapshot (m, &again, NULL, &tmp) < 0)
        {
          shim_error_release (&tmp);
          return;
        }
      *s = again;
    }
  if (!kill_counted (m, s))
    return;
  /* Once: the tasks the kill leaves are gone, and a second OOM kill is
   * part of the same story. */
  m->group_killed = true;
  m->group_left = count_left (m);
  log_msg (LOG_DEBUG, "cgroup v1: an OOM kill in the container; killing the rest (memory.oom.group emulated)");
  if (cgroup_v1_group_kill (m->cgroup_fd, m->freezer_fd, m->memory_fd, "the container's", &tmp) < 0)
    log_error_release (&tmp);
}

short
monitor_poll_events (const struct monitor *m)
{
  return m->v1 ? POLLIN : POLLPRI;
}

int
monitor_update (struct monitor *m, shim_error_t *err)
{
  struct cg_snapshot s;
  struct cgroup_v1_oom oom = { 0 };
  char ack[512];
  uint64_t count;
  bool notified = false, froze;

  if (m->memory_fd < 0)
    return 0;
  /* The eventfd stays readable until its counter is read (non-blocking: a
   * read with nothing pending is EAGAIN). */
  if (m->v1 && m->events_fd >= 0)
    notified = read (m->events_fd, &count, sizeof count) == sizeof count;
  /* kernfs keeps reporting POLLPRI until the change has been read through
   * the polled fd itself: without this read, poll(2) on events_fd returns at
   * once forever.  Read before the snapshot, so that a change during it wakes
   * the caller again. */
  if (!m->v1 && m->events_fd >= 0 && pread (m->events_fd, ack, sizeof ack, 0) < 0 && errno == ENODEV)
    return shim_error_plain (err, ENOENT, "the cgroup was removed");
  froze = notified && freeze_first (m);
  if (snapshot (m, &s, &oom, err) < 0)
    {
      if (froze)
        thaw (m);
      return -1;
    }
  if (notified)
    emulate_oom_group (m, &s, &oom);
  if (froze)
    thaw (m);
  /* Files of a removed cgroup read as absent (ENOENT): that is no evidence,
   * and must not replace the last real snapshot. */
  if (m->have_baseline && (s.have & m->baseline.have) != m->baseline.have)
    return shim_error_plain (err, ENOENT, "the cgroup was removed while it was read");
  log_snapshot ("update", &s);
  m->last = s;
  m->have_last = true;
  if (s.have & CG_SNAP_EVENTS_LOCAL)
    m->kills_seen = s.events_local.oom_kill;
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
  if (m->emulate_oom_group && m->freezer_fd >= 0)
    close (m->freezer_fd);
  m->freezer_fd = -1;
}
