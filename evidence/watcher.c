/* SPDX-License-Identifier: Apache-2.0 */
/* The detached watcher (watcher.h): arming, the detached process, and its
 * loop.  The record's format is in watcher_record.c, its reads through
 * the open fds in watcher_read.c. */
#include "evidence/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/fault.h"
#include "common/util.h"
#include "evidence/init_exit.h"
#include "evidence/input.h"
#include "evidence/mark.h"
#include "evidence/watcher_internal.h"

/* How long watcher_spawn waits for the watcher to say it runs: it only has
 * to close fds and start listening for init's exit. */
#define READY_WAIT_MS 5000

/* The watcher's time slice: its work at a wake is a few reads. */
#define WATCHER_SLICE_NS 100000

/* A test may make the watcher exit before it runs, as one that cannot set
 * itself up does: nothing else reads it. */
#define TEST_FAIL_FORK_ENV "SHIM_TEST_WATCHER_FORK_FAIL"

/* What the running watcher carries between polls. */
struct watch
{
  struct watcher *w;
  const struct watcher_policy *p;
  int stop_fd; /* policy.stop_open's, -1: none */
  struct init_exit ie;
  bool marked; /* <bundle>/oom was created */
  bool going;  /* init_exit_going said so: it stays so */
  uint64_t awaited_kills; /* await_group_kill waited at this oom_kill count */
  /* marker_first: the OOM events counted when the rush began, and when;
   * deferred: a record or a full read was left for after it. */
  uint64_t rush_oom;
  struct timespec rush_since;
  bool deferred;
  bool have_ancestor_final;
  struct cg_snapshot ancestor_final;
  struct cg_memory_events written_local, written_tree; /* as of the last record */
  uint64_t written_kmsg;                               /* kills + unattributed, as written */
  struct timespec written_at;
};

/* ---- the record -------------------------------------------------------- */

static struct watcher_record
as_record (const struct watch *x, bool ended)
{
  const struct monitor *m = &x->w->m;
  return (struct watcher_record){ .have_baseline = m->have_baseline,
                                  .have_last = m->have_last,
                                  .have_fullest = m->have_fullest,
                                  .baseline = m->baseline,
                                  .last = m->last,
                                  .fullest = m->fullest,
                                  .have_ancestor_baseline = x->w->have_ancestor_baseline,
                                  .ancestor_baseline = x->w->ancestor_baseline,
                                  .have_ancestor_final = x->have_ancestor_final,
                                  .ancestor_final = x->ancestor_final,
                                  .ended = ended,
                                  .have_status = x->ie.known,
                                  .status_reaped_first = !x->ie.known && x->ie.reaped_first,
                                  .status = x->ie.status,
                                  .oom_group_emulated = m->group_killed,
                                  .oom_group_left = m->group_left,
                                  .kmsg = x->w->kmsg_ev };
}

/* The marker as soon as the evidence proves the OOM kill, but never while
 * init lives: a counted group kill skips a task with oom_score_adj -1000,
 * and podman reads the marker whenever the container stops.  podman looks
 * for it right after conmon reports the exit.  A later verdict, better
 * informed (the kernel log, init's status), that overturns it removes it. */
