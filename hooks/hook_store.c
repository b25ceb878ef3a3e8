/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_store.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/json.h"
#include "common/util.h"
#include "evidence/watcher.h"

/* Unlocks (by closing) the store lock. */
#define cleanup_lock cleanup_close

int
hook_store_open (const char *dir, bool create, int *dirfd, shim_error_t *err)
{
  *dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*dirfd >= 0 || errno != ENOENT || !create)
    return *dirfd >= 0 ? 0 : shim_error_errno (err, "verdict directory `%s`", dir);
  *dirfd = util_mkdir_all (dir, 0755, err);
  return *dirfd >= 0 ? 0 : shim_error_prefix (err, "create the verdict directory");
}

/* DIR/.lock, exclusively: held while directories are replaced or removed. */
static int
store_lock (int dirfd, shim_error_t *err)
{
  int fd = openat (dirfd, ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);

  if (fd < 0)
    return shim_error_errno (err, "verdict directory: open `.lock`");
  while (flock (fd, LOCK_EX) < 0)
    if (errno != EINTR)
      {
        close (fd);
        return shim_error_errno (err, "verdict directory: lock `.lock`");
      }
  return fd;
}

/* Remove DIR/name and the files in it (the store never nests deeper). */
static int
remove_dir_at (int parent, const char *name, shim_error_t *err)
{
  cleanup_close int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  cleanup_dir DIR *d = NULL;
  struct dirent *e;

  if (fd < 0)
    return errno == ENOENT ? 0 : shim_error_errno (err, "verdict directory: open `%s`", name);
  d = fdopendir (fd);
  if (d == NULL)
    return shim_error_errno (err, "verdict directory: read `%s`", name);
  fd = -1; /* owned by d now */
  while ((e = readdir (d)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd (d), e->d_name, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "verdict directory: remove `%s/%s`", name, e->d_name);
    }
  if (unlinkat (parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return shim_error_errno (err, "verdict directory: remove `%s`", name);
  return 0;
}

int
hook_store_fresh (int dirfd, const char *id, int *cfd, shim_error_t *err)
{
  cleanup_lock int lock = store_lock (dirfd, err);
  char aside[256];

  if (lock < 0)
    return -1;
  snprintf (aside, sizeof aside, ".gone.%s.%d", id, (int) getpid ());
  if (renameat (dirfd, id, dirfd, aside) == 0)
    {
      if (remove_dir_at (dirfd, aside, err) < 0)
        return -1;
    }
  else if (errno != ENOENT)
    return shim_error_errno (err, "verdict directory: move `%s` aside", id);
  if (mkdirat (dirfd, id, 0755) < 0)
    return shim_error_errno (err, "verdict directory: create `%s`", id);
  *cfd = openat (dirfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (*cfd < 0)
    return shim_error_errno (err, "verdict directory: open `%s`", id);
  return 0;
}

/* Whether DIR/NAME was armed for a container called TYPED; *armed_at is
 * then when (RFC 3339, UTC: ordered as text). */
static bool
armed_as (int dirfd, const char *name, const char *typed, char **armed_at)
{
  cleanup_close int cfd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  cleanup_error shim_error_t tmp = NULL;
  struct hook_meta m;
  bool match;

  if (cfd < 0 || hook_store_meta_read (cfd, &m, &tmp) < 0)
    return false;
  match = m.name && strcmp (m.name, typed) == 0;
  if (match)
    *armed_at = steal_pointer (&m.armed_at);
  hook_store_meta_release (&m);
  return match;
}

int
hook_store_resolve_id (int dirfd, const char *typed, char **full, size_t *others,
                       shim_error_t *err)
{
  size_t len = strlen (typed), matches = 0, named = 0;
  cleanup_free char *found = NULL, *newest = NULL, *newest_at = NULL;
  cleanup_dir DIR *d = NULL;
  struct stat st;
  struct dirent *de;
  int fd;

  *full = NULL;
  *others = 0;
  if (fstatat (dirfd, typed, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (st.st_mode))
    {
      *full = strdup (typed);
      return *full ? 0 : shim_error_errno (err, "verdict directory");
    }
  fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (d = fdopendir (fd)) == NULL)
    {
      shim_error_errno (err, "read the verdict directory");
      if (fd >= 0)
        close (fd);
      return -1;
    }
  /* Hidden entries are directories being replaced or removed. */
  while ((de = readdir (d)) != NULL)
    {
      cleanup_free char *at = NULL;

      if (de->d_name[0] == '.')
        continue;
      if (strncmp (de->d_name, typed, len) == 0 && matches++ == 0
          && (found = strdup (de->d_name)) == NULL)
        return shim_error_errno (err, "verdict directory");
      if (!armed_as (dirfd, de->d_name, typed, &at))
        continue;
      named++;
      if (newest_at == NULL || (at && strcmp (at, newest_at) > 0))
        {
          free (newest);
          free (newest_at);
          newest_at = steal_pointer (&at);
          if ((newest = strdup (de->d_name)) == NULL)
            return shim_error_errno (err, "verdict directory");
        }
    }
  if (named > 0)
    {
      *others = named - 1;
      *full = steal_pointer (&newest);
      return 0;
    }
  if (matches == 0)
    return shim_error_plain (err, ENOENT, "no verdict for container %s", typed);
  if (matches > 1)
    return shim_error_plain (err, EINVAL, "%zu containers' ids start with `%s`: give more of it",
                             matches, typed);
  *full = steal_pointer (&found);
  return 0;
}

int
hook_store_open_container (int dirfd, const char *id, int *cfd, shim_error_t *err)
{
  *cfd = openat (dirfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (*cfd < 0)
    return shim_error_errno (err, "verdict directory: `%s`", id);
  return 0;
}

bool
hook_store_watcher_running (int cfd)
{
  return watcher_running (cfd, HOOK_LOCK);
}

bool
hook_store_wait_watcher (int cfd, int timeout_ms)
{
  return watcher_wait_done (cfd, HOOK_LOCK, timeout_ms);
}

static int
meta_gen_field (yajl_gen g, const char *key, const char *val)
{
  if (yajl_gen_string (g, (const unsigned char *) key, strlen (key)) != yajl_gen_status_ok)
    return -1;
  if (val == NULL)
    return yajl_gen_null (g) == yajl_gen_status_ok ? 0 : -1;
  return yajl_gen_string (g, (const unsigned char *) val, strlen (val)) == yajl_gen_status_ok ? 0
                                                                                                : -1;
}

int
hook_store_meta_write (int cfd, const struct hook_meta *m, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL || yajl_gen_map_open (g) != yajl_gen_status_ok
      || meta_gen_field (g, "cgroup", m->cgroup) < 0 || meta_gen_field (g, "bundle", m->bundle) < 0
      || meta_gen_field (g, "name", m->name) < 0
      || yajl_gen_string (g, (const unsigned char *) "pid", 3) != yajl_gen_status_ok
      || yajl_gen_integer (g, m->pid) != yajl_gen_status_ok
      || meta_gen_field (g, "armed_at", m->armed_at) < 0
      || meta_gen_field (g, "oom_group", m->oom_group) < 0
      || yajl_gen_string (g, (const unsigned char *) "oom_file", 8) != yajl_gen_status_ok
      || yajl_gen_bool (g, m->oom_file) != yajl_gen_status_ok
      || meta_gen_field (g, "error", m->error) < 0 || yajl_gen_map_close (g) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "generate `" HOOK_META "`");
  return util_write_file_atomic_at (cfd, HOOK_META, (const char *) buf, len, 0644, err);
}

static int
meta_dup_field (yajl_val root, const char *key, char **out)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get (root, path, yajl_t_string);

  *out = NULL;
  if (v == NULL)
    return 0;
  *out = strdup (v->u.string);
  return *out ? 0 : -1;
}

int
hook_store_meta_read (int cfd, struct hook_meta *m, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  cleanup_yajl_val yajl_val root = NULL;
  const char *pid[] = { "pid", NULL }, *oom_file[] = { "oom_file", NULL };
  yajl_val v;
  char ebuf[128];

  memset (m, 0, sizeof *m);
  if (util_read_file_at (cfd, HOOK_META, &json, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (json, ebuf, sizeof ebuf);
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "`" HOOK_META "`: not a JSON object");
  if (meta_dup_field (root, "cgroup", &m->cgroup) < 0
      || meta_dup_field (root, "bundle", &m->bundle) < 0
      || meta_dup_field (root, "name", &m->name) < 0
      || meta_dup_field (root, "armed_at", &m->armed_at) < 0
      || meta_dup_field (root, "oom_group", &m->oom_group) < 0
      || meta_dup_field (root, "error", &m->error) < 0)
    {
      hook_store_meta_release (m);
      return shim_error_errno (err, "read `" HOOK_META "`");
    }
  v = yajl_tree_get (root, pid, yajl_t_number);
  m->pid = v && YAJL_IS_INTEGER (v) ? YAJL_GET_INTEGER (v) : 0;
  m->oom_file = YAJL_IS_TRUE (yajl_tree_get (root, oom_file, yajl_t_any));
  return 0;
}

void
hook_store_meta_release (struct hook_meta *m)
{
  free (m->cgroup);
  free (m->bundle);
  free (m->name);
  free (m->armed_at);
  free (m->oom_group);
  free (m->error);
  memset (m, 0, sizeof *m);
}

/* ---- cleanup ------------------------------------------------------------ */

struct gc_entry
{
  char name[256];
  time_t mtime; /* the directory's: every record or verdict written renames into it */
  bool finished;
};

static int
by_newest (const void *a, const void *b)
{
  const struct gc_entry *x = a, *y = b;
  return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : 0;
}

/* Age-based removals are looked for at most this often: a scan opens and
 * locks every container directory, and poststop waits for it. */
#define GC_AGE_SCAN_S 3600

/* Whether the scan can find anything to remove.  On file systems that count
 * a directory's subdirectories in its link count (tmpfs, ext4, xfs), fewer
 * than keep_count of them leave only age-based removals, which wait for
 * the hour since the last scan (the mtime of DIR/.lock, LOCK). */
static bool
gc_due (int dirfd, int lock, const struct hook_gc_policy *p, time_t now)
{
  struct stat dir, l;

  if (p->keep_days == 0 || fstat (dirfd, &dir) < 0 || dir.st_nlink < 2
      || dir.st_nlink - 2 > (nlink_t) p->keep_count || fstat (lock, &l) < 0)
    return true;
  return now - l.st_mtime >= GC_AGE_SCAN_S || l.st_mtime > now;
}

int
hook_store_gc (int dirfd, const struct hook_gc_policy *p, shim_error_t *err)
{
  cleanup_lock int lock = store_lock (dirfd, err);
  cleanup_close int scan_fd = -1;
  cleanup_dir DIR *d = NULL;
  cleanup_free struct gc_entry *v = NULL;
  size_t n = 0, cap = 0, finished = 0;
  time_t now = time (NULL), cutoff = now - (time_t) p->keep_days * 86400;
  struct dirent *e;
  int removed = 0;

  if (lock < 0)
    return -1;
  if (!gc_due (dirfd, lock, p, now))
    return 0;
  /* The scan's time, for gc_due. */
  if (futimens (lock, NULL) < 0)
    return shim_error_errno (err, "verdict directory: touch `.lock`");
  scan_fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (scan_fd < 0 || (d = fdopendir (scan_fd)) == NULL)
    return shim_error_errno (err, "verdict directory: read it");
  scan_fd = -1;
  while ((e = readdir (d)) != NULL)
    {
      cleanup_close int cfd = -1;
      struct stat st;

      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0
          || strcmp (e->d_name, ".lock") == 0)
        continue;
      if (strncmp (e->d_name, ".gone.", 6) == 0)
        {
          /* Left by an arming that was interrupted. */
          if (remove_dir_at (dirfd, e->d_name, err) < 0)
            return -1;
          continue;
        }
      cfd = openat (dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (cfd < 0 || fstat (cfd, &st) < 0 || hook_store_watcher_running (cfd))
        continue;
      if (n == cap)
        {
          size_t ncap = cap ? cap * 2 : 64;
          struct gc_entry *nv = realloc (v, ncap * sizeof *v);
          if (nv == NULL)
            return shim_error_errno (err, "verdict directory: cleanup");
          v = nv;
          cap = ncap;
        }
      snprintf (v[n].name, sizeof v[n].name, "%s", e->d_name);
      v[n].mtime = st.st_mtime;
      v[n].finished = faccessat (cfd, HOOK_VERDICT, F_OK, 0) == 0;
      n++;
    }
  qsort (v, n, sizeof *v, by_newest);
  for (size_t i = 0; i < n; i++)
    {
      bool too_many = v[i].finished && ++finished > (size_t) p->keep_count;
      if (!too_many && v[i].mtime >= cutoff)
        continue;
      if (remove_dir_at (dirfd, v[i].name, err) < 0)
        return -1;
      removed++;
    }
  return removed;
}
