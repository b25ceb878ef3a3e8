/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroupfs v1 manager, for hybrid hosts (controllers on v1 hierarchies,
 * a controller-less cgroup2 at /sys/fs/cgroup/unified) and pure v1 ones.
 *
 * The container's cgroup is one path (cgroup_path_for's: what state.json
 * keeps) made in every v1 hierarchy that carries a controller (runc's
 * fs manager joins those; named ones such as name=systemd are left alone)
 * and, on hybrid, in the unified hierarchy too: there cgroup.events says
 * when the tree is empty and cgroup.kill kills it, exactly as with the v2
 * manager, whose destroy, freeze and signal_all work on it unchanged.
 * Without cgroup2 the v1 freezer stops the tree so that a kill reaches
 * every task, forks racing with it included.
 *
 * A relative cgroupsPath is under the runtime's own cgroup in each
 * hierarchy, as runc resolves it (its /proc/self/cgroup line for that
 * controller; cgroup.path is the unified one's, or memory's on a pure v1
 * host): the hierarchies whose directory differs are listed in
 * cgroup.v1_paths, which state.json keeps for the later commands. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/log.h"
#include "common/util.h"

/* As the v2 manager's bounds: tasks stop (or die) in microseconds unless
 * stuck in the kernel. */
#define FREEZE_TIMEOUT_MS 5000
#define DESTROY_TIMEOUT_MS 5000
/* v1 tells nobody when freezer.state or cgroup.procs changes: those two
 * waits re-read the file this often, up to the bound. */
#define V1_POLL_MS 10

/* The controllers a v1 hierarchy can carry (runc's fs subsystems). */
static const char *const v1_controllers[] = {
  "cpu",      "cpuacct",   "cpuset",     "memory",  "devices", "freezer", "net_cls",
  "net_prio", "blkio",     "perf_event", "hugetlb", "pids",    "rdma",    "misc",
};

struct v1_mount
{
  char *ctrls; /* "cpu,cpuacct" */
  char *dir;
};
static struct
{
  bool parsed;
  char *text; /* cgroup_v1_set_mountinfo's, or NULL: the host's */
  struct v1_mount m[CGROUP_V1_MAX];
  size_t n;
  char *unified; /* the cgroup2 mount point, or NULL */
} mounts;

static bool
is_controller (const char *name, size_t len)
{
  size_t i;
  for (i = 0; i < sizeof (v1_controllers) / sizeof (v1_controllers[0]); i++)
    if (strlen (v1_controllers[i]) == len && strncmp (v1_controllers[i], name, len) == 0)
      return true;
  return false;
}

