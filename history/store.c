/* SPDX-License-Identifier: Apache-2.0 */
/* The history store (history.h): where it is, one file per death written
 * atomically, pruned oldest first, read back; and history_tell, which
 * tells a death to the journal, the store and the metrics. */
#include "history/history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

/* A record is small (a verdict with a few victims); anything larger in the
 * directory is not one of ours. */
#define RECORD_MAX (1 << 20)
/* A dot-file left by a writer that died before its rename. */
#define STALE_TMP_NS (3600LL * 1000000000)

static void
env_number (const char *name, uint64_t scale, uint64_t *out)
{
  const char *s = getenv (name);
  uint64_t n;

  if (s == NULL || *s == '\0')
    return;
  if (util_parse_u64 (s, &n) < 0 || (scale > 1 && n > UINT64_MAX / scale))
    {
      log_msg (LOG_WARNING, "%s: `%s` is not a number; using the default", name, s);
      return;
    }
  *out = n * scale;
}

/* UID's home from the passwd database, or NULL (no entry, or not a path). */
static const char *
user_home (uid_t uid)
{
  struct passwd *pw = getpwuid (uid);
  return pw && pw->pw_dir && pw->pw_dir[0] == '/' && strcmp (pw->pw_dir, "/") != 0 ? pw->pw_dir : NULL;
}

void
history_config_init (struct history_config *c)
{
  const char *dir = getenv ("SHIM_HISTORY_DIR"), *metrics = getenv ("SHIM_METRICS_DIR");
  const char *xdg = getenv ("XDG_DATA_HOME"), *home = getenv ("HOME");
  uint64_t days = 0;

  memset (c, 0, sizeof (*c));
  c->journal = true;
  c->limits = (struct history_limits){ HISTORY_KEEP_COUNT, HISTORY_KEEP_BYTES, HISTORY_KEEP_SECONDS };
  env_number ("SHIM_HISTORY_KEEP", 1, &c->limits.keep_count);
  env_number ("SHIM_HISTORY_KEEP_BYTES", 1, &c->limits.keep_bytes);
  if (getenv ("SHIM_HISTORY_KEEP_DAYS"))
    {
      days = (uint64_t) c->limits.keep_seconds / 86400;
      env_number ("SHIM_HISTORY_KEEP_DAYS", 1, &days);
      c->limits.keep_seconds = days > 36500 ? 36500 * 86400LL : (int64_t) days * 86400;
    }
  c->metrics_dir = metrics && *metrics ? metrics : NULL;
  if (dir)
    {
      c->dir = *dir ? dir : NULL;
      c->dir_why = "SHIM_HISTORY_DIR is empty";
    }
  else if (!util_rootless ())
    c->dir = HISTORY_DEFAULT_DIR;
  /* Rootless: the user's own data directory, as XDG says; without
   * XDG_DATA_HOME and HOME (an engine's bare environment, root of its user
   * namespace), the home of the user this one is outside it. */
  else if (xdg && xdg[0] == '/')
    {
      snprintf (c->dir_buf, sizeof (c->dir_buf), "%s/shim/history", xdg);
      c->dir = c->dir_buf;
    }
  else if ((home && home[0] == '/') || (home = user_home (util_outside_uid ())) != NULL)
    {
      snprintf (c->dir_buf, sizeof (c->dir_buf), "%s/.local/share/shim/history", home);
      c->dir = c->dir_buf;
    }
  else
    c->dir_why = "rootless, and neither XDG_DATA_HOME, HOME nor the user's passwd entry says a home";
}

void
history_file_name (int64_t time_ns, pid_t pid, uint32_t rnd, uint64_t size, char *buf, size_t len)
{
  snprintf (buf, len, "%020lld-%d-%08x-%llu.json", (long long) time_ns, (int) pid, rnd, (unsigned long long) size);
}

int64_t
history_file_time (const char *name)
{
  int64_t t = 0;
  size_t i;

  for (i = 0; i < 20; i++)
    {
      if (name[i] < '0' || name[i] > '9' || t > (INT64_MAX - 9) / 10)
        return -1;
      t = t * 10 + (name[i] - '0');
    }
  if (name[20] != '-')
    return -1;
  i = strlen (name);
  return i > 26 && strcmp (name + i - 5, ".json") == 0 ? t : -1;
}

