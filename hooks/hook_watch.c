/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "cgroup/cgroup.h"
#include "common/json.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "hooks/hook_name.h"
#include "evidence/watcher.h"

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

/* A pure cgroup v1 host (no cgroup2 mount): /proc/PID/cgroup's `0::` line
 * names no cgroup anyone made, the container is its v1 memory cgroup.
 * Opened into *MEMFD, its path (as the kernel log names it) in *PATH. */
static int
v1_memory_of (pid_t pid, int *memfd, char **path, shim_error_t *err)
{
  if (cgroup_v1_proc_open (pid, "memory", memfd, path, err) < 0)
    return -1;
  if (*memfd < 0)
    return shim_error_plain (err, ENOENT,
                             "no cgroup v2 mount and no cgroup v1 memory hierarchy to watch");
  if (strcmp (*path, "/") == 0)
    return shim_error_plain (err, EINVAL,
                             "the process is in the root memory cgroup: the container has no "
                             "cgroup of its own");
  return 0;
}

/* The hook's own v1 memory cgroup, as v1_memory_of finds init's. */
static int
self_memory_of (char **path, shim_error_t *err)
{
  cleanup_close int fd = -1;
  return v1_memory_of (getpid (), &fd, path, err);
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

/* evidence/watcher.c's watcher, with the hook's policy: the record in DIR/ID,
 * the lock held until its last record (poststop waits for it), podman's
 * marker when asked.  At createRuntime and prestart init exists already:
 * the baseline is as early as a hook can take it. */
static int
spawn_watcher (int cgfd, int memfd, int cfd, int bundle_fd, const char *id, const char *cgroup,
               int init_pidfd, int64_t init_pid, shim_error_t *err)
{
  struct watcher w;
  cleanup_close int lock_fd = -1;
  struct watcher_policy p = { .id = id,
                              .dirfd = cfd,
                              .name = HOOK_RECORD,
                              .bundle_fd = bundle_fd,
                              .lock_fd = -1,
                              .init_pidfd = init_pidfd,
                              .init_pid = init_pid };

  /* Held by the watcher until it has written its last record. */
  lock_fd = openat (cfd, HOOK_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || flock (lock_fd, LOCK_EX | LOCK_NB) < 0)
    return shim_error_errno (err, "lock `" HOOK_LOCK "`");
  p.lock_fd = lock_fd;
  /* The parent: runc and crun remove the container's cgroup right after
   * they reap init, and its parent outlives it.  On a hybrid host the
   * memory files are in the v1 memory cgroup MEMFD (CGROUP is then its
   * path, as the kernel log names it), the end in the unified one. */
  if ((memfd >= 0 ? watcher_arm_v1 (&w, memfd, cgfd, cgroup, err) : watcher_arm (&w, cgfd, 1, cgroup, err)) < 0)
    {
      watcher_release (&w);
      return -1;
    }
  /* The limit could be enforced when the memory controller was there. */
  p.memory_limit_enforced = w.m.have_baseline && (w.m.baseline.have & CG_SNAP_MAX);
  return watcher_spawn (&w, &p, err);
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
  cleanup_free char *self = NULL, *mempath = NULL;
  cleanup_close int root = -1, cgfd = -1, memfd = -1, bundle_fd = -1, pidfd = -1;
  char proc[64], now[UTIL_RFC3339_LEN];
  const char *oom_group;
  shim_error_t tmp = NULL;
  bool pure_v1 = cgroup_mount_point () == NULL;
  int found;

  *cfd = -1;
  memset (meta, 0, sizeof *meta);
  util_rfc3339_now (now, sizeof now);
  meta->pid = st->pid;
  if ((meta->armed_at = strdup (now)) == NULL
      || (st->bundle && (meta->bundle = strdup (st->bundle)) == NULL))
    return shim_error_errno (err, "arm");
  hook_name_find (st, &meta->name);
  snprintf (proc, sizeof proc, "/proc/%lld/cgroup", (long long) st->pid);
  found = pure_v1 ? v1_memory_of ((pid_t) st->pid, &memfd, &meta->cgroup, err)
                  : cgroup_of (proc, &meta->cgroup, err);
  if (found == 0 && already_armed (store_fd, st->id, meta->cgroup))
    return 1;
  /* The directory first, so that a failure below is recorded in it. */
  if (hook_store_fresh (store_fd, st->id, cfd, err) < 0 || found < 0)
    return -1;

  /* A watcher inside the container's cgroup would keep it populated forever. */
  if ((pure_v1 ? self_memory_of (&self, &tmp) : cgroup_of ("/proc/self/cgroup", &self, &tmp)) == 0
      && hook_state_cgroup_within (self, meta->cgroup))
    return shim_error_plain (err, EINVAL,
                             "the hook runs inside the container's cgroup `%s`: register it at "
                             "createRuntime or prestart",
                             meta->cgroup);
  shim_error_release (&tmp);
  if (pure_v1)
    {
      /* No memory.oom.group on v1; the watcher ends on init's pidfd. */
      oom_group = "absent";
      if ((mempath = strdup (meta->cgroup)) == NULL)
        return shim_error_errno (err, "arm");
    }
  else if ((root = open_cgroup2_root (err)) < 0)
    return -1;
  else if ((cgfd = openat (root, meta->cgroup + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return shim_error_errno (err, "open the container's cgroup `%s`", meta->cgroup);
  /* A hybrid host (runc's limits in the v1 hierarchies): the unified
   * cgroup has no memory files, init's v1 memory cgroup has them. */
  else if (cgroup_v1_proc_open ((pid_t) st->pid, "memory", &memfd, &mempath, err) < 0)
    return -1;
  else
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
      if (unlinkat (bundle_fd, MARK_OOM_FILE, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove the stale `%s/oom`", st->bundle);
      meta->oom_file = true;
    }
  if (hook_store_meta_write (*cfd, meta, err) < 0)
    return -1;
  /* init is alive and waiting at createRuntime and prestart: this pidfd is
   * its, and tells its exit status later where the kernel keeps it. */
  pidfd = (int) syscall (SYS_pidfd_open, (pid_t) st->pid, 0);
  if (spawn_watcher (cgfd, memfd, *cfd, bundle_fd, st->id, memfd >= 0 ? mempath : meta->cgroup, pidfd,
                     st->pid, err)
      < 0)
    return shim_error_prefix (err, "cgroup `%s`", meta->cgroup);
  return 0;
}