static void
mark_if_oom (struct watch *x, bool ended)
{
  bool init_gone = ended || x->ie.exited || x->going;
  struct evidence_sources s;
  struct watcher_record r;
  shim_error_t tmp = NULL;
  bool oom;

  if ((x->p->bundle_fd < 0 || !init_gone) && (x->p->termination_log_fd <= 0 || !ended))
    return;
  r = as_record (x, ended);
  evidence_input_init (&s, x->p->id, x->p->memory_limit_enforced);
  evidence_input_record (&s, &r, NULL);
  evidence_input_init_pid (&s, x->p->init_pid);
  if (x->p->signals)
    {
      uint64_t sent = 0;
      bool unknown = x->p->signals (x->p->dirfd, &sent) < 0;
      evidence_input_signals (&s, sent, unknown);
    }
  else
    evidence_input_signals_unseen (&s);
  /* The rules alone for the marker: the text can wait for the end. */
  oom = evidence_input_oom_killed (&s);
  if (x->p->bundle_fd >= 0 && init_gone && !x->marked && oom && mark_oom_file (x->p->bundle_fd, &tmp) == 0)
    x->marked = true;
  else if (x->marked && !oom && mark_oom_remove (x->p->bundle_fd, &tmp) == 0)
    x->marked = false;
  /* Kubernetes' termination-log (written once, if left empty) only from
   * the end's record: kubelet reads it a relist after the exit, and the
   * message is then whole (an early one, from the counters alone, could
   * not yet say whose limit ran out on cgroup v1). */
  if (x->p->termination_log_fd > 0 && ended && oom)
    {
      struct verdict v;
      evidence_input_compute (&s, &v);
      mark_termination_log (x->p->termination_log_fd, &v, &tmp);
    }
  shim_error_release (&tmp);
}

static uint64_t
kmsg_count (const struct watch *x)
{
  return x->w->kmsg_ev.n + x->w->kmsg_ev.unattributed + x->w->kmsg_ev.lost;
}

static void
write_record (struct watch *x, bool ended)
{
  struct watcher_record r;
  shim_error_t tmp = NULL;

  /* The marker first: the record can wait a few writes, podman cannot. */
  mark_if_oom (x, ended);
  r = as_record (x, ended);
  if (watcher_record_write (x->p->dirfd, x->p->name, &r, &tmp) < 0)
    shim_error_release (&tmp);
  x->written_local = x->w->m.last.events_local;
  x->written_tree = x->w->m.last.events;
  x->written_kmsg = kmsg_count (x);
  clock_gettime (CLOCK_MONOTONIC, &x->written_at);
}

/* Has anything the verdict counts changed since the last record?  `max`
 * and `high` rise many times a second while a workload presses on its
 * limit; they are read but not each worth a write. */
static bool
counters_changed (const struct watch *x)
{
  const struct cg_snapshot *s = &x->w->m.last;
  const struct cg_memory_events *a[2] = { &s->events_local, &s->events };
  const struct cg_memory_events *b[2] = { &x->written_local, &x->written_tree };

  if (kmsg_count (x) != x->written_kmsg)
    return true;
  for (int i = 0; i < 2; i++)
    if (a[i]->have != b[i]->have || a[i]->oom != b[i]->oom || a[i]->oom_kill != b[i]->oom_kill
        || a[i]->oom_group_kill != b[i]->oom_group_kill)
      return true;
  return false;
}

static double
seconds_since (const struct timespec *t)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return (double) (now.tv_sec - t->tv_sec) + (double) (now.tv_nsec - t->tv_nsec) / 1e9;
}

static void
persist (struct watch *x)
{
  shim_error_t tmp = NULL;

  x->deferred = false;
  /* A failed read (the cgroup is gone) keeps the last good snapshot. */
  if (monitor_update (&x->w->m, &tmp) < 0)
    shim_error_release (&tmp);
  if (counters_changed (x) || seconds_since (&x->written_at) >= 1.0)
    write_record (x, false);
}

/* ---- the marker at init's exit ----------------------------------------- */

/* The counters through the fds already open, into the last
 * snapshot (the full snapshot's memory.stat costs a stats flush, and the
 * loop takes it later).  At init's exit the counters of the kill that took
 * it are final, and runc removes the cgroup right after it reaps init:
 * measured on 6.1 under TCG, a watcher that waited for the next full
 * snapshot found the cgroup gone and kept none of the kill. */
static bool
read_events_now (struct watch *x)
{
  struct monitor *m = &x->w->m;
  struct cg_snapshot s = { 0 };

  if (!watcher_read_counters (x->w, &s))
    return false;
  watcher_take_counters (m, &s);
  return true;
}