int64_t
history_file_size (const char *name)
{
  const char *dash = strrchr (name, '-'), *p;
  int64_t size = 0;
  int dashes = 0;

  if (history_file_time (name) < 0)
    return -1;
  for (p = name; *p; p++)
    dashes += *p == '-';
  if (dashes != 3 || dash[1] == '.')
    return -1;
  for (p = dash + 1; *p != '.'; p++)
    {
      if (*p < '0' || *p > '9' || size > (INT64_MAX - 9) / 10)
        return -1;
      size = size * 10 + (*p - '0');
    }
  return strcmp (p, ".json") == 0 ? size : -1;
}

void
history_prune_choose (const struct history_file *f, size_t n, const struct history_limits *l, int64_t now_ns,
                      bool *remove)
{
  uint64_t count = 0, bytes = 0;
  bool dropping = false;

  /* From the newest back: keep while all the limits hold, then drop the
   * rest, so that what is kept is always the newest run of records. */
  for (size_t i = n; i-- > 0;)
    {
      bool newest = i == n - 1;
      if (!newest && !dropping)
        dropping = (l->keep_count && count + 1 > l->keep_count)
                   || (l->keep_bytes && bytes + f[i].size > l->keep_bytes)
                   || (l->keep_seconds && now_ns - f[i].time_ns > l->keep_seconds * 1000000000);
      remove[i] = dropping;
      count++;
      bytes += f[i].size;
    }
}

static int64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
cmp_files (const void *a, const void *b)
{
  return strcmp (((const struct history_file *) a)->name, ((const struct history_file *) b)->name);
}

static void
files_free (struct history_file *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (f[i].name);
  free (f);
}

/* The records of DIRFD, sorted oldest first (their names sort by time).
 * With tidy, dot-files older than STALE_TMP_NS are removed on the way. */
