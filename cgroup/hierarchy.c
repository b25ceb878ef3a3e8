/* SPDX-License-Identifier: Apache-2.0 */
/* What every manager shares, and nothing that chooses one: where the
 * cgroup2 hierarchy is, the paths (cgroupfs and systemd
 * slice:prefix:name), /proc/PID/cgroup, and which controllers
 * linux.resources needs. */
#include "cgroup/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/log.h"
#include "common/util.h"

const char *
cgroup_mount_point (void)
{
  static const char *const candidates[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
  static const char *found;
  static bool probed;
  size_t i;

  if (probed)
    return found;
  probed = true;
  for (i = 0; i < sizeof (candidates) / sizeof (candidates[0]); i++)
    {
      struct statfs s;
      if (statfs (candidates[i], &s) == 0 && s.f_type == CGROUP2_SUPER_MAGIC)
        return found = candidates[i];
    }
  return NULL;
}

int
cgroup_open_mount (struct cgroup *cg, shim_error_t *err)
{
  const char *mp = cgroup_mount_point ();

  if (mp == NULL)
    return shim_error_plain (err, ENOENT, "no cgroup2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified");
  cg->mountfd = open (mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg->mountfd < 0)
    return shim_error_errno (err, "open the cgroup2 mount `%s`", mp);
  return 0;
}

/* Whether the comma-separated OPTS (LEN bytes) holds OPT. */
static bool
has_option (const char *opts, size_t len, const char *opt)
{
  size_t n = strlen (opt);
  const char *p = opts, *end = opts + len;

  while (p < end)
    {
      const char *comma = memchr (p, ',', (size_t) (end - p));
      const char *e = comma ? comma : end;
      if ((size_t) (e - p) == n && memcmp (p, opt, n) == 0)
        return true;
      p = e + 1;
    }
  return false;
}

/* A mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTS [OPTIONAL...]
 * - FSTYPE SOURCE SUPER_OPTS" (proc(5)).  The cgroup2 options are the
 * super block's, so they are the last field. */
int
cgroup_parse_mountinfo_localevents (const char *buf, const char *mount_point, bool *on)
{
  const char *line = buf;

  while (line && *line)
    {
      const char *end = strchrnul (line, '\n');
      const char *sep = memmem (line, (size_t) (end - line), " - cgroup2 ", 11);
      const char *mp = line;
      int field;

      /* The mount point is the fifth field. */
      for (field = 0; field < 4 && mp && mp < end; field++)
        {
          mp = memchr (mp, ' ', (size_t) (end - mp));
          mp = mp ? mp + 1 : NULL;
        }
      if (sep && mp && mp < sep)
        {
          const char *mp_end = memchr (mp, ' ', (size_t) (end - mp));
          const char *opts = memrchr (sep, ' ', (size_t) (end - sep));
          if (mp_end
              && (mount_point == NULL
                  || ((size_t) (mp_end - mp) == strlen (mount_point)
                      && memcmp (mp, mount_point, (size_t) (mp_end - mp)) == 0)))
            {
              *on = has_option (opts + 1, (size_t) (end - opts - 1), "memory_localevents");
              return 1;
            }
        }
      line = *end ? end + 1 : NULL;
    }
  return 0;
}

int
cgroup_mount_localevents (bool *on)
{
  static int known = -1; /* -1: not read yet; 0: unknown; 1: known */
  static bool value;

  if (known < 0)
    {
      cleanup_free char *buf = NULL;
      shim_error_t tmp = NULL;

      known = 0;
      if (util_read_file_at (AT_FDCWD, "/proc/self/mountinfo", &buf, NULL, &tmp) < 0)
        shim_error_release (&tmp);
      else if (cgroup_mount_point () != NULL)
        known = cgroup_parse_mountinfo_localevents (buf, cgroup_mount_point (), &value);
    }
  *on = value;
  return known == 1 ? 0 : -1;
}

/* The path part of a /proc/PID/cgroup line, refused as the header says. */
static int
checked_path (const char *start, size_t len, char **path, shim_error_t *err)
{
  cleanup_free char *p = strndup (start, len);
  size_t plen;
  if (p == NULL)
    return shim_error_errno (err, "cgroup path");
  plen = strlen (p);
  if (p[0] != '/')
    return shim_error_plain (err, EINVAL, "`%s` is not an absolute path", p);
  if (strcmp (p, "/..") == 0 || strncmp (p, "/../", 4) == 0 || strstr (p, "/../")
      || (plen >= 3 && strcmp (p + plen - 3, "/..") == 0))
    return shim_error_plain (err, EXDEV, "`%s` is outside this cgroup namespace", p);
  if (plen >= 10 && strcmp (p + plen - 10, " (deleted)") == 0)
    return shim_error_plain (err, ENOENT, "the cgroup `%s` was removed", p);
  *path = steal_pointer (&p);
  return 0;
}

int
cgroup_parse_proc_cgroup (const char *buf, char **path, shim_error_t *err)
{
  const char *line = buf;

  *path = NULL;
  while (line && *line)
    {
      const char *end = strchrnul (line, '\n');
      size_t len = (size_t) (end - line);

      if (len >= 3 && strncmp (line, "0::", 3) == 0)
        return checked_path (line + 3, len - 3, path, err);
      line = *end ? end + 1 : NULL;
    }
  return shim_error_plain (err, ENOENT, "no cgroup v2 line (`0::`)");
}

int
cgroup_parse_proc_cgroup_v1 (const char *buf, const char *ctrl, char **path, shim_error_t *err)
{
  const char *line = buf;
  size_t n = strlen (ctrl);

  *path = NULL;
  while (line && *line)
    {
      const char *end = strchrnul (line, '\n');
      const char *list = memchr (line, ':', (size_t) (end - line));
      const char *colon = list ? memchr (list + 1, ':', (size_t) (end - list - 1)) : NULL;

      /* "N:cpu,cpuacct:/path": the hierarchy whose list names CTRL. */
      if (colon)
        for (const char *c = list + 1; c < colon;)
          {
            size_t len = strcspn (c, ",:");
            if (len == n && strncmp (c, ctrl, n) == 0)
              return checked_path (colon + 1, (size_t) (end - colon - 1), path, err);
            c += len + 1;
          }
      line = *end ? end + 1 : NULL;
    }
  return shim_error_plain (err, ENOENT, "no cgroup v1 line for the `%s` controller", ctrl);
}

int
cgroup_proc_path (pid_t pid, char **path, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  char file[64];

  if (pid == 0)
    snprintf (file, sizeof file, "/proc/self/cgroup");
  else
    snprintf (file, sizeof file, "/proc/%lld/cgroup", (long long) pid);
  if (util_read_file_at (AT_FDCWD, file, &buf, NULL, err) < 0)
    return -1;
  if (cgroup_parse_proc_cgroup (buf, path, err) < 0)
    return shim_error_prefix (err, "%s", file);
  return 0;
}

/* The runtime's own cgroup: the unified hierarchy's, else (pure v1) the
 * memory hierarchy's. */
static int
own_path (char **path, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  if (util_read_file_at (AT_FDCWD, "/proc/self/cgroup", &buf, NULL, err) < 0)
    return -1;
  if (strncmp (buf, "0::", 3) != 0 && strstr (buf, "\n0::") == NULL)
    {
      if (cgroup_parse_proc_cgroup_v1 (buf, "memory", path, err) < 0)
        return shim_error_prefix (err, "/proc/self/cgroup");
      return 0;
    }
  if (cgroup_parse_proc_cgroup (buf, path, err) < 0)
    return shim_error_prefix (err, "/proc/self/cgroup");
  return 0;
}

/* "a-b.slice" lives at "/a.slice/a-b.slice" (systemd.slice(5)). */
static int
expand_slice (const char *slice, char **out, shim_error_t *err)
{
  size_t len = strlen (slice), i;
  cleanup_free char *path = NULL;

  if (strcmp (slice, "-.slice") == 0)
    return (*out = strdup ("")) ? 0 : shim_error_errno (err, "cgroupsPath");
  if (len < 7 || strcmp (slice + len - 6, ".slice") != 0 || strchr (slice, '/'))
    return shim_error_plain (err, EINVAL, "linux.cgroupsPath: `%s` is not a systemd slice name", slice);
  for (i = 0; i < len - 6; i++)
    if (slice[i] == '-')
      {
        char *n = NULL;
        if (i == 0 || slice[i - 1] == '-' || slice[i + 1] == '.')
          return shim_error_plain (err, EINVAL, "linux.cgroupsPath: `%s` is not a systemd slice name",
                                   slice);
        if (asprintf (&n, "%s/%.*s.slice", path ? path : "", (int) i, slice) < 0)
          return shim_error_errno (err, "cgroupsPath");
        free (path);
        path = n;
      }
  {
    char *n = NULL;
    if (asprintf (&n, "%s/%s", path ? path : "", slice) < 0)
      return shim_error_errno (err, "cgroupsPath");
    *out = n;
  }
  return 0;
}

int
cgroup_path_for_v1 (const char *cgroups_path, bool systemd, const char *ctrl, char **out, shim_error_t *err)
{
  cleanup_free char *buf = NULL, *own = NULL;
  shim_error_t tmp = NULL;

  *out = NULL;
  if (cgroups_path == NULL || *cgroups_path == '\0' || systemd || cgroups_path[0] == '/')
    return 0;
  if (util_read_file_at (AT_FDCWD, "/proc/self/cgroup", &buf, NULL, err) < 0)
    return -1;
  if (cgroup_parse_proc_cgroup_v1 (buf, ctrl, &own, &tmp) < 0)
    {
      /* No line for it (not the runtime's hierarchy): the one path. */
      if (tmp->status == ENOENT)
        {
          shim_error_release (&tmp);
          return 0;
        }
      shim_error_take (err, &tmp);
      return shim_error_prefix (err, "/proc/self/cgroup");
    }
  if (asprintf (out, "%s/%s", strcmp (own, "/") ? own : "", cgroups_path) < 0)
    {
      *out = NULL;
      return shim_error_errno (err, "cgroupsPath");
    }
  return 0;
}

int
cgroup_path_for (const char *cgroups_path, bool systemd, const char *id, char **out, shim_error_t *err)
{
  cleanup_free char *path = NULL;

  /* No cgroupsPath: /shim/ID; with --systemd-cgroup, runc's default
   * system.slice:runc:ID with shim's name, a scope systemd can make. */
  if ((cgroups_path == NULL || *cgroups_path == '\0') && systemd)
    {
      if (asprintf (&path, "/system.slice/shim-%s.scope", id) < 0)
        return shim_error_errno (err, "cgroup path");
    }
  else if (cgroups_path == NULL || *cgroups_path == '\0')
    {
      if (asprintf (&path, "/shim/%s", id) < 0)
        return shim_error_errno (err, "cgroup path");
    }
  else if (systemd)
    {
      /* slice:prefix:name, mapped where systemd would put the scope. */
      cleanup_free char *copy = strdup (cgroups_path);
      cleanup_free char *slice_path = NULL;
      char *slice, *prefix, *name;

      if (copy == NULL)
        return shim_error_errno (err, "cgroupsPath");
      slice = copy;
      prefix = strchr (slice, ':');
      name = prefix ? strchr (prefix + 1, ':') : NULL;
      if (name == NULL || strchr (name + 1, ':'))
        return shim_error_plain (err, EINVAL, "linux.cgroupsPath: `%s` is not slice:prefix:name (--systemd-cgroup)",
                                 cgroups_path);
      *prefix++ = '\0';
      *name++ = '\0';
      if (expand_slice (*slice ? slice : "system.slice", &slice_path, err) < 0)
        return -1;
      if (*name == '\0' || strchr (name, '/'))
        return shim_error_plain (err, EINVAL, "linux.cgroupsPath: `%s`: bad unit name", cgroups_path);
      if (strlen (name) > 6 && strcmp (name + strlen (name) - 6, ".slice") == 0)
        {
          cleanup_free char *sub = NULL;
          if (expand_slice (name, &sub, err) < 0)
            return -1;
          path = strdup (sub);
        }
      else if (asprintf (&path, "%s/%s%s%s.scope", slice_path, prefix, *prefix ? "-" : "", name) < 0)
        path = NULL;
      if (path == NULL)
        return shim_error_errno (err, "cgroupsPath");
    }
  else if (cgroups_path[0] == '/')
    path = strdup (cgroups_path);
  else
    {
      /* Relative: under the runtime's own cgroup, as runc does; on a pure
       * v1 host (no `0::` line) its memory cgroup, where the limits are. */
      cleanup_free char *own = NULL;
      if (own_path (&own, err) < 0)
        return -1;
      if (asprintf (&path, "%s/%s", strcmp (own, "/") ? own : "", cgroups_path) < 0)
        path = NULL;
    }
  if (path == NULL)
    return shim_error_errno (err, "cgroupsPath");
  if (strstr (path, "/../") || (strlen (path) >= 3 && strcmp (path + strlen (path) - 3, "/..") == 0)
      || strstr (path, "/./"))
    return shim_error_plain (err, EINVAL, "linux.cgroupsPath: `%s` must not contain `.` or `..`", path);
  *out = steal_pointer (&path);
  return 0;
}

unsigned long long
cgroup_cpu_shares_to_weight (unsigned long long shares)
{
  /* Maps [2, 262144] onto [1, 10000] linearly; 0 means unset. */
  if (shares == 0)
    return 0;
  return 1 + ((shares - 2) * 9999) / 262142;
}

uint64_t
cgroup_blkio_weight_to_io (uint64_t weight)
{
  /* blkio's [10, 1000] onto io.weight's [1, 10000], as runc converts it;
   * 0 means unset (the config refuses anything else outside 10..1000). */
  if (weight < 10)
    return weight == 0 ? 0 : 1;
  return 1 + (weight - 10) * 9999 / 990;
}

const char *const cgroup_ctrl_names[CGROUP_N_CTRL] = { "memory", "pids", "cpu", "cpuset", "io", "hugetlb" };

bool
cgroup_key_is_ctrl (const char *key, size_t i)
{
  size_t n = strlen (cgroup_ctrl_names[i]);
  return strncmp (key, cgroup_ctrl_names[i], n) == 0 && key[n] == '.';
}

unsigned
cgroup_required_controllers (const struct cgroup_resources *r)
{
  unsigned m = 0;
  size_t i, j;
  if (r->has_memory_limit || r->has_memory_reservation || r->has_memory_swap)
    m |= CGROUP_CTRL_MEMORY;
  if (r->has_pids_limit && r->pids_limit > 0)
    m |= CGROUP_CTRL_PIDS;
  if (r->has_cpu_shares || r->has_cpu_quota || r->has_cpu_period || r->has_cpu_rt_runtime || r->has_cpu_rt_period)
    m |= CGROUP_CTRL_CPU;
  if (r->cpu_cpus || r->cpu_mems)
    m |= CGROUP_CTRL_CPUSET;
  if (r->has_blkio_weight || r->n_blkio_devices)
    m |= CGROUP_CTRL_IO;
  if (r->n_hugepages)
    m |= CGROUP_CTRL_HUGETLB;
  for (i = 0; i < r->n_unified; i++)
    for (j = 0; j < CGROUP_N_CTRL; j++)
      if (cgroup_key_is_ctrl (r->unified[i].key, j))
        m |= 1u << j;
  return m;
}

const char *
cgroup_first_ctrl (unsigned mask)
{
  size_t i;
  for (i = 0; i < CGROUP_N_CTRL; i++)
    if (mask & (1u << i))
      return cgroup_ctrl_names[i];
  return "?";
}

/* The directory and the files the kernel lists as safe to delegate
 * (/sys/kernel/cgroup/delegate; cgroup.procs, cgroup.threads and
 * cgroup.subtree_control before 4.15), the group left as it is, as runc
 * does.  The controllers' own files stay root's: they are the parent's
 * limits on the container. */
int
cgroup_delegate_to (int dirfd, const char *path, uid_t owner, shim_error_t *err)
{
  cleanup_free char *list = NULL;
  shim_error_t tmp = NULL;
  char *name, *save = NULL;

  if (fchown (dirfd, owner, (gid_t) -1) < 0)
    return shim_error_errno (err, "cgroup `%s`: give it to uid %u (user namespace, read-write /sys/fs/cgroup)",
                             path, (unsigned) owner);
  if (util_read_file_at (AT_FDCWD, "/sys/kernel/cgroup/delegate", &list, NULL, &tmp) < 0)
    {
      shim_error_release (&tmp);
      list = strdup ("cgroup.procs cgroup.threads cgroup.subtree_control");
      if (list == NULL)
        return shim_error_errno (err, "cgroup `%s`", path);
    }
  for (name = strtok_r (list, " \t\n", &save); name; name = strtok_r (NULL, " \t\n", &save))
    if (strchr (name, '/') == NULL && fchownat (dirfd, name, owner, (gid_t) -1, AT_SYMLINK_NOFOLLOW) < 0
        && errno != ENOENT)
      return shim_error_errno (err, "cgroup `%s`: give `%s` to uid %u", path, name, (unsigned) owner);
  log_msg (LOG_DEBUG, "cgroup `%s` delegated to uid %u", path, (unsigned) owner);
  return 0;
}

int
cgroup_walk_children (int dirfd, const char *path, int depth, cgroup_child_fn fn, void *arg, shim_error_t *err)
{
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  int fd;

  if (depth > 64)
    return shim_error_plain (err, ELOOP, "cgroup `%s`: nested too deeply", path);
  fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (d = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      return shim_error_errno (err, "read cgroup `%s`", path);
    }
  while ((de = readdir (d)))
    {
      cleanup_close int child = -1;
      cleanup_free char *cpath = NULL;
      if (de->d_type != DT_DIR || strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      /* Removed under us: nothing left in it to walk. */
      child = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child < 0 && errno == ENOENT)
        continue;
      if (asprintf (&cpath, "%s/%s", path, de->d_name) < 0)
        return shim_error_errno (err, "cgroup `%s`", path);
      if (child < 0)
        return shim_error_errno (err, "open cgroup `%s`", cpath);
      if (fn (dirfd, de->d_name, child, cpath, depth + 1, arg, err) < 0)
        return -1;
    }
  return 0;
}

/* cgroup_remove_descendants' step: CHILD's own descendants, then CHILD. */
static int
remove_child (int dirfd, const char *name, int child, const char *cpath, int depth, void *arg, shim_error_t *err)
{
  if (cgroup_walk_children (child, cpath, depth, remove_child, arg, err) < 0)
    return -1;
  if (unlinkat (dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return shim_error_errno (err, "remove cgroup `%s`", cpath);
  return 0;
}

int
cgroup_remove_descendants (int dirfd, const char *path, int depth, shim_error_t *err)
{
  return cgroup_walk_children (dirfd, path, depth, remove_child, NULL, err);
}

/* Removing a cgroup whose last task was just killed: v1 counts the task
 * for a moment longer and tells nobody when it stops (no cgroup.events). */
#define REMOVE_TIMEOUT_MS 5000
#define REMOVE_RETRY_MS 10

int
cgroup_remove_path (int mountfd, const char *where, const char *path, size_t depth, shim_error_t *err)
{
  cleanup_free char *p = strdup (path);
  cleanup_close int leaf = -1;
  long long deadline = util_monotonic_ms () + REMOVE_TIMEOUT_MS;
  const char *rel;
  bool gone;
  size_t i;

  if (p == NULL)
    return shim_error_errno (err, "cgroup `%s`", path);
  rel = p + (p[0] == '/');
  /* Most containers make no cgroups below their own: the removal is tried
   * first, and the tree walked only when the kernel refuses (EBUSY: a
   * child cgroup, or a task still counted). */
  gone = unlinkat (mountfd, rel, AT_REMOVEDIR) == 0;
  if (!gone && errno == EBUSY)
    {
      leaf = openat (mountfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (leaf >= 0 && cgroup_remove_descendants (leaf, path, 0, err) < 0)
        return shim_error_prefix (err, "in %s", where);
    }
  while (!gone && unlinkat (mountfd, rel, AT_REMOVEDIR) < 0)
    {
      struct timespec ts = { 0, REMOVE_RETRY_MS * 1000000L };
      if (errno == ENOENT)
        break;
      if (errno != EBUSY || util_monotonic_ms () > deadline)
        return shim_error_errno (err, "remove cgroup `%s` in %s", path, where);
      nanosleep (&ts, NULL);
    }
  for (i = 1; i < depth; i++)
    {
      char *slash = strrchr (p, '/');
      if (slash == NULL || slash == p)
        break;
      *slash = '\0';
      if (unlinkat (mountfd, p + (p[0] == '/'), AT_REMOVEDIR) < 0)
        {
          if (errno != ENOTEMPTY && errno != EBUSY && errno != ENOENT)
            log_msg (LOG_WARNING, "cgroup `%s` in %s could not be removed: %s", p, where, strerror (errno));
          break;
        }
    }
  return 0;
}

bool
cgroup_default_path (const char *cgroups_path)
{
  return cgroups_path == NULL || *cgroups_path == '\0';
}