/* The kernel counts a group kill after its first victim's kill, and prints
 * that victim's line to the console in between: a read there shows a kill
 * and no group kill yet.  Where one is due (memory.oom.group 1), wait,
 * bounded and once per kill, for memory.events.local's next notification
 * and read again: the cgroup may be removed before the loop reads it
 * next (runc removes it right after it reaps init). */
#define GROUP_KILL_WAIT_MS 100
static bool
await_group_kill (struct watch *x)
{
  struct monitor *m = &x->w->m;
  const struct cg_memory_events *local = &m->last.events_local;
  const struct cg_snapshot *g = (m->last.have & CG_SNAP_OOM_GROUP) ? &m->last : &m->baseline;
  struct pollfd p = { .fd = m->events_fd, .events = POLLPRI };

  if (!m->have_last || m->v1 || !(local->have & CG_EV_OOM_GROUP_KILL)
      || !(g->have & CG_SNAP_OOM_GROUP) || !g->oom_group
      || local->oom_kill <= m->baseline.events_local.oom_kill || local->oom_kill <= x->awaited_kills
      || local->oom_group_kill > m->baseline.events_local.oom_group_kill)
    return false;
  x->awaited_kills = local->oom_kill;
  return poll (&p, 1, GROUP_KILL_WAIT_MS) > 0 && read_events_now (x);
}

/* The counters read now through the polled fds, then the bounded wait for
 * a group kill still being counted (await_group_kill). */
static bool
read_events_awaited (struct watch *x)
{
  if (!read_events_now (x))
    return false;
  (void) await_group_kill (x);
  return true;
}

/* The marker from the counters alone, read through the polled fds (FRESH:
 * the loop read them at this wake), before the full snapshot (memory.stat
 * costs a stats flush) or the kernel log's records: conmon writes its exit
 * file a few milliseconds after init is gone, and podman looks at once.
 * Only once init is going. */
static void
mark_early (struct watch *x, bool fresh)
{
  const struct monitor *m = &x->w->m;

  if (x->p->bundle_fd < 0 || x->marked || !(fresh || read_events_awaited (x)))
    return;
  /* No kill counted yet: nothing to mark, and /proc is not read.  The
   * kernel signals a victim before it counts the kill, so init's state,
   * read after a count, is as new as the count. */
  if (m->last.events_local.oom_kill <= m->baseline.events_local.oom_kill
      && m->last.events.oom_kill <= m->baseline.events.oom_kill && x->w->kmsg_ev.n == 0)
    return;
  /* The counters again once init is seen going: the kernel counts the
   * group kill after it has signalled the group, and a verdict from the
   * first read, without it, would not be sure. */
  if ((x->going = x->going || init_exit_going (&x->ie)) && read_events_now (x))
    mark_if_oom (x, false);
}

/* An OOM event is counted, the marker is not made, and init has not
 * exited: the kill may be under way.  Measured on 6.18 under TCG: init
 * exits about 10 ms after the kernel's SIGKILL, and podman looks for the
 * marker 2 ms after conmon's exit file; a wake that also wrote the record
 * or read memory.stat lost that race 1 run in 4.  Until then each wake
 * does only the marker's reads (mark_early), and what it skips (the
 * record, the full snapshot) is done when the rush ends.  Bounded, because
 * an OOM event that kills nothing (reclaim freed enough, or the group kill
 * skipped init) would hold the record back; and not on cgroup v1, whose
 * eventfd only the full read empties. */
#define OOM_RUSH_MS 250
#define RUSH_RECORDS 8
static bool
marker_first (struct watch *x)
{
  const struct monitor *m = &x->w->m;
  uint64_t oom = m->last.events_local.oom + m->last.events.oom;

  if (x->p->bundle_fd < 0 || x->marked || x->ie.exited || m->v1 || !m->have_last
      || oom <= m->baseline.events_local.oom + m->baseline.events.oom)
    return false;
  /* Each new OOM event starts a rush of its own, once the last one's
   * deferred work is done: a storm of OOM events still gets a record at
   * least every OOM_RUSH_MS. */
  if (oom > x->rush_oom && !x->deferred)
    {
      x->rush_oom = oom;
      clock_gettime (CLOCK_MONOTONIC, &x->rush_since);
    }
  return seconds_since (&x->rush_since) * 1000 < OOM_RUSH_MS;
}