static int
list_files (int dirfd, bool tidy, struct history_file **out, size_t *n, shim_error_t *err)
{
  int fd = fcntl (dirfd, F_DUPFD_CLOEXEC, 0);
  cleanup_dir DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  struct history_file *f = NULL;
  size_t k = 0, cap = 0;
  int64_t now = now_ns ();
  struct dirent *de;
  struct stat sb;

  if (d == NULL)
    {
      if (fd >= 0)
        close (fd);
      return shim_error_errno (err, "read the history directory");
    }
  while ((errno = 0, de = readdir (d)) != NULL)
    {
      int64_t t = history_file_time (de->d_name);
      if (t < 0)
        {
          if (tidy && strncmp (de->d_name, ".tmp-", 5) == 0 && (t = history_file_time (de->d_name + 5)) >= 0
              && now - t > STALE_TMP_NS)
            unlinkat (dirfd, de->d_name, 0);
          continue;
        }
      /* The name says the size; the type comes with the entry on most
       * filesystems.  Only what is left unsaid costs a stat. */
      sb.st_size = history_file_size (de->d_name);
      if ((de->d_type != DT_REG || sb.st_size < 0)
          && (fstatat (dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG (sb.st_mode)))
        continue;
      if (k == cap)
        {
          struct history_file *g = realloc (f, (cap = cap ? cap * 2 : 64) * sizeof (*f));
          if (g == NULL)
            goto nomem;
          f = g;
        }
      f[k] = (struct history_file){ .name = strdup (de->d_name), .size = (uint64_t) sb.st_size, .time_ns = t };
      if (f[k++].name == NULL)
        goto nomem;
    }
  if (errno)
    {
      files_free (f, k);
      return shim_error_errno (err, "read the history directory");
    }
  if (k)
    qsort (f, k, sizeof (*f), cmp_files);
  *out = f;
  *n = k;
  return 0;
nomem:
  files_free (f, k);
  return shim_error_errno (err, "read the history directory");
}

/* The last prune's time is this dot-file's mtime (readers skip dot-files). */
#define PRUNED_MARK ".pruned"
#define PRUNE_INTERVAL_NS (60 * 1000000000LL)

/* Whether a minute has passed since the last prune.  Listing the store
 * costs the kernel's readdir of every record (a thousand, once full): done
 * after every death it was the largest part of the history's cost, and
 * grew with the store; once a second, it still came with most deaths of
 * a busy host. */
static bool
prune_due (int dirfd, int64_t now)
{
  struct stat st;
  int64_t last;

  if (fstatat (dirfd, PRUNED_MARK, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return true;
  last = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  return now - last >= PRUNE_INTERVAL_NS || last > now;
}

static void
prune_done (int dirfd)
{
  cleanup_close int fd = openat (dirfd, PRUNED_MARK, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

  if (fd < 0 || futimens (fd, NULL) < 0)
    log_msg (LOG_WARNING, "history: mark the prune in %s: %m", PRUNED_MARK);
}

static int
prune (int dirfd, const struct history_limits *l, shim_error_t *err)
{
  struct history_file *f = NULL;
  cleanup_free bool *remove = NULL;
  size_t n = 0;

  if (!prune_due (dirfd, now_ns ()))
    return 0;
  prune_done (dirfd);
  if (list_files (dirfd, true, &f, &n, err) < 0)
    return -1;
  remove = calloc (n ? n : 1, sizeof (*remove));
  if (remove == NULL)
    {
      files_free (f, n);
      return shim_error_errno (err, "prune the history");
    }
  history_prune_choose (f, n, l, now_ns (), remove);
  /* Another writer may be pruning too: what it removed first is gone. */
  for (size_t i = 0; i < n; i++)
    if (remove[i] && unlinkat (dirfd, f[i].name, 0) < 0 && errno != ENOENT)
      log_msg (LOG_WARNING, "history: remove %s: %s", f[i].name, strerror (errno));
  files_free (f, n);
  return 0;
}

static int
write_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t w = write (fd, data, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -1;
      data += w;
      len -= (size_t) w;
    }
  return 0;
}

int
history_store_write (const char *dir, const struct history_limits *l, const struct history_event *e,
                     shim_error_t *err)
{
  cleanup_close int dirfd = -1, fd = -1;
  cleanup_free char *json = NULL;
  char name[96], tmp[128];
  uint32_t rnd;

  if (history_record_json (e, &json, err) < 0)
    return -1;
  dirfd = util_mkdir_all (dir, 0700, err);
  if (dirfd < 0)
    return -1;
  if (getrandom (&rnd, sizeof (rnd), GRND_NONBLOCK) != sizeof (rnd))
    rnd = (uint32_t) now_ns () ^ (uint32_t) getpid ();
  history_file_name (e->time_ns, getpid (), rnd, strlen (json) + 1, name, sizeof (name));
  snprintf (tmp, sizeof (tmp), ".tmp-%s", name);
  fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return shim_error_errno (err, "create %s/%s", dir, tmp);
  /* Renamed into place whole, and not synced: the container's teardown
   * would wait for the disk.  A crash can lose the last records (as it
   * loses the journal's unsynced ones) or leave one short, which its name's
   * size tells from a whole one (read_record). */
  if (write_all (fd, json, strlen (json)) < 0 || write_all (fd, "\n", 1) < 0
      || renameat (dirfd, tmp, dirfd, name) < 0)
    {
      int saved = errno;
      unlinkat (dirfd, tmp, 0);
      errno = saved;
      return shim_error_errno (err, "write %s/%s", dir, name);
    }
  return prune (dirfd, l, err) < 0 ? shim_error_prefix (err, "%s", dir) : 0;
}

static int
read_record (int dirfd, const struct history_file *f, struct history_record *r, shim_error_t *err)
{
  cleanup_close int fd = openat (dirfd, f->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  cleanup_free char *text = NULL;
  size_t len;

  if (fd < 0)
    return shim_error_errno (err, "open");
  if (f->size > RECORD_MAX)
    return shim_error_plain (err, EFBIG, "larger than %d bytes", RECORD_MAX);
  /* Written once and renamed into place: its size is known and stays. */
  text = malloc (f->size + 2);
  if (text == NULL)
    return shim_error_errno (err, "read");
  for (len = 0; len <= f->size;)
    {
      ssize_t got = read (fd, text + len, f->size + 1 - len);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return shim_error_errno (err, "read");
      if (got == 0)
        break;
      len += (size_t) got;
    }
  text[len] = '\0';
  if (len != f->size)
    return shim_error_plain (err, EIO, "torn: %zu bytes where its name says %zu (cut short by a crash)", len,
                             (size_t) f->size);
  if (history_record_parse (text, r, err) < 0)
    return -1;
  r->time_ns = f->time_ns;
  r->file = strdup (f->name);
  return r->file ? 0 : shim_error_errno (err, "read");
}

int
history_read (const char *dir, int64_t since_ns, const char *match, struct history_record **out, size_t *n,
              shim_error_t *err)
{
  cleanup_close int dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct history_file *f = NULL;
  struct history_record *r;
  size_t nf = 0, k = 0;

  *out = NULL;
  *n = 0;
  if (dirfd < 0 && errno == ENOENT)
    return 0;
  if (dirfd < 0)
    return shim_error_errno (err, "open %s", dir);
  if (list_files (dirfd, false, &f, &nf, err) < 0)
    return shim_error_prefix (err, "%s", dir);
  r = calloc (nf ? nf : 1, sizeof (*r));
  if (r == NULL)
    {
      files_free (f, nf);
      return shim_error_errno (err, "read %s", dir);
    }
  for (size_t i = 0; i < nf; i++)
    {
      shim_error_t tmp = NULL;
      if (f[i].time_ns < since_ns)
        continue;
      /* Pruned by a writer between the listing and here: gone, not bad. */
      if (read_record (dirfd, &f[i], &r[k], &tmp) < 0)
        {
          if (tmp->status != ENOENT)
            log_msg (LOG_WARNING, "history: %s/%s: %s", dir, f[i].name, tmp->msg);
          shim_error_release (&tmp);
          history_record_release (&r[k]);
          continue;
        }
      if (history_record_matches (&r[k], match))
        k++;
      else
        history_record_release (&r[k]);
    }
  files_free (f, nf);
  *out = r;
  *n = k;
  return 0;
}

int
history_show (const char *dir, const char *match, const char *since, bool json, char **out, shim_error_t *err)
{
  struct history_record *r = NULL;
  int64_t since_ns = 0;
  size_t n = 0;
  int ret;

  if (since && history_parse_since (since, now_ns (), &since_ns, err) < 0)
    return -1;
  if (history_read (dir, since_ns, match, &r, &n, err) < 0)
    return -1;
  ret = history_format (r, n, json, out);
  history_records_free (r, n);
  return ret < 0 ? shim_error_errno (err, "format the history") : 0;
}

void
history_records_free (struct history_record *r, size_t n)
{
  for (size_t i = 0; i < n; i++)
    history_record_release (&r[i]);
  free (r);
}

void
history_tell (const struct history_config *c, const char *id, const struct history_names *names,
              const char *source, const struct verdict *v)
{
  cleanup_free char *json = NULL;
  struct history_event e = { .id = id, .source = source, .v = v, .time_ns = now_ns () };
  const char *ident = strcmp (source, "hook") == 0 ? "shim-oom-hook" : "shim";
  shim_error_t tmp = NULL;

  if (c == NULL)
    return;
  if (names)
    e.names = *names;
  if (verdict_to_json (v, &json, &tmp) < 0)
    log_error_release (&tmp);
  e.verdict_json = json;
  if (c->journal && history_journal_send (&e, ident, &tmp) < 0)
    {
      log_msg (LOG_WARNING, "container %s: the journal: %s", id, tmp->msg);
      shim_error_release (&tmp);
    }
  /* A full disk or a read-only /var must never cost the container's
   * run or delete: the record is lost, and the warning says so. */
  if (c->dir == NULL)
    log_msg (LOG_DEBUG, "container %s: no verdict history: %s", id, c->dir_why ? c->dir_why : "off");
  else if (history_store_write (c->dir, &c->limits, &e, &tmp) < 0)
    {
      log_msg (LOG_WARNING, "container %s: verdict history not written: %s", id, tmp->msg);
      shim_error_release (&tmp);
    }
  if (c->metrics_dir && history_metrics_count (c->metrics_dir, v, &tmp) < 0)
    {
      log_msg (LOG_WARNING, "container %s: metrics not written: %s", id, tmp->msg);
      shim_error_release (&tmp);
    }
}
