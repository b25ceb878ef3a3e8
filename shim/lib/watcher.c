/* SPDX-License-Identifier: Apache-2.0 */
#include "watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "log.h"
#include "util.h"

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
watch_record_write (int dirfd, const char *name, const struct monitor *m, bool ended, shim_error_t *err)
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
      || yajl_gen_bool (g, ended) != yajl_gen_status_ok || yajl_gen_map_close (g) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "watch record `%s`", name);
  return write_file_atomic_at (dirfd, name, (const char *) buf, len, 0600, err);
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
  const char *ended[] = { "ended", NULL };
  char ebuf[256];

  memset (out, 0, sizeof (*out));
  if (read_file_at (dirfd, name, &json, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (json, ebuf, sizeof (ebuf));
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "watch record `%s`: not a JSON object", name);
  if (read_snap (root, "baseline", name, &out->have_baseline, &out->baseline, err) < 0
      || read_snap (root, "last", name, &out->have_last, &out->last, err) < 0
      || read_snap (root, "fullest", name, &out->have_fullest, &out->fullest, err) < 0)
    return -1;
  out->ended = YAJL_IS_TRUE (yajl_tree_get (root, ended, yajl_t_any));
  return 0;
}

void
watch_record_fill_input (const struct watch_record *r, struct verdict_input *in)
{
  in->baseline = r->have_baseline ? &r->baseline : NULL;
  in->final = r->have_last ? &r->last : NULL;
  in->at_oom = r->have_fullest ? &r->fullest : NULL;
  if (!r->have_baseline)
    in->unavailable_reason = "the watcher recorded no baseline";
  else if (!(r->baseline.have & CG_SNAP_EVENTS_LOCAL))
    in->unavailable_reason = "the memory controller is not enabled in the container's cgroup";
}


/* Where podman's marker goes (<bundle>/oom), and whether it is there. */
struct marker
{
  int bundle_fd; /* -1: no marker */
  const char *id;
  bool marked;
};

static void
persist (int dirfd, const char *name, struct monitor *m, bool ended, struct marker *mk)
{
  shim_error_t tmp = NULL;
  if (monitor_update (m, &tmp) < 0)
    shim_error_release (&tmp); /* the cgroup may be gone: keep what we had */
  if (watch_record_write (dirfd, name, m, ended, &tmp) < 0)
    shim_error_release (&tmp);
  /* The marker the moment the counters prove the kill: podman reads it as
   * soon as it learns of the exit, which may be before anyone asks us. */
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
}

static _Noreturn void
watch (struct monitor *m, int tree_fd, int cg_events_fd, int dirfd, const char *name, struct marker *mk)
{
  char ack[512];

  for (;;)
    {
      /* memory.events too: kills in nested cgroups and an ancestor's kills
       * of processes in nested cgroups change only the tree counters. */
      struct pollfd pfd[3] = {
        { .fd = monitor_fd (m), .events = POLLPRI },
        { .fd = tree_fd, .events = POLLPRI },
        { .fd = cg_events_fd, .events = POLLPRI },
      };
      if (cg_events_fd_ended (cg_events_fd))
        {
          persist (dirfd, name, m, true, mk);
          _exit (0);
        }
      if (poll (pfd, 3, -1) < 0 && errno != EINTR)
        _exit (1);
      /* kernfs reports a change until it is read through the polled fd
       * (monitor_update reads memory.events.local's). */
      if (pfd[1].revents & (POLLPRI | POLLERR))
        (void) !pread (tree_fd, ack, sizeof ack, 0);
      if ((pfd[0].revents | pfd[1].revents) & (POLLPRI | POLLERR))
        persist (dirfd, name, m, false, mk);
    }
}

int
watcher_spawn (int cgroup_fd, int dirfd, const char *name, int bundle_fd, const char *id, shim_error_t *err)
{
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
  if (watch_record_write (dirfd, name, &m, false, err) < 0)
    {
      monitor_release (&m);
      return -1;
    }
  pid = fork ();
  if (pid < 0)
    {
      monitor_release (&m);
      return shim_error_errno (err, "fork the watcher");
    }
  if (pid == 0)
    {
      int keep[6] = { m.events_fd, cg_events, dirfd, cgroup_fd, tree, bundle_fd }, devnull, i;
      struct marker mk = { .bundle_fd = bundle_fd, .id = id };
      if (setsid () < 0 || fork () != 0)
        _exit (0);
      /* Hooks' stdout and stderr are pipes the runtime reads to EOF: a
       * watcher holding them would make the hook look like it never ends. */
      devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
      if (devnull < 0)
        _exit (1);
      for (i = 0; i < 3; i++)
        if (dup2 (devnull, i) < 0)
          _exit (1);
      for (i = 3; i < 1024; i++)
        {
          int j;
          bool wanted = false;
          for (j = 0; j < 6; j++)
            wanted |= keep[j] == i;
          if (!wanted)
            close (i);
        }
      signal (SIGPIPE, SIG_IGN);
      watch (&m, tree, cg_events, dirfd, name, &mk);
    }
  monitor_release (&m);
  /* Reap the intermediate child; the watcher itself is orphaned. */
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return 0;
}
