/* SPDX-License-Identifier: Apache-2.0 */
#include "verdict/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "verdict/init_exit.h"

static const struct watcher_actions no_actions = { .stop_fd = -1, .keep_fd = -1 };

/* What the watcher carries between polls. */
struct watch
{
  struct monitor m;
  int tree_fd;      /* memory.events: kills in nested cgroups and from above */
  int cg_events_fd; /* cgroup.events: populated 0, or the cgroup removed */
  int dirfd;        /* where the record goes */
  const char *name; /* the record */
  struct init_exit ie;
  const struct watcher_actions *act;
  bool oom_told; /* act->on_oom_killed was called */
};

static bool
stop_requested (const struct watch *w)
{
  return w->act->stop && w->act->stop (w->act->stop_fd, w->act->arg);
}

static void
persist (struct watch *w, bool ended)
{
  shim_error_t tmp = NULL;
  if (monitor_update (&w->m, &tmp) < 0)
    shim_error_release (&tmp); /* the cgroup may be gone: keep what we had */
  /* The caller's action the moment the counters prove the kill, before the
   * record: podman reads its marker as soon as it learns of the exit, which
   * may be before anyone asks us. */
  if (w->act->on_oom_killed && !w->oom_told)
    {
      struct verdict_input in = { .container_id = w->act->id, .memory_limit_enforced = true };
      struct verdict v;
      monitor_fill_input (&w->m, &in);
      verdict_compute (&in, &v);
      if (v.oom_killed == VERDICT_TRUE)
        {
          w->act->on_oom_killed (&v, w->act->arg);
          w->oom_told = true;
        }
    }
  if (watcher_record_write (w->dirfd, w->name, &w->m, ended, w->ie.known ? &w->ie.status : NULL,
                            &tmp)
      < 0)
    shim_error_release (&tmp);
}

static _Noreturn void
watch (struct watch *w)
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
        { .fd = monitor_fd (&w->m), .events = POLLPRI },
        { .fd = w->tree_fd, .events = POLLPRI },
        { .fd = w->cg_events_fd, .events = POLLPRI },
        init_exit_pollfd (&w->ie),
        { .fd = w->act->stop_fd, .events = POLLIN },
      };
      if (cg_events_fd_ended (w->cg_events_fd))
        {
          if (!init_exit_wait_reap (&w->ie, w->act->stop_fd, w->act->stop, w->act->arg))
            _exit (0);
          persist (w, true);
          _exit (0);
        }
      if (poll (pfd, 5, init_exit_timeout (&w->ie)) < 0 && errno != EINTR)
        _exit (1);
      /* The caller's end (`delete` removed the state): no one is left to tell. */
      if ((pfd[4].revents & POLLIN) && stop_requested (w))
        _exit (0);
      /* init's death is the earliest sign of an OOM kill that took it:
       * the counters are final by then, while memory.events.local's
       * notification goes through a workqueue and a 10 ms rate limit, and
       * podman may look for <bundle>/oom as soon as it sees the exit. */
      if (init_exit_event (&w->ie, pfd[3].revents))
        persist (w, false);
      /* kernfs reports a change until it is read through the polled fd
       * (monitor_update reads memory.events.local's). */
      if (pfd[1].revents & (POLLPRI | POLLERR))
        (void) !pread (w->tree_fd, ack, sizeof ack, 0);
      if ((pfd[0].revents | pfd[1].revents) & (POLLPRI | POLLERR))
        persist (w, false);
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
watcher_spawn (int cgroup_fd, int dirfd, const char *name, int init_pidfd,
               const struct watcher_actions *act, shim_error_t *err)
{
  struct watch w = { .dirfd = dirfd, .name = name, .act = act ? act : &no_actions };
  cleanup_close int cg_events = -1, tree = -1;
  pid_t pid;
  int status;

  if (monitor_init (&w.m, cgroup_fd, err) < 0)
    return -1;
  cg_events = openat (cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  if (cg_events < 0)
    {
      monitor_release (&w.m);
      return shim_error_errno (err, "open `cgroup.events`");
    }
  tree = openat (cgroup_fd, "memory.events", O_RDONLY | O_CLOEXEC);
  if (tree < 0 && errno != ENOENT)
    {
      monitor_release (&w.m);
      return shim_error_errno (err, "open `memory.events`");
    }
  /* The record exists before we return: a container that dies at once
   * still has a baseline to compare with. */
  if (watcher_record_write (dirfd, name, &w.m, false, NULL, err) < 0)
    {
      monitor_release (&w.m);
      return -1;
    }
  /* Followed only where the kernel keeps a reaped process's exit status
   * for its pidfds; elsewhere the verdict says the status was not known. */
  init_exit_init (&w.ie, init_pidfd);
  pid = fork ();
  if (pid < 0)
    {
      monitor_release (&w.m);
      return shim_error_errno (err, "fork the watcher");
    }
  if (pid == 0)
    {
      int keep[] = { w.m.events_fd, cg_events, dirfd, cgroup_fd, tree,
                     w.ie.pidfd,    w.act->stop_fd, w.act->keep_fd };
      w.tree_fd = tree;
      w.cg_events_fd = cg_events;
      watcher_become_detached (keep, sizeof keep / sizeof keep[0]);
      watch (&w);
    }
  monitor_release (&w.m);
  /* Reap the intermediate child; the watcher itself is orphaned. */
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return 0;
}
