/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup v1 memory files the verdict reads, mapped onto the v2
 * snapshot (struct cg_snapshot) so that one set of rules judges both; and
 * the v1 OOM notification (an eventfd through cgroup.event_control).
 *
 * v1's counters are the cgroup's own: memory.oom_control's oom_kill counts
 * kills of tasks in this very cgroup, memory.failcnt the times its own limit
 * was hit.  A kill in a nested cgroup the container made (under its own
 * limit) is not in the container's counters, so only events_local is
 * filled; `events` (v2's hierarchical memory.events) stays absent, and the
 * verdict must say it does not know rather than read 0 as "none".  The
 * usage figures (max_usage_in_bytes, memory.stat's total_*) do include
 * descendants. */
#include "cgroup/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/util.h"

/* 0 and *buf, 1 missing (ENOENT), -1 other errors. */
static int
read_optional (int dirfd, const char *name, char **buf, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  if (util_read_file_at (dirfd, name, buf, NULL, &tmp) == 0)
    return 0;
  if (tmp->status == ENOENT)
    {
      shim_error_release (&tmp);
      return 1;
    }
  shim_error_take (err, &tmp);
  return -1;
}

/* "key value" lines: the value of KEY into *out; false when absent.  A
 * malformed value of a key asked for is an error. */
static int
keyed (const char *name, const char *buf, const char *key, uint64_t *out, bool *found, shim_error_t *err)
{
  size_t klen = strlen (key);
  const char *p = buf;

  *found = false;
  while (p && *p)
    {
      const char *nl = strchrnul (p, '\n');
      if ((size_t) (nl - p) > klen && strncmp (p, key, klen) == 0 && p[klen] == ' ')
        {
          char num[32];
          size_t n = (size_t) (nl - p) - klen - 1;
          if (n == 0 || n >= sizeof num)
            return shim_error (err, 0, "`%s`: `%s` has no value", name, key);
          memcpy (num, p + klen + 1, n);
          num[n] = '\0';
          if (util_parse_u64 (num, out) < 0)
            return shim_error (err, 0, "`%s`: `%s` value `%s` is not a number", name, key, num);
          *found = true;
          return 0;
        }
      p = *nl ? nl + 1 : NULL;
    }
  return 0;
}

static int
one_number (int dirfd, const char *name, uint64_t *out, bool *found, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  int r = read_optional (dirfd, name, &buf, err);
  *found = false;
  if (r != 0)
    return r < 0 ? -1 : 0;
  if (util_parse_u64 (buf, out) < 0)
    return shim_error (err, 0, "`%s`: not a number", name);
  *found = true;
  return 0;
}

static int
read_oom_control (int fd, struct cg_snapshot *out, struct cgroup_v1_oom *oom, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  uint64_t v;
  bool found;
  int r = read_optional (fd, "memory.oom_control", &buf, err);

  if (r != 0)
    return r < 0 ? -1 : 0;
  oom->have = true;
  if (keyed ("memory.oom_control", buf, "oom_kill_disable", &v, &found, err) < 0)
    return -1;
  oom->oom_kill_disable = found && v;
  if (keyed ("memory.oom_control", buf, "under_oom", &v, &found, err) < 0)
    return -1;
  oom->under_oom = found && v;
  /* oom_kill appeared in 4.13. */
  if (keyed ("memory.oom_control", buf, "oom_kill", &out->events_local.oom_kill, &found, err) < 0)
    return -1;
  if (found)
    {
      out->events_local.have |= CG_EV_OOM_KILL;
      out->have |= CG_SNAP_EVENTS_LOCAL;
    }
  return 0;
}

static int
read_stat (int fd, struct cg_snapshot *out, shim_error_t *err)
{
  static const struct
  {
    const char *key;
    unsigned bit;
    size_t off;
  } keys[] = {
    { "total_rss", CG_STAT_ANON, offsetof (struct cg_memory_stat, anon) },
    { "total_cache", CG_STAT_FILE, offsetof (struct cg_memory_stat, file) },
    { "total_shmem", CG_STAT_SHMEM, offsetof (struct cg_memory_stat, shmem) },
    { "total_mapped_file", CG_STAT_FILE_MAPPED, offsetof (struct cg_memory_stat, file_mapped) },
    { "total_rss_huge", CG_STAT_ANON_THP, offsetof (struct cg_memory_stat, anon_thp) },
  };
  cleanup_free char *buf = NULL;
  size_t i;
  int r = read_optional (fd, "memory.stat", &buf, err);

  if (r != 0)
    return r < 0 ? -1 : 0;
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
    {
      bool found;
      if (keyed ("memory.stat", buf, keys[i].key, (uint64_t *) ((char *) &out->stat + keys[i].off), &found, err) < 0)
        return -1;
      if (found)
        out->stat.have |= keys[i].bit;
    }
  out->have |= CG_SNAP_STAT;
  return 0;
}

static uint64_t
v1_limit (uint64_t v)
{
  return v >= CGROUP_V1_UNLIMITED_FROM ? CG_UNLIMITED : v;
}

/* Whether the memory cgroup has a subdirectory (a nested cgroup): v1
 * counters count only the cgroup's own tasks, so kills in one are invisible.
 * Unreadable: assume there is one (the verdict then says null, not false).
 * kernfs gives a directory 2 + its subdirectories as its link count, so SB
 * (its fstat, or NULL) answers without reading the directory. */
static bool
has_subdir (int dirfd, const struct stat *sb)
{
  struct dirent *e;
  bool found = false;
  int fd;
  DIR *d;

  if (sb && sb->st_nlink >= 2)
    return sb->st_nlink > 2;
  fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  d = fd >= 0 ? fdopendir (fd) : NULL;
  if (d == NULL)
    {
      if (fd >= 0)
        close (fd);
      return true;
    }
  while (!found && (e = readdir (d)) != NULL)
    found = e->d_type == DT_DIR && strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
  closedir (d);
  return found;
}

int
cgroup_v1_snapshot_read (int memory_dirfd, int unified_dirfd, struct cg_snapshot *out, struct cgroup_v1_oom *oom,
                         shim_error_t *err)
{
  struct cgroup_v1_oom ignored;
  struct stat sb;
  uint64_t v, memsw;
  bool found, have_memsw;

  memset (out, 0, sizeof *out);
  if (oom == NULL)
    oom = &ignored;
  memset (oom, 0, sizeof *oom);
  /* cgroup.events first, as on v2 (cg_snapshot_read): counters read
   * after an empty cgroup.events are final, not those read before. */
  if (unified_dirfd >= 0)
    {
      cleanup_free char *buf = NULL;
      int r = read_optional (unified_dirfd, "cgroup.events", &buf, err);
      if (r < 0)
        return -1;
      if (r == 0)
        {
          if (cg_parse_cgroup_events ("cgroup.events", buf, &out->cgroup_events, err) < 0)
            return -1;
          out->have |= CG_SNAP_CGROUP_EVENTS;
        }
    }
  if (read_oom_control (memory_dirfd, out, oom, err) < 0)
    return -1;
  if (one_number (memory_dirfd, "memory.failcnt", &out->events_local.max, &found, err) < 0)
    return -1;
  if (found)
    {
      out->events_local.have |= CG_EV_MAX;
      out->have |= CG_SNAP_EVENTS_LOCAL;
    }
  if (one_number (memory_dirfd, "memory.max_usage_in_bytes", &out->memory_peak, &found, err) < 0)
    return -1;
  if (found)
    out->have |= CG_SNAP_PEAK;
  if (one_number (memory_dirfd, "memory.limit_in_bytes", &v, &found, err) < 0)
    return -1;
  if (found)
    {
      out->memory_max = v1_limit (v);
      out->have |= CG_SNAP_MAX;
    }
  if (one_number (memory_dirfd, "memory.memsw.limit_in_bytes", &memsw, &have_memsw, err) < 0)
    return -1;
  if (found && have_memsw)
    {
      /* v2's swap.max is swap alone; v1's memsw is memory + swap. */
      if (v1_limit (memsw) == CG_UNLIMITED)
        out->memory_swap_max = CG_UNLIMITED;
      else
        out->memory_swap_max = memsw > v ? memsw - v : 0;
      out->have |= CG_SNAP_SWAP_MAX;
    }
  if (read_stat (memory_dirfd, out, err) < 0)
    return -1;
  if (fstat (memory_dirfd, &sb) == 0)
    {
      out->cgroup_id = (uint64_t) sb.st_ino;
      out->have |= CG_SNAP_ID;
    }
  if (out->have & CG_SNAP_EVENTS_LOCAL)
    {
      out->have |= CG_SNAP_V1;
      out->v1_nested = has_subdir (memory_dirfd, (out->have & CG_SNAP_ID) ? &sb : NULL);
    }
  return 0;
}

int
cgroup_v1_oom_eventfd (int memory_dirfd, shim_error_t *err)
{
  cleanup_close int efd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  cleanup_close int ofd = -1;
  char buf[64];

  if (efd < 0)
    return shim_error_errno (err, "eventfd");
  ofd = openat (memory_dirfd, "memory.oom_control", O_RDONLY | O_CLOEXEC);
  if (ofd < 0)
    return shim_error_errno (err, "open `memory.oom_control`");
  /* "<event_fd> <fd of the file to watch>" (cgroup-v1/memory.rst, 11): the
   * kernel keeps its own reference, ofd may be closed after. */
  snprintf (buf, sizeof buf, "%d %d", efd, ofd);
  if (util_write_file_at (memory_dirfd, "cgroup.event_control", buf, strlen (buf), err) < 0)
    return shim_error_prefix (err, "register for OOM events");
  return steal_fd (&efd);
}

int
cgroup_v1_counters_open (int memory_dirfd, struct cgroup_v1_counter_fds *fds, shim_error_t *err)
{
  struct
  {
    int *fd;
    const char *name;
  } f[] = { { &fds->oom_control, "memory.oom_control" },
            { &fds->failcnt, "memory.failcnt" },
            { &fds->max_usage, "memory.max_usage_in_bytes" } };

  *fds = (struct cgroup_v1_counter_fds) CGROUP_V1_COUNTER_FDS_INIT;
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    {
      *f[i].fd = openat (memory_dirfd, f[i].name, O_RDONLY | O_CLOEXEC);
      if (*f[i].fd < 0 && errno != ENOENT)
        {
          shim_error_errno (err, "open `%s`", f[i].name);
          cgroup_v1_counters_close (fds);
          return -1;
        }
    }
  return 0;
}

/* One open file's text, NUL-terminated: false when it cannot be read. */
static bool
pread_text (int fd, char *buf, size_t size)
{
  ssize_t n = fd >= 0 ? pread (fd, buf, size - 1, 0) : -1;
  if (n < 0)
    return false;
  buf[n] = '\0';
  return true;
}

int
cgroup_v1_counters_pread (const struct cgroup_v1_counter_fds *fds, struct cg_snapshot *out,
                          shim_error_t *err)
{
  char buf[512];
  uint64_t v;
  bool found, any = false;

  if (pread_text (fds->oom_control, buf, sizeof buf))
    {
      if (keyed ("memory.oom_control", buf, "oom_kill", &v, &found, err) < 0)
        return -1;
      if (found)
        {
          out->events_local.oom_kill = v;
          out->events_local.have |= CG_EV_OOM_KILL;
          out->have |= CG_SNAP_EVENTS_LOCAL;
          any = true;
        }
    }
  if (pread_text (fds->failcnt, buf, sizeof buf))
    {
      if (util_parse_u64 (buf, &out->events_local.max) < 0)
        return shim_error (err, 0, "`memory.failcnt`: not a number");
      out->events_local.have |= CG_EV_MAX;
      out->have |= CG_SNAP_EVENTS_LOCAL;
      any = true;
    }
  if (pread_text (fds->max_usage, buf, sizeof buf))
    {
      if (util_parse_u64 (buf, &out->memory_peak) < 0)
        return shim_error (err, 0, "`memory.max_usage_in_bytes`: not a number");
      out->have |= CG_SNAP_PEAK;
      any = true;
    }
  if (!any)
    return shim_error_plain (err, ENODEV, "the v1 memory counters could not be read (the cgroup was removed)");
  return 0;
}

void
cgroup_v1_counters_close (struct cgroup_v1_counter_fds *fds)
{
  int *f[] = { &fds->oom_control, &fds->failcnt, &fds->max_usage };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (*f[i] >= 0)
      {
        close (*f[i]);
        *f[i] = -1;
      }
}