/* The poll timeout with a rush's deferred work: it is done when the rush
 * ends, whether or not anything else wakes the loop. */
static int
rush_timeout (const struct watch *x, int timeout)
{
  double left;

  if (!x->deferred)
    return timeout;
  left = OOM_RUSH_MS - seconds_since (&x->rush_since) * 1000;
  left = left < 0 ? 0 : left + 1;
  return timeout < 0 || left < timeout ? (int) left : timeout;
}

/* ---- the end ----------------------------------------------------------- */

/* A pure cgroup v1 host has no cgroup.events: the container's end is
 * init's exit (the container is stopped then), and the counters read after
 * it are recorded as the cgroup's end (populated 0), so that the record is
 * ended and complete.  "Ended" means less there than on cgroup2: without a
 * pid namespace of its own, tasks of the container can outlive init (until
 * `delete` kills them through the freezer), and an OOM kill among them
 * after init's exit is not in the record. */
static void
mark_pure_v1_end (struct cg_snapshot *s)
{
  s->have |= CG_SNAP_CGROUP_EVENTS;
  s->cgroup_events = (struct cg_cgroup_events){ .have = CG_CEV_POPULATED, .populated = false };
}

/* Whether the container has ended: cgroup.events says populated 0 (or the
 * cgroup is gone); on a pure v1 host, init has exited. */
static bool
container_ended (const struct watch *x)
{
  if (x->w->cg_events_fd < 0)
    return x->ie.exited;
  return cg_events_fd_ended (x->w->cg_events_fd);
}

/* The cgroup was seen empty: nothing can raise its counters any more, and
 * the runtime may remove it any moment (runc does right after reaping
 * init).  The counters first, through the fds already open (no path
 * lookups), then the whole snapshot if the cgroup is still there; if it is
 * not, the last full snapshot carries the final counters, which were read
 * after the cgroup was seen empty, so the record is still complete.  Then
 * the surviving ancestor and the kernel log, which outlive the cgroup. */
static void
persist_final (struct watch *x)
{
  struct monitor *m = &x->w->m;
  struct cg_snapshot fast = { 0 };
  bool read = watcher_read_counters (x->w, &fast);
  /* Final only if the whole pass was read: the tree's counters of an
   * earlier read may miss a nested cgroup's kill. */
  bool counted = read && (m->v1 || (fast.have & CG_SNAP_EVENTS));
  shim_error_t tmp = NULL;
  bool updated;

  /* The marker from these counters before the slower reads below: an
   * empty cgroup means init has passed cgroup_exit, and conmon reports
   * the exit as soon as it reaps it (measured under TCG: podman looked
   * before a marker written after memory.stat and the kernel log). */
  if (read && x->p->bundle_fd >= 0 && !x->marked)
    {
      watcher_take_counters (m, &fast);
      x->going = true;
      mark_if_oom (x, false);
    }
  fault_point ("watcher:before-final-reads");
  updated = monitor_update (m, &tmp) == 0;
  shim_error_release (&tmp);
  if (!updated && read && !counted)
    watcher_take_counters (m, &fast); /* kept, not final */
  else if (!updated && counted)
    {
      struct cg_snapshot s = m->have_last ? m->last : m->baseline;
      s.have &= ~CG_SNAP_PEAK;
      watcher_merge_counters (&s, &fast);
      s.have |= CG_SNAP_CGROUP_EVENTS;
      s.cgroup_events = (struct cg_cgroup_events){ .have = CG_CEV_POPULATED, .populated = false };
      m->last = s;
      m->have_last = true;
    }
  if (x->w->cg_events_fd < 0 && m->have_last)
    mark_pure_v1_end (&m->last);
  x->have_ancestor_final = watcher_read_ancestor (x->w, &x->ancestor_final);
  kmsg_reader_collect_end (&x->w->kmsg, &x->w->kmsg_ev);
  write_record (x, true);
}

