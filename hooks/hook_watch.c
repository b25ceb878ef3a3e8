/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "cgroup/cgroup.h"
#include "hooks/hook_verdict.h"
#include "verdict/monitor.h"
#include "common/json.h"
#include "common/util.h"
#include "verdict/init_exit.h"
#include "verdict/watcher.h"

/* ---- finding the cgroup ------------------------------------------------ */

/* The cgroup2 mount: /sys/fs/cgroup on a pure v2 host, its `unified`
 * directory on a hybrid one (where the paths of /proc/PID/cgroup's `0::`
 * line are relative to that mount). */
static int
open_cgroup2_root (shim_error_t *err)
{
  const char *mp = cgroup_mount_point ();
  int fd;

  if (mp == NULL)
    return shim_error_plain (err, ENOENT,
                             "no cgroup v2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified");
  fd = open (mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return shim_error_errno (err, "open `%s`", mp);
  return fd;
}

static int
cgroup_of (const char *proc_file, char **path, shim_error_t *err)
{
  cleanup_free char *buf = NULL;

  if (util_read_file_at (AT_FDCWD, proc_file, &buf, NULL, err) < 0)
    return -1;
  if (hook_state_parse_proc_cgroup (buf, path, err) < 0)
    return shim_error_prefix (err, "%s", proc_file);
  return 0;
}

/* ---- memory.oom.group -------------------------------------------------- */

/* Whether config.json sets linux.resources.unified["memory.oom.group"]:
 * then it is the user's choice and stays. */
static bool
config_sets_oom_group (const char *bundle)
{
  const char *path[] = { "linux", "resources", "unified", "memory.oom.group", NULL };
  cleanup_yajl_val yajl_val root = NULL;
  cleanup_free char *json = NULL;
  cleanup_close int bfd = -1;
  shim_error_t tmp = NULL;

  if (bundle == NULL || (bfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return false;
  if (util_read_file_at (bfd, "config.json", &json, NULL, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  root = yajl_tree_parse (json, NULL, 0);
  return root && yajl_tree_get (root, path, yajl_t_any) != NULL;
}

static const char *
ensure_oom_group (int cgfd, const struct hook_state *st, const struct hook_arm_opts *o,
                  shim_error_t *err)
{
  cleanup_free char *cur = NULL;
  shim_error_t tmp = NULL;

  if (util_read_file_at (cgfd, "memory.oom.group", &cur, NULL, &tmp) < 0)
    {
      bool absent = tmp->status == ENOENT;
      if (!absent)
        shim_error_take (err, &tmp);
      shim_error_release (&tmp);
      return absent ? "absent" : NULL;
    }
  if (cur[0] == '1')
    return "already set";
  if (!o->oom_group)
    return "left (--no-oom-group)";
  if (config_sets_oom_group (st->bundle))
    return "left as configured";
  if (util_write_file_at (cgfd, "memory.oom.group", "1", 1, err) < 0)
    return NULL;
  return "set";
}

/* ---- the watcher ------------------------------------------------------- */

struct watch
{
  const char *id;
  struct monitor m;
  int tree_fd;      /* memory.events: kills in nested cgroups and from above */
  int peak_fd;      /* memory.peak, read at the end */
  int cg_events_fd; /* cgroup.events: populated 0, or the cgroup removed */
  int cfd;          /* DIR/ID */
  struct init_exit ie; /* init's pidfd: its exit status, where the kernel keeps it */
  int bundle_fd;    /* for <bundle>/oom, or -1 */
  bool marked;
  struct cg_memory_events written_local, written_tree; /* as of the last record */
  struct timespec written_at;
};

static struct watcher_record
as_record (const struct monitor *m, bool ended)
{
  return (struct watcher_record){ .have_baseline = m->have_baseline,
                                  .have_last = m->have_last,
                                  .have_fullest = m->have_fullest,
                                  .baseline = m->baseline,
                                  .last = m->last,
                                  .fullest = m->fullest,
                                  .ended = ended };
}

static const int *
known_status (const struct watch *w)
{
  return w->ie.known ? &w->ie.status : NULL;
}

/* Has anything the verdict counts changed since the last record?  `max`
 * and `high` rise many times a second while a workload presses on its
 * limit; they are read but not each worth a write. */
static bool
counters_changed (const struct watch *w)
{
  const struct cg_snapshot *s = &w->m.last;
  const struct cg_memory_events *a[2] = { &s->events_local, &s->events };
  const struct cg_memory_events *b[2] = { &w->written_local, &w->written_tree };

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

/* The marker as soon as the counters in W->m prove the OOM kill: podman
 * looks for it right after conmon reports the exit. */
static void
mark_if_oom (struct watch *w, bool ended)
{
  shim_error_t tmp = NULL;
  struct watcher_record r;
  struct verdict v;

  if (w->bundle_fd < 0 || w->marked)
    return;
  r = as_record (&w->m, ended);
  r.have_status = w->ie.known;
  r.status = w->ie.status;
  hook_verdict_compute (w->id, &r, NULL, &v);
  if (verdict_mark_oom (w->bundle_fd, &v, &tmp) > 0)
    w->marked = true;
  shim_error_release (&tmp);
}

static void
write_record (struct watch *w, bool ended)
{
  shim_error_t tmp = NULL;

  /* The marker first: the record can wait a few writes, podman cannot. */
  mark_if_oom (w, ended);
  if (watcher_record_write (w->cfd, HOOK_RECORD, &w->m, ended, known_status (w), &tmp) < 0)
    shim_error_release (&tmp);
  w->written_local = w->m.last.events_local;
  w->written_tree = w->m.last.events;
  clock_gettime (CLOCK_MONOTONIC, &w->written_at);
}

static void
persist (struct watch *w)
{
  shim_error_t tmp = NULL;

  /* A failed read (the cgroup is gone) keeps the last good snapshot. */
  if (monitor_update (&w->m, &tmp) < 0)
    shim_error_release (&tmp);
  if (counters_changed (w) || seconds_since (&w->written_at) >= 1.0)
    write_record (w, false);
}

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

/* Mark from the two event files only, through the fds already open (the
 * full snapshot's memory.stat costs a stats flush). */
static void
mark_from_events (struct watch *w)
{
  struct cg_memory_events local, tree;
  struct monitor saved = w->m;

  if (!pread_events (w->m.events_fd, "memory.events.local", &local)
      || !pread_events (w->tree_fd, "memory.events", &tree))
    return;
  if (!w->m.have_last)
    {
      w->m.last = w->m.baseline;
      w->m.have_last = w->m.have_baseline;
    }
  w->m.last.events_local = local;
  w->m.last.events = tree;
  w->m.last.have |= CG_SNAP_EVENTS_LOCAL | CG_SNAP_EVENTS;
  mark_if_oom (w, false);
  /* The full snapshot is the loop's to take. */
  w->m = saved;
}

/* init has exited: the marker now, before podman looks.  The kernel counts
 * oom_group_kill only after it has signalled the whole group, so init can
 * be gone before that counter rose; when an OOM kill is counted but not
 * yet as a group kill, wait (bounded) for memory.events.local's next
 * notification and look again. */
#define GROUP_KILL_WAIT_MS 100
static void
quick_mark (struct watch *w)
{
  struct cg_memory_events local;
  struct pollfd p = { .fd = w->m.events_fd, .events = POLLPRI };

  if (w->bundle_fd < 0 || w->marked)
    return;
  mark_from_events (w);
  if (w->marked || !pread_events (w->m.events_fd, "memory.events.local", &local)
      || local.oom_kill <= w->m.baseline.events_local.oom_kill
      || local.oom_group_kill > w->m.baseline.events_local.oom_group_kill)
    return;
  if (poll (&p, 1, GROUP_KILL_WAIT_MS) > 0)
    mark_from_events (w);
}

/* The cgroup was seen empty: nothing can raise its counters any more, and
 * the runtime may remove it any moment (runc does right after reaping
 * init).  The counters first, through the fds already open (no path
 * lookups), then the whole snapshot if the cgroup is still there; if it is
 * not, the last full snapshot carries the final counters, which were read
 * after the cgroup was seen empty, so the record is still complete. */
static void
persist_final (struct watch *w)
{
  struct cg_memory_events local, tree;
  uint64_t peak;
  bool counted = pread_events (w->m.events_fd, "memory.events.local", &local)
                 && pread_events (w->tree_fd, "memory.events", &tree);
  bool peaked = pread_u64 (w->peak_fd, "memory.peak", &peak);
  shim_error_t tmp = NULL;

  if (monitor_update (&w->m, &tmp) < 0 && counted)
    {
      struct cg_snapshot s = w->m.have_last ? w->m.last : w->m.baseline;
      s.events_local = local;
      s.events = tree;
      s.memory_peak = peak;
      s.have = (s.have & ~CG_SNAP_PEAK) | (peaked ? CG_SNAP_PEAK : 0) | CG_SNAP_EVENTS_LOCAL
               | CG_SNAP_EVENTS | CG_SNAP_CGROUP_EVENTS;
      s.cgroup_events = (struct cg_cgroup_events){ .have = CG_CEV_POPULATED, .populated = false };
      w->m.last = s;
      w->m.have_last = true;
    }
  shim_error_release (&tmp);
  write_record (w, true);
}


static _Noreturn void
watch_loop (struct watch *w)
{
  char ack[512];

  for (;;)
    {
      struct pollfd pfd[4] = {
        { .fd = monitor_fd (&w->m), .events = POLLPRI },
        { .fd = w->tree_fd, .events = POLLPRI },
        { .fd = w->cg_events_fd, .events = POLLPRI },
        init_exit_pollfd (&w->ie),
      };
      if (cg_events_fd_ended (w->cg_events_fd))
        {
          /* The counters first: the runtime removes the cgroup right
           * after it reaps init. */
          persist_final (w);
          init_exit_wait_reap (&w->ie, -1, NULL, NULL);
          if (w->ie.known)
            write_record (w, true);
          _exit (0);
        }
      if (poll (pfd, 4, init_exit_timeout (&w->ie)) < 0 && errno != EINTR)
        _exit (1);
      /* init's exit: the earliest moment the counters of an OOM kill that
       * took it can be read (memory.events.local's own notification goes
       * through a workqueue and a 10 ms rate limit), and podman looks for
       * <bundle>/oom as soon as conmon reports the exit.  Only the marker
       * here: the loop's top reads the end through the open fds first,
       * because runc removes the cgroup right after it reaps init. */
      {
        int ev = init_exit_event (&w->ie, pfd[3].revents);
        if (ev & INIT_EXIT_EXITED)
          quick_mark (w);
        if (ev)
          continue;
      }
      /* kernfs reports a change until it is read through the polled fd. */
      if (pfd[1].revents & (POLLPRI | POLLERR))
        (void) !pread (w->tree_fd, ack, sizeof ack, 0);
      if ((pfd[0].revents | pfd[1].revents) & (POLLPRI | POLLERR))
        persist (w);
    }
}

/* The child of the double fork: nothing of the hook's but the fds it
 * needs, stdio on /dev/null (runtimes read a hook's stdout and stderr to
 * EOF: a watcher holding them would look like a hook that never ends). */
static _Noreturn void
become_watcher (struct watch *w, int lock_fd, int cgfd)
{
  int keep[] = { w->m.events_fd, w->tree_fd,   w->peak_fd, w->cg_events_fd,
                 w->cfd,         w->bundle_fd, lock_fd,    cgfd, w->ie.pidfd };

  watcher_become_detached (keep, sizeof keep / sizeof keep[0]);
  watch_loop (w);
}

static int
spawn_watcher (int cgfd, int cfd, int bundle_fd, const char *id, int init_pidfd, shim_error_t *err)
{
  struct watch w = {
    .id = id, .tree_fd = -1, .peak_fd = -1, .cg_events_fd = -1, .cfd = cfd, .bundle_fd = bundle_fd
  };
  cleanup_close int tree_fd = -1, peak_fd = -1, cg_events_fd = -1, lock_fd = -1;
  pid_t pid;
  int status, ret = -1;

  if (monitor_init (&w.m, cgfd, err) < 0)
    goto out;
  tree_fd = openat (cgfd, "memory.events", O_RDONLY | O_CLOEXEC);
  if (tree_fd < 0 && errno != ENOENT)
    {
      shim_error_errno (err, "open `memory.events`");
      goto out;
    }
  peak_fd = openat (cgfd, "memory.peak", O_RDONLY | O_CLOEXEC);
  cg_events_fd = openat (cgfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  if (cg_events_fd < 0)
    {
      shim_error_errno (err, "open `cgroup.events`");
      goto out;
    }
  /* Held by the watcher until it has written its last record. */
  lock_fd = openat (cfd, HOOK_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || flock (lock_fd, LOCK_EX | LOCK_NB) < 0)
    {
      shim_error_errno (err, "lock `" HOOK_LOCK "`");
      goto out;
    }
  w.tree_fd = tree_fd;
  w.peak_fd = peak_fd;
  init_exit_init (&w.ie, init_pidfd);
  w.cg_events_fd = cg_events_fd;
  /* The record exists before the container runs: one that dies at once
   * still has its baseline. */
  if (watcher_record_write (cfd, HOOK_RECORD, &w.m, false, NULL, err) < 0)
    goto out;
  w.written_local = w.m.baseline.events_local;
  w.written_tree = w.m.baseline.events;
  clock_gettime (CLOCK_MONOTONIC, &w.written_at);
  pid = fork ();
  if (pid < 0)
    {
      shim_error_errno (err, "fork the watcher");
      goto out;
    }
  if (pid == 0)
    become_watcher (&w, lock_fd, cgfd);
  /* Reap the intermediate child; the watcher itself is orphaned. */
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  ret = 0;
out:
  monitor_release (&w.m);
  return ret;
}

/* DIR/ID already has a running watcher on this cgroup: the hook is
 * registered at both createRuntime and prestart (podman may map one to the
 * other). */
static bool
already_armed (int store_fd, const char *id, const char *cgroup)
{
  cleanup_close int cfd = -1;
  struct hook_meta old;
  shim_error_t tmp = NULL;
  bool same;

  if (hook_store_open_container (store_fd, id, &cfd, &tmp) < 0 || !hook_store_watcher_running (cfd)
      || hook_store_meta_read (cfd, &old, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  same = old.cgroup && strcmp (old.cgroup, cgroup) == 0;
  hook_store_meta_release (&old);
  return same;
}

int
hook_watch_arm (int store_fd, const struct hook_state *st, const struct hook_arm_opts *o,
          struct hook_meta *meta, int *cfd, shim_error_t *err)
{
  cleanup_free char *self = NULL;
  cleanup_close int root = -1, cgfd = -1, bundle_fd = -1, pidfd = -1;
  char proc[64], now[UTIL_RFC3339_LEN];
  const char *oom_group;
  shim_error_t tmp = NULL;
  int found;

  *cfd = -1;
  memset (meta, 0, sizeof *meta);
  util_rfc3339_now (now, sizeof now);
  meta->pid = st->pid;
  if ((meta->armed_at = strdup (now)) == NULL
      || (st->bundle && (meta->bundle = strdup (st->bundle)) == NULL))
    return shim_error_errno (err, "arm");
  snprintf (proc, sizeof proc, "/proc/%lld/cgroup", (long long) st->pid);
  found = cgroup_of (proc, &meta->cgroup, err);
  if (found == 0 && already_armed (store_fd, st->id, meta->cgroup))
    return 1;
  /* The directory first, so that a failure below is recorded in it. */
  if (hook_store_fresh (store_fd, st->id, cfd, err) < 0 || found < 0)
    return -1;

  /* A watcher inside the container's cgroup would keep it populated forever. */
  if (cgroup_of ("/proc/self/cgroup", &self, &tmp) == 0 && hook_state_cgroup_within (self, meta->cgroup))
    return shim_error_plain (err, EINVAL,
                             "the hook runs inside the container's cgroup `%s`: register it at "
                             "createRuntime or prestart",
                             meta->cgroup);
  shim_error_release (&tmp);
  root = open_cgroup2_root (err);
  if (root < 0)
    return -1;
  cgfd = openat (root, meta->cgroup + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgfd < 0)
    return shim_error_errno (err, "open the container's cgroup `%s`", meta->cgroup);
  oom_group = ensure_oom_group (cgfd, st, o, err);
  if (oom_group == NULL)
    return shim_error_prefix (err, "cgroup `%s`", meta->cgroup);
  if ((meta->oom_group = strdup (oom_group)) == NULL)
    return shim_error_errno (err, "arm");

  if (o->oom_file && st->bundle)
    {
      bundle_fd = open (st->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (bundle_fd < 0)
        return shim_error_errno (err, "open the bundle `%s`", st->bundle);
      /* A marker from an earlier run of this bundle is not this run's. */
      if (unlinkat (bundle_fd, VERDICT_OOM_MARKER, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove the stale `%s/oom`", st->bundle);
      meta->oom_file = true;
    }
  if (hook_store_meta_write (*cfd, meta, err) < 0)
    return -1;
  /* init is alive and waiting at createRuntime and prestart: this pidfd is
   * its, and tells its exit status later where the kernel keeps it. */
  pidfd = (int) syscall (SYS_pidfd_open, (pid_t) st->pid, 0);
  if (spawn_watcher (cgfd, *cfd, bundle_fd, st->id, pidfd, err) < 0)
    return shim_error_prefix (err, "cgroup `%s`", meta->cgroup);
  return 0;
}
