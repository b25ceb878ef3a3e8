/* SPDX-License-Identifier: Apache-2.0 */
#include "verdict/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/log.h"
#include "common/util.h"

static void
cleanup_yajl_genp (yajl_gen *g)
{
  if (*g)
    yajl_gen_free (*g);
}

static int
gen_key (yajl_gen g, const char *k)
{
  return yajl_gen_string (g, (const unsigned char *) k, strlen (k)) == yajl_gen_status_ok ? 0 : -1;
}

static int
gen_snap (yajl_gen g, const char *key, bool have, const struct cg_snapshot *s, shim_error_t *err)
{
  if (gen_key (g, key) < 0)
    return shim_error_plain (err, ENOMEM, "watch record: %s", key);
  if (!have)
    return yajl_gen_null (g) == yajl_gen_status_ok ? 0 : shim_error_plain (err, ENOMEM, "watch record");
  return cg_snapshot_gen (g, s, err);
}

int
watch_record_write (int dirfd, const char *name, const struct monitor *m, bool ended, const int *status,
                    shim_error_t *err)
{
  __attribute__ ((cleanup (cleanup_yajl_genp))) yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return shim_error_plain (err, ENOMEM, "watch record");
  if (yajl_gen_map_open (g) != yajl_gen_status_ok
      || gen_snap (g, "baseline", m->have_baseline, &m->baseline, err) < 0
      || gen_snap (g, "last", m->have_last, &m->last, err) < 0
      || gen_snap (g, "fullest", m->have_fullest, &m->fullest, err) < 0 || gen_key (g, "ended") < 0
      || yajl_gen_bool (g, ended) != yajl_gen_status_ok || gen_key (g, "status") < 0
      || (status ? yajl_gen_integer (g, *status) : yajl_gen_null (g)) != yajl_gen_status_ok
      || yajl_gen_map_close (g) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "watch record `%s`", name);
  return util_write_file_atomic_at (dirfd, name, (const char *) buf, len, 0600, err);
}

static void
cleanup_yajl_valp (yajl_val *v)
{
  if (*v)
    yajl_tree_free (*v);
}

static int
read_snap (yajl_val root, const char *key, const char *name, bool *have, struct cg_snapshot *s,
           shim_error_t *err)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get (root, path, yajl_t_any);
  *have = v != NULL && !YAJL_IS_NULL (v);
  if (!*have)
    return 0;
  return cg_snapshot_from_tree (v, name, s, err);
}