static bool
stop_requested (const struct watch *x)
{
  return x->p->stop && x->p->stop (x->stop_fd, x->p->arg);
}

/* The end, after the last record: the lock let go of first, so that a
 * reader waiting on it (watcher_wait_done) is not held up by the rest of
 * the exit (closing the stop fd's inotify instance waits for an SRCU grace
 * period). */
static _Noreturn void
done (const struct watch *x)
{
  if (x->p->lock_fd >= 0)
    close (x->p->lock_fd);
  _exit (0);
}

static _Noreturn void
watch_loop (struct watch *x)
{
  struct watcher *w = x->w;
  char ack[512];
  bool fresh;

  for (;;)
    {
      /* memory.events too: kills in nested cgroups and an ancestor's kills
       * of processes in nested cgroups change only the tree counters. */
      struct pollfd pfd[6] = {
        { .fd = monitor_fd (&w->m), .events = monitor_poll_events (&w->m) },
        { .fd = w->tree_fd, .events = POLLPRI },
        { .fd = w->cg_events_fd, .events = POLLPRI },
        init_exit_pollfd (&x->ie),
        { .fd = x->stop_fd, .events = POLLIN },
        { .fd = kmsg_reader_fd (&w->kmsg), .events = POLLIN },
      };
      if (container_ended (x))
        {
          /* The counters first: the runtime removes the cgroup right
           * after it reaps init. */
          persist_final (x);
          if (!init_exit_wait_reap (&x->ie, x->stop_fd, x->p->stop, x->p->arg))
            _exit (0);
          if (x->ie.known)
            write_record (x, true);
          done (x);
        }
      if (poll (pfd, 6, rush_timeout (x, init_exit_timeout (&x->ie))) < 0 && errno != EINTR)
        _exit (1);
      /* The counters first, whatever of the cgroup or init woke the loop:
       * those of a kill must be read before the cgroup is removed, and
       * under load a wake may get only one short turn on a CPU before
       * systemd removes an emptied scope.  The rest of this wake uses
       * them. */
      fresh = ((pfd[0].revents | pfd[1].revents | pfd[2].revents | pfd[3].revents)
               & (POLLIN | POLLPRI | POLLERR))
              && read_events_awaited (x);
      /* The caller's end (`delete` removed the state): no one is left to tell. */
      if ((pfd[4].revents & POLLIN) && stop_requested (x))
        _exit (0);
      /* init's exit: the earliest moment the counters of an OOM kill that
       * took it can be read (memory.events.local's own notification goes
       * through a workqueue and a 10 ms rate limit), and podman looks for
       * <bundle>/oom as soon as conmon reports the exit.  Only the marker
       * here: the loop's top reads the end through the open fds first,
       * because runc removes the cgroup right after it reaps init. */
      {
        int ev = init_exit_event (&x->ie, pfd[3].revents);
        /* Already empty: the end's read first (the loop's top), which
         * writes the record and the marker too, before the runtime
         * removes the cgroup; records written first lost that race under
         * runc. */
        if (ev && container_ended (x))
          continue;
        /* The counters read at this wake (after the exit, and after the
         * wait for a group kill still being counted: runc removes the
         * cgroup right after it reaps init) kept and the marker made
         * (write_record) at once. */
        if ((ev & INIT_EXIT_EXITED) && fresh)
          write_record (x, false);
        if (ev & INIT_EXIT_STATUS_KNOWN)
          write_record (x, false);
        if (ev)
          continue;
      }
      /* The kernel log after init's exit: podman cannot wait for the
       * marker while the OOM report's records are read and written. */
      if (pfd[5].revents & (POLLIN | POLLERR))
        {
          bool rush;
          mark_early (x, fresh);
          /* An OOM report is a few dozen records, and the kill comes at
           * its end: in a rush, the marker is looked at between batches. */
          if ((rush = marker_first (x)))
            kmsg_reader_collect_some (&w->kmsg, &w->kmsg_ev, RUSH_RECORDS);
          else
            kmsg_reader_collect (&w->kmsg, &w->kmsg_ev);
          if (!rush && kmsg_count (x) != x->written_kmsg)
            write_record (x, false);
          x->deferred = x->deferred || rush;
        }
      /* kernfs reports a change until it is read through the polled fd
       * (monitor_update reads memory.events.local's; a fresh read read
       * both). */
      if ((pfd[1].revents & (POLLPRI | POLLERR)) && !fresh)
        (void) !pread (w->tree_fd, ack, sizeof ack, 0);
      if ((pfd[0].revents | pfd[1].revents) & (POLLPRI | POLLIN | POLLERR))
        {
          mark_early (x, fresh);
          if (marker_first (x))
            x->deferred = true;
          else
            persist (x);
        }
      /* The rush is over (marked, init gone, or its time up): what it
       * left undone. */
      if (x->deferred && !marker_first (x))
        persist (x);
    }
}