/* Whether the comma-separated LIST names NAME. */
static bool
list_has (const char *list, const char *name)
{
  size_t n = strlen (name);
  while (list && *list)
    {
      size_t len = strcspn (list, ",");
      if (len == n && strncmp (list, name, n) == 0)
        return true;
      list += len + (list[len] == ',');
    }
  return false;
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS".
 * The mount point's octal escapes (\040) are left: cgroup mounts have none. */
static void
parse_line (char *line)
{
  char *field[6] = { 0 }, *save = NULL, *tok, *fstype, *super;
  size_t i = 0;
  char ctrls[256] = "";

  for (tok = strtok_r (line, " ", &save); tok && i < 6; tok = strtok_r (NULL, " ", &save))
    field[i++] = tok;
  if (i < 6)
    return;
  while (tok && strcmp (tok, "-") != 0)
    tok = strtok_r (NULL, " ", &save);
  fstype = strtok_r (NULL, " ", &save);
  if (fstype == NULL || strtok_r (NULL, " ", &save) == NULL || (super = strtok_r (NULL, " ", &save)) == NULL)
    return;
  if (strcmp (fstype, "cgroup2") == 0)
    {
      if (mounts.unified == NULL)
        mounts.unified = strdup (field[4]);
      return;
    }
  if (strcmp (fstype, "cgroup") != 0 || mounts.n == CGROUP_V1_MAX)
    return;
  /* The super options name the controllers among rw, name=..., etc. */
  for (tok = strtok_r (super, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
    if (is_controller (tok, strlen (tok)) && strlen (ctrls) + strlen (tok) + 2 < sizeof (ctrls))
      {
        if (ctrls[0])
          strcat (ctrls, ",");
        strcat (ctrls, tok);
      }
  if (ctrls[0] == '\0')
    return;
  /* The same hierarchy mounted twice: the first mount will do. */
  for (i = 0; i < mounts.n; i++)
    if (strcmp (mounts.m[i].ctrls, ctrls) == 0)
      return;
  mounts.m[mounts.n].ctrls = strdup (ctrls);
  mounts.m[mounts.n].dir = strdup (field[4]);
  if (mounts.m[mounts.n].ctrls && mounts.m[mounts.n].dir)
    mounts.n++;
}

static void
forget_mounts (void)
{
  size_t i;
  for (i = 0; i < mounts.n; i++)
    {
      free (mounts.m[i].ctrls);
      free (mounts.m[i].dir);
    }
  free (mounts.unified);
  mounts.n = 0;
  mounts.unified = NULL;
  mounts.parsed = false;
}

static void
load_mounts (void)
{
  cleanup_free char *buf = NULL;
  shim_error_t tmp = NULL;
  char *line, *save = NULL;

  if (mounts.parsed)
    return;
  mounts.parsed = true;
  if (mounts.text)
    buf = strdup (mounts.text);
  else if (util_read_file_at (AT_FDCWD, "/proc/self/mountinfo", &buf, NULL, &tmp) < 0)
    {
      log_msg (LOG_DEBUG, "cgroup v1: %s", tmp->msg);
      shim_error_release (&tmp);
      return;
    }
  for (line = buf ? strtok_r (buf, "\n", &save) : NULL; line; line = strtok_r (NULL, "\n", &save))
    parse_line (line);
}

void
cgroup_v1_set_mountinfo (const char *mountinfo)
{
  forget_mounts ();
  free (mounts.text);
  mounts.text = mountinfo ? strdup (mountinfo) : NULL;
}

bool
cgroup_v1_present (void)
{
  load_mounts ();
  return mounts.n > 0;
}

int
cgroup_v1_proc_open (pid_t pid, const char *ctrl, int *fd, char **path, shim_error_t *err)
{
  cleanup_free char *buf = NULL, *p = NULL;
  cleanup_close int mfd = -1;
  const char *dir = NULL;
  char file[64];
  size_t i;

  *fd = -1;
  *path = NULL;
  load_mounts ();
  for (i = 0; dir == NULL && i < mounts.n; i++)
    if (list_has (mounts.m[i].ctrls, ctrl))
      dir = mounts.m[i].dir;
  if (dir == NULL)
    return 0;
  snprintf (file, sizeof file, "/proc/%lld/cgroup", (long long) pid);
  if (util_read_file_at (AT_FDCWD, file, &buf, NULL, err) < 0)
    return -1;
  if (cgroup_parse_proc_cgroup_v1 (buf, ctrl, &p, err) < 0)
    return shim_error_prefix (err, "%s", file);
  mfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (mfd < 0)
    return shim_error_errno (err, "open the cgroup v1 hierarchy `%s`", dir);
  *fd = openat (mfd, p[1] ? p + 1 : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*fd < 0)
    return shim_error_errno (err, "open cgroup `%s` in %s", p, ctrl);
  *path = steal_pointer (&p);
  return 0;
}

void
cgroup_v1_free (struct cgroup_v1 *v)
{
  size_t i;
  if (v == NULL)
    return;
  for (i = 0; i < v->n; i++)
    {
      if (v->h[i].dirfd >= 0)
        close (v->h[i].dirfd);
      if (v->h[i].mountfd >= 0)
        close (v->h[i].mountfd);
      free (v->h[i].ctrls);
      free (v->h[i].path);
    }
  free (v);
}

/* Every mounted hierarchy, opened, no container directory yet. */
static int
open_hierarchies (struct cgroup *cg, shim_error_t *err)
{
  size_t i;

  load_mounts ();
  cg->v1 = calloc (1, sizeof (*cg->v1));
  if (cg->v1 == NULL)
    return shim_error_errno (err, "cgroup v1");
  for (i = 0; i < mounts.n; i++)
    {
      struct cgroup_v1_dir *h = &cg->v1->h[cg->v1->n];
      h->dirfd = -1;
      h->ctrls = strdup (mounts.m[i].ctrls);
      if (h->ctrls == NULL)
        return shim_error_errno (err, "cgroup v1");
      cg->v1->n++;
      h->mountfd = open (mounts.m[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (h->mountfd < 0)
        return shim_error_errno (err, "open the cgroup v1 hierarchy `%s`", mounts.m[i].dir);
    }
  if (mounts.unified)
    {
      cg->mountfd = open (mounts.unified, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (cg->mountfd < 0)
        return shim_error_errno (err, "open the cgroup2 mount `%s`", mounts.unified);
    }
  return 0;
}

/* The container's cgroup in hierarchy H. */
static const char *
hpath (const struct cgroup *cg, const struct cgroup_v1_dir *h)
{
  return h->path ? h->path : cg->path;
}

/* A relative cgroupsPath, per hierarchy: h->path where it is not PATH, and
 * cg->v1_paths listing them. */
static int
resolve_paths (const struct cgroup_spec *spec, const char *path, struct cgroup *cg, shim_error_t *err)
{
  size_t i, len = 0;

  for (i = 0; i < cg->v1->n; i++)
    {
      struct cgroup_v1_dir *h = &cg->v1->h[i];
      cleanup_free char *ctrl = strndup (h->ctrls, strcspn (h->ctrls, ","));
      char *line;
      if (ctrl == NULL)
        return shim_error_errno (err, "cgroup v1");
      if (cgroup_path_for_v1 (spec->cgroups_path, spec->systemd, ctrl, &h->path, err) < 0)
        return -1;
      if (h->path && strcmp (h->path, path) == 0)
        {
          free (h->path);
          h->path = NULL;
        }
      if (h->path == NULL)
        continue;
      if (asprintf (&line, "%s%s %s\n", cg->v1_paths ? cg->v1_paths : "", h->ctrls, h->path) < 0)
        return shim_error_errno (err, "cgroup v1");
      free (cg->v1_paths);
      cg->v1_paths = line;
      len++;
    }
  if (len)
    log_msg (LOG_DEBUG, "cgroup v1: a relative cgroupsPath in %zu hierarchies elsewhere:\n%s", len, cg->v1_paths);
  return 0;
}

int
cgroup_v1_resolve (const struct cgroup_spec *spec, const char *path, struct cgroup *cg, shim_error_t *err)
{
  return open_hierarchies (cg, err) < 0 ? -1 : resolve_paths (spec, path, cg, err);
}

/* state.json keeps one created_depth, the deepest of the hierarchies, and
 * cg->v1_paths a line "=CTRLS N" for each hierarchy that made fewer: a
 * parent that was there before, a user's with its own limits, is not the
 * container's to remove.  Measured: cgroupsPath /p/ID with /p made before
 * in the memory hierarchy only, and delete removed /p there once empty.
 * The default path's /shim is the exception: shared by every container on
 * it, whoever made it, it is removed by the last one to go (cgroup.c). */
static int
record_depths (const struct cgroup_spec *spec, struct cgroup *cg, shim_error_t *err)
{
  if (cgroup_default_path (spec->cgroups_path) && !spec->systemd)
    return 0;
  for (size_t i = 0; i < cg->v1->n; i++)
    {
      struct cgroup_v1_dir *h = &cg->v1->h[i];
      char *line;
      if (h->created >= cg->created_depth)
        continue;
      if (asprintf (&line, "%s=%s %zu\n", cg->v1_paths ? cg->v1_paths : "", h->ctrls, h->created) < 0)
        return shim_error_errno (err, "cgroup v1");
      free (cg->v1_paths);
      cg->v1_paths = line;
      h->created_saved = true;
    }
  return 0;
}

/* cgroup.v1_paths again, into each hierarchy's h->path and created. */
static int
load_paths (struct cgroup *cg, shim_error_t *err)
{
  const char *line = cg->v1_paths;
  while (line && *line)
    {
      size_t n = strcspn (line, "\n"), i;
      bool depth = line[0] == '=';
      const char *name = line + depth;
      const char *sp = memchr (line, ' ', n);
      for (i = 0; sp && i < cg->v1->n; i++)
        {
          struct cgroup_v1_dir *h = &cg->v1->h[i];
          if (strlen (h->ctrls) != (size_t) (sp - name) || strncmp (h->ctrls, name, (size_t) (sp - name)) != 0)
            continue;
          if (depth)
            {
              h->created = strtoul (sp + 1, NULL, 10);
              h->created_saved = true;
              continue;
            }
          free (h->path);
          h->path = strndup (sp + 1, n - (size_t) (sp + 1 - line));
          if (h->path == NULL)
            return shim_error_errno (err, "cgroup v1");
        }
      line += n + (line[n] == '\n');
    }
  return 0;
}

static void
remove_made (struct cgroup *cg)
{
  shim_error_t tmp = NULL;
  size_t i;

  for (i = 0; cg->v1 && i < cg->v1->n; i++)
    if (cg->v1->h[i].created && cgroup_remove_path (cg->v1->h[i].mountfd, cg->v1->h[i].ctrls, hpath (cg, &cg->v1->h[i]),
                                             cg->v1->h[i].created, &tmp) < 0)
      log_error_release (&tmp);
  if (cg->mountfd >= 0 && cg->created)
    if (cgroup_remove_path (cg->mountfd, "cgroup2", cg->path, cg->created_depth, &tmp) < 0)
      log_error_release (&tmp);
}

/* The pure v1 host's stand-in for the unified cgroup: the memory hierarchy's
 * directory (else the first), so that dirfd still holds cgroup.procs. */
static int
pure_v1_dirfd (const struct cgroup *cg)
{
  int fd = cgroup_v1_dirfd (cg->v1, "memory");
  size_t i;
  for (i = 0; fd < 0 && i < cg->v1->n; i++)
    fd = cg->v1->h[i].dirfd;
  return fd;
}

static int
set_tracking_fds (struct cgroup *cg, shim_error_t *err)
{
  int fd;
  if (cg->mountfd >= 0 || cg->dirfd >= 0)
    return 0;
  fd = pure_v1_dirfd (cg);
  if (fd >= 0 && (cg->dirfd = fcntl (fd, F_DUPFD_CLOEXEC, 0)) < 0)
    return shim_error_errno (err, "cgroup `%s`", cg->path);
  return 0;
}

static int
v1_create (const struct cgroup_spec *spec, const char *path, struct cgroup *out, shim_error_t *err)
{
  cleanup_free char *why = NULL;
  size_t i, depth = 0;
  int ret = 0;

  out->path = strdup (path);
  if (out->path == NULL)
    return shim_error_errno (err, "cgroup path");
  if (cgroup_v1_resolve (spec, path, out, err) < 0)
    return -1;
  for (i = 0; ret == 0 && i < out->v1->n; i++)
    {
      struct cgroup_v1_dir *h = &out->v1->h[i];
      ret = cgroup_v1_make_path (h->mountfd, h->ctrls, hpath (out, h), list_has (h->ctrls, "cpuset"), &h->created, &h->dirfd,
                       err);
      if (ret == 0 && list_has (h->ctrls, "freezer"))
        ret = cgroup_v1_refuse_frozen (h->dirfd, hpath (out, h), err);
      if (h->created > depth)
        depth = h->created;
    }
  if (ret == 0 && out->mountfd >= 0)
    {
      size_t made = 0;
      ret = cgroup_v1_make_path (out->mountfd, "cgroup2", path, false, &made, &out->dirfd, err);
      out->created = made > 0;
      out->created_depth = made;
      if (made > depth)
        depth = made;
      if (ret == 0)
        ret = cgroup_refuse_frozen (out->dirfd, path, err);
    }
  if (ret == 0)
    ret = v1_apply_resources (out->v1, out->mountfd >= 0 ? out->dirfd : -1, spec->resources, spec->allow_unenforced,
                              &why, err);
  /* Delegation is cgroup2's: the unified cgroup is given to the owner (a
   * container with its own cgroup namespace can nest cgroups there); the
   * v1 directories stay root's, as the limits are the parent's. */
  if (ret == 0 && spec->owner != CGROUP_NO_OWNER && out->mountfd >= 0)
    ret = cgroup_delegate_to (out->dirfd, path, spec->owner, err);
  if (ret == 0)
    ret = set_tracking_fds (out, err);
  if (ret < 0)
    {
      out->created = out->created || depth > 0;
      remove_made (out);
      return -1;
    }
  out->created = depth > 0;
  out->created_depth = depth;
  if (record_depths (spec, out, err) < 0)
    {
      remove_made (out);
      return -1;
    }
  out->unenforced_reason = steal_pointer (&why);
  out->memory_limit_enforced = cgroup_v1_dirfd (out->v1, "memory") >= 0 && spec->resources->has_memory_limit
                               && spec->resources->memory_limit > 0;
  return 0;
}

static int
v1_open (struct cgroup *cg, shim_error_t *err)
{
  const char *rel = cg->path + (cg->path[0] == '/');
  size_t i;

  if (open_hierarchies (cg, err) < 0 || load_paths (cg, err) < 0)
    return -1;
  for (i = 0; i < cg->v1->n; i++)
    {
      struct cgroup_v1_dir *h = &cg->v1->h[i];
      const char *hrel = hpath (cg, h) + (hpath (cg, h)[0] == '/');
      if (!h->created_saved || h->created > cg->created_depth)
        h->created = cg->created_depth;
      h->dirfd = openat (h->mountfd, *hrel ? hrel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (h->dirfd < 0 && errno != ENOENT)
        return shim_error_errno (err, "open cgroup `%s` in %s", hpath (cg, h), h->ctrls);
    }
  if (cg->mountfd >= 0)
    {
      cg->dirfd = openat (cg->mountfd, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (cg->dirfd < 0 && errno != ENOENT)
        return shim_error_errno (err, "open cgroup `%s` in cgroup2", cg->path);
      return 0;
    }
  return set_tracking_fds (cg, err);
}

/* freezer.state to STATE ("FROZEN", "THAWED"), then re-read until the
 * kernel says it is there (FREEZING means some task has not stopped yet). */
static int
freezer_set (const struct cgroup *cg, int fd, const char *state, shim_error_t *err)
{
  long long deadline = util_monotonic_ms () + FREEZE_TIMEOUT_MS;

  if (util_write_file_at (fd, "freezer.state", state, strlen (state), err) < 0)
    return shim_error_prefix (err, "cgroup `%s` in freezer", cg->path);
  for (;;)
    {
      cleanup_free char *now = NULL;
      struct timespec ts = { 0, V1_POLL_MS * 1000000L };
      if (util_read_file_at (fd, "freezer.state", &now, NULL, err) < 0)
        return shim_error_prefix (err, "cgroup `%s` in freezer", cg->path);
      if (strncmp (now, state, strlen (state)) == 0)
        return 0;
      if (util_monotonic_ms () > deadline)
        {
          /* A pause that failed leaves the container running, not frozen
           * later behind the caller's back when the task comes out. */
          shim_error_t tmp = NULL;
          if (strcmp (state, "FROZEN") == 0)
            util_write_file_at (fd, "freezer.state", "THAWED", 6, &tmp);
          shim_error_release (&tmp);
          return shim_error_plain (err, ETIMEDOUT, "cgroup `%s` did not %s within %d s", cg->path,
                                   strcmp (state, "FROZEN") == 0 ? "freeze" : "thaw", FREEZE_TIMEOUT_MS / 1000);
        }
      nanosleep (&ts, NULL);
    }
}

static int
v1_freeze (struct cgroup *cg, bool frozen, shim_error_t *err)
{
  int fd = cgroup_v1_dirfd (cg->v1, "freezer");

  /* A hybrid host freezes through cgroup.freeze, as the v2 manager: its
   * "frozen 1" in cgroup.events is how `state` tells paused.  Not both
   * (measured on 6.18: tasks the v1 freezer stopped never reach the
   * cgroup2 freezer's trap, and cgroup.events never says frozen). */
  if (cg->mountfd >= 0 && cg->dirfd >= 0)
    return cgroup_v2_manager.freeze (cg, frozen, err);
  if (fd < 0)
    return shim_error_plain (err, ENOTSUP, "cgroup `%s`: no freezer hierarchy is mounted to %s it", cg->path,
                             frozen ? "pause" : "resume");
  return freezer_set (cg, fd, frozen ? "FROZEN" : "THAWED", err);
}

/* Without cgroup.kill: freeze, so that nothing forks behind the pass over
 * cgroup.procs, SIGKILL each task, thaw so that they die.  The pass is the
 * v2 manager's over the tasks' directory (a v1 one: no cgroup.kill in it,
 * so it signals each task). */
int
cgroup_v1_group_kill (int unified_fd, int freezer_fd, int tasks_fd, const char *path, shim_error_t *err)
{
  struct cgroup cg = { .path = (char *) path, .dirfd = unified_fd >= 0 ? unified_fd : tasks_fd, .mountfd = -1 };
  shim_error_t tmp = NULL;
  int ret;

  if (unified_fd >= 0 || freezer_fd < 0)
    return cgroup_v2_manager.signal_all (&cg, SIGKILL, err);
  if (freezer_set (&cg, freezer_fd, "FROZEN", err) < 0)
    return -1;
  ret = cgroup_v2_manager.signal_all (&cg, SIGKILL, err);
  if (freezer_set (&cg, freezer_fd, "THAWED", ret < 0 ? &tmp : err) < 0 && ret == 0)
    return -1;
  shim_error_release (&tmp);
  return ret;
}

static int
freezer_kill (struct cgroup *cg, shim_error_t *err)
{
  return cgroup_v1_group_kill (-1, cgroup_v1_dirfd (cg->v1, "freezer"), cg->dirfd, cg->path, err);
}

static int
v1_signal_all (struct cgroup *cg, int sig, shim_error_t *err)
{
  /* Hybrid: cgroup.kill or cgroup.procs of the unified cgroup; pure v1:
   * cgroup.procs of the memory hierarchy's, which holds the same tasks. */
  if (sig == SIGKILL && cg->mountfd < 0)
    return freezer_kill (cg, err);
  return cgroup_v2_manager.signal_all (cg, sig, err);
}

/* Whether a cgroup.procs text names a process that still exists (a pid
 * read just before the task left is not one). */
static bool
any_alive (char *procs)
{
  char *line, *save = NULL;
  for (line = strtok_r (procs, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      int64_t pid;
      if (util_parse_i64 (line, &pid) == 0 && pid > 0 && (kill ((pid_t) pid, 0) == 0 || errno != ESRCH))
        return true;
    }
  return false;
}

/* Until every hierarchy's cgroup.procs is empty (pure v1: no cgroup.events
 * to wait on). */
static int
wait_empty_v1 (const struct cgroup *cg, shim_error_t *err)
{
  long long deadline = util_monotonic_ms () + DESTROY_TIMEOUT_MS;
  for (;;)
    {
      size_t i;
      bool empty = true;
      struct timespec ts = { 0, V1_POLL_MS * 1000000L };
      for (i = 0; empty && i < cg->v1->n; i++)
        {
          cleanup_free char *procs = NULL;
          if (cg->v1->h[i].dirfd < 0)
            continue;
          if (util_read_file_at (cg->v1->h[i].dirfd, "cgroup.procs", &procs, NULL, err) < 0)
            return shim_error_prefix (err, "cgroup `%s` in %s", hpath (cg, &cg->v1->h[i]), cg->v1->h[i].ctrls);
          empty = !any_alive (procs);
        }
      if (empty)
        return 0;
      if (util_monotonic_ms () > deadline)
        return shim_error_plain (err, EBUSY, "cgroup `%s` still has processes %d ms after the kill", cg->path,
                                 DESTROY_TIMEOUT_MS);
      nanosleep (&ts, NULL);
    }
}

static int
v1_destroy (struct cgroup *cg, shim_error_t *err)
{
  size_t i;

  if (cg->mountfd >= 0 && cg->dirfd >= 0)
    {
      /* cgroup.kill, the wait on cgroup.events, the unified directory.
       * Gone under us (ENOENT): another destroy removed it (`run` and a
       * `delete --force` race), and cgroup2 removes only an empty cgroup,
       * so the tasks are gone too: on to the v1 directories. */
      shim_error_t tmp = NULL;
      if (cgroup_v2_manager.destroy (cg, &tmp) < 0)
        {
          if (tmp->status != ENOENT)
            {
              shim_error_take (err, &tmp);
              return -1;
            }
          shim_error_release (&tmp);
        }
    }
  else if (freezer_kill (cg, err) < 0 || wait_empty_v1 (cg, err) < 0)
    return -1;
  if (!cg->created)
    return 0;
  for (i = 0; i < cg->v1->n; i++)
    {
      struct cgroup_v1_dir *h = &cg->v1->h[i];
      if (h->dirfd < 0)
        continue;
      /* What this hierarchy made where record_depths kept it, never a
       * parent that was there before; else created_depth: the shared /shim
       * is removed by the last container to go, whoever made it. */
      if (cgroup_remove_path (h->mountfd, h->ctrls, hpath (cg, h), h->created_saved ? h->created : cg->created_depth,
                              err) < 0)
        return -1;
      close (h->dirfd);
      h->dirfd = -1;
    }
  return 0;
}

static int
v1_update (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err)
{
  /* As at create, and with no --allow-unenforced-limits: a limit that
   * cannot be enforced is an error, never a silent success. */
  return v1_apply_resources (cg->v1, cg->mountfd >= 0 ? cg->dirfd : -1, r, false, NULL, err);
}

static int
v1_snapshot (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err)
{
  int mem = cgroup_v1_dirfd (cg->v1, "memory");
  int unified = cg->mountfd >= 0 ? cg->dirfd : -1;

  if (mem < 0)
    return unified >= 0 ? cg_snapshot_read (unified, out, err) : (memset (out, 0, sizeof *out), 0);
  return cgroup_v1_snapshot_read (mem, unified, out, NULL, err);
}

const struct cgroup_manager cgroup_v1_manager = {
  .name = "cgroupfs v1",
  .create = v1_create,
  .open = v1_open,
  .update = v1_update,
  .freeze = v1_freeze,
  .signal_all = v1_signal_all,
  .destroy = v1_destroy,
  .snapshot = v1_snapshot,
};