int
watch_record_read (int dirfd, const char *name, struct watch_record *out, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  __attribute__ ((cleanup (cleanup_yajl_valp))) yajl_val root = NULL;
  const char *ended[] = { "ended", NULL }, *status[] = { "status", NULL };
  yajl_val st;
  char ebuf[256];

  memset (out, 0, sizeof (*out));
  if (util_read_file_at (dirfd, name, &json, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (json, ebuf, sizeof (ebuf));
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "watch record `%s`: not a JSON object", name);
  if (read_snap (root, "baseline", name, &out->have_baseline, &out->baseline, err) < 0
      || read_snap (root, "last", name, &out->have_last, &out->last, err) < 0
      || read_snap (root, "fullest", name, &out->have_fullest, &out->fullest, err) < 0)
    return -1;
  out->ended = YAJL_IS_TRUE (yajl_tree_get (root, ended, yajl_t_any));
  st = yajl_tree_get (root, status, yajl_t_any);
  if (st && YAJL_IS_INTEGER (st))
    {
      out->have_status = true;
      out->status = (int) YAJL_GET_INTEGER (st);
    }
  return 0;
}

void
watch_record_fill_input (const struct watch_record *r, struct verdict_input *in)
{
  in->baseline = r->have_baseline ? &r->baseline : NULL;
  in->final = r->have_last ? &r->last : NULL;
  in->at_oom = r->have_fullest ? &r->fullest : NULL;
  in->have_status = r->have_status;
  in->status = r->status;
  if (!r->have_baseline)
    in->unavailable_reason = "the watcher recorded no baseline";
  else if (!(r->baseline.have & CG_SNAP_EVENTS_LOCAL))
    in->unavailable_reason = "the memory controller is not enabled in the container's cgroup";
}


/* linux/pidfd.h of 6.15, which Debian 12's headers predate: the first
 * version of struct pidfd_info, up to exit_code. */
struct shim_pidfd_info
{
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;
};
#define SHIM_PIDFD_GET_INFO _IOWR (0xFF, 11, struct shim_pidfd_info)
#define SHIM_PIDFD_INFO_EXIT (1ULL << 3)

int
pidfd_exit_status (int pidfd, int *status)
{
  struct shim_pidfd_info info = { .mask = SHIM_PIDFD_INFO_EXIT };

  if (ioctl (pidfd, SHIM_PIDFD_GET_INFO, &info) < 0)
    /* ESRCH: reaped, and this kernel keeps no exit information (6.14);
     * ENOTTY: no PIDFD_GET_INFO at all (before 6.13). */
    return -1;
  /* Measured on 6.18: the exit status appears once the parent reaped, not
   * at exit; the mask has no PIDFD_INFO_EXIT for a zombie. */
  if (!(info.mask & SHIM_PIDFD_INFO_EXIT))
    return 0;
  *status = info.exit_code;
  return 1;
}

/* Where podman's marker goes (<bundle>/oom), and whether it is there. */
struct marker
{
  int bundle_fd; /* -1: no marker */
  const char *id;
  bool marked;
};

static void
persist (int dirfd, const char *name, struct monitor *m, bool ended, const struct init_exit *ie,
         struct marker *mk)
{
  shim_error_t tmp = NULL;
  if (monitor_update (m, &tmp) < 0)
    shim_error_release (&tmp); /* the cgroup may be gone: keep what we had */
  /* The marker the moment the counters prove the kill, before the record:
   * podman reads it as soon as it learns of the exit, which may be before
   * anyone asks us. */
  if (mk->bundle_fd >= 0 && !mk->marked)
    {
      struct verdict_input in = { .container_id = mk->id, .memory_limit_enforced = true };
      struct verdict v;
      monitor_fill_input (m, &in);
      verdict_compute (&in, &v);
      if (v.oom_killed == VERDICT_TRUE)
        {
          int fd = openat (mk->bundle_fd, "oom", O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
          if (fd >= 0)
            close (fd);
          mk->marked = true;
        }
    }
  if (watch_record_write (dirfd, name, m, ended, ie->known ? &ie->status : NULL, &tmp) < 0)
    shim_error_release (&tmp);
}

/* How long an emptied cgroup's watcher waits for init to be reaped, for its
 * exit status: engines reap at once; a parent that never does must not
 * keep the watcher forever. */
#define REAP_WAIT_MS 10000
/* Once init is gone, how often the cgroup is looked at again.  Seen on
 * 6.18: the watcher of a container deleted right after create stayed in
 * poll on the removed cgroup.events for good.  The kernel rate-limits
 * cgroup.events notifications (one per 10 ms, the rest on a timer) and
 * rmdir cancels that timer, so "populated 0" can be lost. */
#define AFTER_INIT_RECHECK_MS 1000

void
init_exit_init (struct init_exit *ie, int pidfd)
{
  int probe;
  *ie = (struct init_exit){ .pidfd = pidfd };
  ie->follow_status = pidfd >= 0 && pidfd_exit_status (pidfd, &probe) >= 0;
}

struct pollfd
init_exit_pollfd (const struct init_exit *ie)
{
  /* POLLIN when init exits (in a pid namespace, after every other process
   * of it); then, with no event asked for, POLLHUP alone once it is reaped
   * (6.15 wakes pollers then; a zombie stays POLLIN, which would spin). */
  return (struct pollfd){ .fd = ie->done ? -1 : ie->pidfd, .events = ie->exited ? 0 : POLLIN };
}

int
init_exit_timeout (const struct init_exit *ie)
{
  return ie->exited ? AFTER_INIT_RECHECK_MS : -1;
}

static void
learn_exit (struct init_exit *ie)
{
  if (ie->follow_status && !ie->known)
    ie->known = pidfd_exit_status (ie->pidfd, &ie->status) == 1;
  ie->done = true;
}

int
init_exit_event (struct init_exit *ie, short revents)
{
  int news = 0;
  if ((revents & (POLLIN | POLLHUP | POLLERR)) && !ie->exited)
    {
      ie->exited = true;
      news |= INIT_EXITED;
      /* Without a status to wait for, the pidfd has told all it can. */
      ie->done = !ie->follow_status;
    }
  if (revents & (POLLHUP | POLLERR))
    {
      learn_exit (ie);
      if (ie->known)
        news |= INIT_STATUS_KNOWN;
    }
  return news;
}

bool
init_exit_wait_reap (struct init_exit *ie, int stop_fd, bool (*stop) (int fd, const void *arg), const void *arg)
{
  struct pollfd p[2] = { { .fd = ie->pidfd, .events = 0 }, { .fd = stop_fd, .events = POLLIN } };

  if (!ie->follow_status)
    return true;
  while (!ie->done && poll (p, 2, REAP_WAIT_MS) > 0)
    {
      if (p[0].revents & (POLLHUP | POLLERR))
        learn_exit (ie);
      else if (stop && stop (stop_fd, arg))
        return false;
    }
  return true;
}

/* Whether the inotify fd on the state dir saw the state file removed
 * (`delete`).  A watch on the directory itself would not do: measured on
 * 6.18, IN_DELETE_SELF is not sent while the watcher holds the directory
 * open. */
static bool
state_deleted (int ino, const void *end_file)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t n;

  while ((n = read (ino, buf, sizeof (buf))) > 0)
    {
      char *p;
      for (p = buf; p < buf + n; p += sizeof (struct inotify_event) + ((struct inotify_event *) p)->len)
        {
          const struct inotify_event *e = (const struct inotify_event *) p;
          if (e->len && strcmp (e->name, (const char *) end_file) == 0)
            return true;
        }
    }
  return false;
}

static _Noreturn void
watch (struct monitor *m, int tree_fd, int cg_events_fd, int dirfd, const char *name, struct init_exit *ie,
       int gone_fd, const char *end_file, struct marker *mk)
{
  char ack[512];

  for (;;)
    {
      /* memory.events too: kills in nested cgroups and an ancestor's kills
       * of processes in nested cgroups change only the tree counters.
       * init's pidfd: POLLIN when it exits (in a pid namespace, after every
       * other process of the namespace); then, with no event asked for,
       * POLLHUP alone once it is reaped (6.15 wakes pollers then). */
      struct pollfd pfd[5] = {
        { .fd = monitor_fd (m), .events = POLLPRI },
        { .fd = tree_fd, .events = POLLPRI },
        { .fd = cg_events_fd, .events = POLLPRI },
        init_exit_pollfd (ie),
        { .fd = gone_fd, .events = POLLIN },
      };
      if (cg_events_fd_ended (cg_events_fd))
        {
          if (!init_exit_wait_reap (ie, gone_fd, state_deleted, end_file))
            _exit (0);
          persist (dirfd, name, m, true, ie, mk);
          _exit (0);
        }
      if (poll (pfd, 5, init_exit_timeout (ie)) < 0 && errno != EINTR)
        _exit (1);
      /* `delete` removed the state: there is no one left to tell. */
      if ((pfd[4].revents & POLLIN) && state_deleted (gone_fd, end_file))
        _exit (0);
      /* init's death is the earliest sign of an OOM kill that took it:
       * the counters are final by then, while memory.events.local's
       * notification goes through a workqueue and a 10 ms rate limit, and
       * podman may look for <bundle>/oom as soon as it sees the exit. */
      if (init_exit_event (ie, pfd[3].revents))
        persist (dirfd, name, m, false, ie, mk);
      /* kernfs reports a change until it is read through the polled fd
       * (monitor_update reads memory.events.local's). */
      if (pfd[1].revents & (POLLPRI | POLLERR))
        (void) !pread (tree_fd, ack, sizeof ack, 0);
      if ((pfd[0].revents | pfd[1].revents) & (POLLPRI | POLLERR))
        persist (dirfd, name, m, false, ie, mk);
    }
}

void
watcher_become_detached (const int *keep, size_t n)
{
  int devnull, top = 2, fd;
  size_t i;

  if (setsid () < 0 || fork () != 0)
    _exit (0);
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

int
watcher_spawn (int cgroup_fd, int dirfd, const char *name, const char *end_file, int bundle_fd, const char *id,
               int init_pidfd, shim_error_t *err)
{
  struct init_exit ie;
  struct monitor m;
  cleanup_close int cg_events = -1, tree = -1;
  pid_t pid;
  int status;

  if (monitor_init (&m, cgroup_fd, err) < 0)
    return -1;
  cg_events = openat (cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  if (cg_events < 0)
    {
      monitor_release (&m);
      return shim_error_errno (err, "open `cgroup.events`");
    }
  tree = openat (cgroup_fd, "memory.events", O_RDONLY | O_CLOEXEC);
  if (tree < 0 && errno != ENOENT)
    {
      monitor_release (&m);
      return shim_error_errno (err, "open `memory.events`");
    }
  /* The record exists before we return: a container that dies at once
   * still has a baseline to compare with. */
  if (watch_record_write (dirfd, name, &m, false, NULL, err) < 0)
    {
      monitor_release (&m);
      return -1;
    }
  /* Followed only where the kernel keeps a reaped process's exit status
   * for its pidfds; elsewhere the verdict says the status was not known. */
  init_exit_init (&ie, init_pidfd);
  pid = fork ();
  if (pid < 0)
    {
      monitor_release (&m);
      return shim_error_errno (err, "fork the watcher");
    }
  if (pid == 0)
    {
      int keep[8] = { m.events_fd, cg_events, dirfd, cgroup_fd, tree, bundle_fd, ie.pidfd, -1 };
      struct marker mk = { .bundle_fd = bundle_fd, .id = id };
      char self[64];
      /* The watcher ends with the state dir too, whatever the cgroup says:
       * `delete` may come before the kernel tells us the cgroup emptied. */
      keep[7] = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
      snprintf (self, sizeof (self), "/proc/self/fd/%d", dirfd);
      if (keep[7] >= 0 && inotify_add_watch (keep[7], self, IN_DELETE) < 0)
        {
          close (keep[7]);
          keep[7] = -1;
        }
      watcher_become_detached (keep, 8);
      watch (&m, tree, cg_events, dirfd, name, &ie, keep[7], end_file, &mk);
    }
  monitor_release (&m);
  /* Reap the intermediate child; the watcher itself is orphaned. */
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return 0;
}