/* ---- arming and spawning ----------------------------------------------- */

static int
open_ancestor (struct watcher *w, int cgroup_fd, unsigned levels)
{
  char up[3 * 16 + 1] = "";
  cleanup_close int dir = -1;
  struct stat sb;

  if (levels == 0 || levels > 16)
    return 0;
  for (unsigned i = 0; i < levels; i++)
    strcat (up, i ? "/.." : "..");
  dir = openat (cgroup_fd, up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  /* The root cgroup has no memory.events, nor has an ancestor without the
   * memory controller: then there is no such witness. */
  if (dir < 0 || (w->ancestor_fd = openat (dir, "memory.events", O_RDONLY | O_CLOEXEC)) < 0)
    return 0;
  if (fstat (dir, &sb) == 0)
    {
      w->ancestor_baseline.cgroup_id = (uint64_t) sb.st_ino;
      w->ancestor_baseline.have |= CG_SNAP_ID;
    }
  w->have_ancestor_baseline = watcher_read_ancestor (w, &w->ancestor_baseline);
  return 0;
}

/* The end of arming: cgroup.events (the cgroup's end; CGROUP_FD -1 on a
 * pure cgroup v1 host, where init's exit is the end) and the kernel
 * log. */
static int
arm_end (struct watcher *w, int cgroup_fd, const char *kernel_path, shim_error_t *err)
{
  if (cgroup_fd >= 0)
    {
      w->cg_events_fd = openat (cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
      if (w->cg_events_fd < 0)
        return shim_error_errno (err, "open `cgroup.events`");
    }
  /* The kernel log from now on: records of an earlier container of the
   * same path are not this one's. */
  if (kernel_path)
    kmsg_reader_open (&w->kmsg, kernel_path, &w->kmsg_ev);
  return 0;
}

int
watcher_arm (struct watcher *w, int cgroup_fd, unsigned ancestor_levels, const char *kernel_path,
             shim_error_t *err)
{
  *w = (struct watcher) WATCHER_INIT;
  if (monitor_init (&w->m, cgroup_fd, err) < 0)
    return -1;
  w->tree_fd = openat (cgroup_fd, "memory.events", O_RDONLY | O_CLOEXEC);
  if (w->tree_fd < 0 && errno != ENOENT)
    return shim_error_errno (err, "open `memory.events`");
  w->peak_fd = openat (cgroup_fd, "memory.peak", O_RDONLY | O_CLOEXEC);
  open_ancestor (w, cgroup_fd, ancestor_levels);
  return arm_end (w, cgroup_fd, kernel_path, err);
}

int
watcher_arm_cgroup (struct watcher *w, const struct cgroup *cg, unsigned ancestor_levels,
                    const char *kernel_path, shim_error_t *err)
{
  int mem = cgroup_memory_dirfd (cg);

  if (mem < 0 || mem == cg->dirfd)
    return watcher_arm (w, cg->dirfd, ancestor_levels, kernel_path, err);
  return watcher_arm_v1 (w, mem, cg->mountfd >= 0 ? cg->dirfd : -1, kernel_path, err);
}

int
watcher_arm_v1 (struct watcher *w, int memory_fd, int unified_fd, const char *kernel_path,
                shim_error_t *err)
{
  /* cgroup v1: the snapshots come from the v1 memory cgroup, its OOMs
   * through an eventfd; there are no memory.events or memory.peak to poll
   * nor a hierarchical ancestor count (the v1 counters are local).  The
   * counters stay open for the end. */
  *w = (struct watcher) WATCHER_INIT;
  if (monitor_init_v1 (&w->m, memory_fd, unified_fd, err) < 0
      || cgroup_v1_counters_open (memory_fd, &w->v1_counters, err) < 0)
    return -1;
  return arm_end (w, unified_fd, kernel_path, err);
}

void
watcher_release (struct watcher *w)
{
  int *fds[] = { &w->tree_fd, &w->peak_fd, &w->cg_events_fd, &w->ancestor_fd };

  monitor_release (&w->m);
  cgroup_v1_counters_close (&w->v1_counters);
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0)
      {
        close (*fds[i]);
        *fds[i] = -1;
      }
  if (kmsg_reader_fd (&w->kmsg) >= 0)
    kmsg_reader_close (&w->kmsg);
}

/* In the child of a fork: become the detached watcher (a session of its
 * own, stdio on /dev/null, every fd closed but the N in KEEP, cwd /).  No
 * second fork: the spawner (a hook, `shim create`) exits at once and the
 * subreaper inherits the watcher; a `shim run` that outlives it only
 * holds its zombie until it exits.  The watcher opens no terminal, so
 * leading a session gives it none. */
static void
become_detached (const int *keep, size_t n)
{
  const char *fail = getenv (TEST_FAIL_FORK_ENV);
  int devnull, top = 2, fd;
  size_t i;

  if (setsid () < 0)
    _exit (1);
  if (fail && *fail)
    _exit (1);
  /* Hooks' stdout and stderr are pipes the runtime reads to EOF: a watcher
   * holding them would make the hook look like it never ends. */
  devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0)
    _exit (1);
  for (fd = 0; fd < 3; fd++)
    if (dup2 (devnull, fd) < 0)
      _exit (1);
  for (i = 0; i < n; i++)
    if (keep[i] > top)
      top = keep[i];
  for (fd = 3; fd <= top; fd++)
    {
      bool wanted = false;
      for (i = 0; i < n; i++)
        wanted |= keep[i] == fd;
      if (!wanted)
        close (fd);
    }
  close_range ((unsigned) top + 1, ~0U, 0);
  if (chdir ("/") < 0)
    _exit (1);
  signal (SIGPIPE, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
}

/* What the watcher said on READY within READY_WAIT_MS: it runs (one
 * byte), it is ending (its end closed without a word: the watcher's exit
 * closes it), or nothing. */
enum ready_word
{
  READY_RUNS,
  READY_ENDED,
  READY_SILENT,
};
static enum ready_word
heard_ready (int ready)
{
  struct pollfd p = { .fd = ready, .events = POLLIN };
  char c;
  ssize_t n;
  int r;

  do
    r = poll (&p, 1, READY_WAIT_MS);
  while (r < 0 && errno == EINTR);
  if (r <= 0)
    return READY_SILENT;
  n = read (ready, &c, 1);
  return n == 1 ? READY_RUNS : n == 0 ? READY_ENDED : READY_SILENT;
}

static int
spawn (struct watcher *w, const struct watcher_policy *p, shim_error_t *err)
{
  struct watch x = { .w = w, .p = p, .stop_fd = -1 };
  cleanup_close int ready_r = -1, ready_w = -1;
  int pipefd[2], status = 0;
  pid_t pid;

  /* Without cgroup.events (pure cgroup v1) init's exit is the only end. */
  if (w->cg_events_fd < 0 && p->init_pidfd < 0)
    return shim_error_plain (err, EINVAL, "start the watcher: no cgroup.events and no pidfd of "
                                          "init, nothing would tell the container's end");
  x.written_local = w->m.baseline.events_local;
  x.written_tree = w->m.baseline.events;
  clock_gettime (CLOCK_MONOTONIC, &x.written_at);
  /* init's exit through its pidfd; its status where a witness has it
   * (init_exit.h), else the verdict says it was not known. */
  init_exit_init (&x.ie, p->init_pidfd, p->init_pid);
  {
    struct watcher_record r = as_record (&x, false);
    /* The record exists before the container runs: one that dies at once
     * still has its baseline. */
    if (watcher_record_write (p->dirfd, p->name, &r, err) < 0)
      return -1;
  }
  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return shim_error_errno (err, "start the watcher: pipe");
  ready_r = pipefd[0];
  ready_w = pipefd[1];
  pid = fork ();
  if (pid < 0)
    return shim_error_errno (err, "start the watcher: fork");
  if (pid == 0)
    {
      int keep[] = { w->m.events_fd, w->tree_fd,  w->peak_fd,   w->cg_events_fd, w->ancestor_fd,
                     w->m.cgroup_fd, w->m.memory_fd, kmsg_reader_fd (&w->kmsg),  p->dirfd,     p->bundle_fd,    p->lock_fd,
                     p->termination_log_fd,     x.ie.pidfd,  ready_w, w->v1_counters.oom_control,
                     w->v1_counters.failcnt, w->v1_counters.max_usage, w->m.freezer_fd };
      bool gone = false;

      become_detached (keep, sizeof keep / sizeof keep[0]);
      if (p->stop_open && (x.stop_fd = p->stop_open (p->dirfd, &gone), gone))
        _exit (0);
      /* Before the caller goes on (it waits for "ready"), so that init
       * can hardly exit before the listener exists. */
      init_exit_listen (&x.ie, p->bundle_fd >= 0);
      (void) !write (ready_w, "1", 1);
      close (ready_w);
      /* The counters of an OOM kill must be read between the kill and the
       * cgroup's removal, which systemd makes as soon as the cgroup
       * empties, and a woken watcher can wait for a CPU longer than that
       * behind the engine's own work.  Its bursts are short: a short
       * slice lets its wakes preempt.  Refused or ignored, only latency
       * is lost. */
      (void) util_sched_slice (WATCHER_SLICE_NS);
      /* The code of the verdict runs first at an OOM kill, with about
       * 15 ms left before conmon reports init's exit (6.18 under TCG),
       * and its page faults took 7 of them where the binary is on 9p. */
      (void) util_populate_mappings ();
      watch_loop (&x);
    }
  close (steal_fd (&ready_w));
  switch (heard_ready (ready_r))
    {
    case READY_RUNS:
      return 0;
    case READY_ENDED:
      /* On its way out (its files closed): reaped, the wait bounded. */
      {
        cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
        struct pollfd pp = { .fd = pidfd, .events = POLLIN };
        if (pidfd >= 0 && poll (&pp, 1, READY_WAIT_MS) > 0 && waitpid (pid, &status, WNOHANG) == pid
            && WIFEXITED (status))
          return shim_error_plain (err, ECHILD, "start the watcher: it exited with status %d before it ran",
                                   WEXITSTATUS (status));
      }
      break;
    case READY_SILENT:
      /* A stuck one is left to the subreaper. */
      break;
    }
  return shim_error_plain (err, ECHILD, "start the watcher: it did not say it runs");
}

int
watcher_spawn (struct watcher *w, const struct watcher_policy *p, shim_error_t *err)
{
  int r = spawn (w, p, err);

  /* A watcher that never ran must not look like one that saw nothing. */
  if (r < 0)
    unlinkat (p->dirfd, p->name, 0);
  watcher_release (w);
  return r;
}
