/* SPDX-License-Identifier: Apache-2.0 */
/* Counters of deaths by reason and scope, in node_exporter's textfile
 * format.  The file is the counters' only copy: each death reads it, adds
 * one and renames a new one over it, under a lock file, so two deaths at
 * once never lose a count (and the counts never fall, as a counter must
 * not, which counts recomputed from the pruned history would). */
#include "history/history.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define METRIC "shim_container_deaths_total"
#define LOCK_FILE ".shim.prom.lock"
#define TMP_FILE ".shim.prom.tmp"
/* How long a death waits for another's update (each takes microseconds). */
#define LOCK_WAIT_MS 2000

static const char *const reasons[HISTORY_N_REASONS] = {
  [VERDICT_UNKNOWN] = "Unknown", [VERDICT_OOM_KILLED] = "OOMKilled", [VERDICT_KILLED] = "Killed",
  [VERDICT_SIGNALED] = "Signaled", [VERDICT_EXITED] = "Exited",
};
static const char *const scopes[HISTORY_N_SCOPES] = { "none", "container", "ancestor", "nested" };

int
history_metrics_scope (const struct verdict *v)
{
  if (!v->have_oom)
    return 0;
  switch (v->oom.scope)
    {
    case VERDICT_SCOPE_CONTAINER:
      return 1;
    case VERDICT_SCOPE_ANCESTOR:
      return 2;
    case VERDICT_SCOPE_NONE:
      break;
    }
  return 3;
}

static int
find (const char *const *names, size_t n, const char *s, size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strlen (names[i]) == len && strncmp (names[i], s, len) == 0)
      return (int) i;
  return -1;
}

void
history_metrics_parse (const char *text, history_counts_t counts)
{
  memset (counts, 0, sizeof (history_counts_t));
  for (const char *l = text; l && *l; l = strchr (l, '\n'), l = l ? l + 1 : NULL)
    {
      const char *r, *re, *s, *se;
      unsigned long long n;
      char tail;
      int ri, si;

      if (strncmp (l, METRIC "{reason=\"", sizeof (METRIC "{reason=\"") - 1) != 0)
        continue;
      r = l + sizeof (METRIC "{reason=\"") - 1;
      re = strchr (r, '"');
      if (re == NULL || strncmp (re, "\",scope=\"", 9) != 0)
        continue;
      s = re + 9;
      se = strchr (s, '"');
      if (se == NULL || strncmp (se, "\"} ", 3) != 0)
        continue;
      ri = find (reasons, HISTORY_N_REASONS, r, (size_t) (re - r));
      si = find (scopes, HISTORY_N_SCOPES, s, (size_t) (se - s));
      if (ri >= 0 && si >= 0 && sscanf (se + 3, "%llu%c", &n, &tail) == 2 && tail == '\n')
        counts[ri][si] = n;
    }
}

int
history_metrics_text (const history_counts_t counts, char **out)
{
  size_t cap = 256 + HISTORY_N_REASONS * HISTORY_N_SCOPES * 96, len;
  char *s = malloc (cap);

  if (s == NULL)
    return -1;
  len = (size_t) snprintf (s, cap,
                           "# HELP " METRIC " Container deaths told by shim, by the verdict's reason and "
                           "OOM scope.\n# TYPE " METRIC " counter\n");
  for (int r = 0; r < HISTORY_N_REASONS; r++)
    for (int k = 0; k < HISTORY_N_SCOPES; k++)
      if (counts[r][k])
        len += (size_t) snprintf (s + len, cap - len, METRIC "{reason=\"%s\",scope=\"%s\"} %" PRIu64 "\n",
                                  reasons[r], scopes[k], counts[r][k]);
  *out = s;
  return 0;
}

/* flock with a bound: LOCK_NB tried again every 10 ms. */
static int
lock_bounded (int fd)
{
  struct timespec pause = { 0, 10 * 1000000 };

  for (int waited = 0;; waited += 10)
    {
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
      if (errno != EWOULDBLOCK && errno != EINTR)
        return -1;
      if (waited >= LOCK_WAIT_MS)
        {
          errno = ETIMEDOUT;
          return -1;
        }
      nanosleep (&pause, NULL);
    }
}

int
history_metrics_count (const char *dir, const struct verdict *v, shim_error_t *err)
{
  cleanup_close int dirfd = util_mkdir_all (dir, 0755, err), lock = -1, fd = -1;
  cleanup_free char *old = NULL, *text = NULL;
  history_counts_t counts;
  shim_error_t tmp = NULL;
  size_t len;

  if (dirfd < 0)
    return -1;
  lock = openat (dirfd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock < 0 || lock_bounded (lock) < 0)
    return shim_error_errno (err, "lock %s/%s", dir, LOCK_FILE);
  if (util_read_file_at (dirfd, HISTORY_METRICS_FILE, &old, NULL, &tmp) < 0)
    {
      if (tmp->status != ENOENT)
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
    }
  history_metrics_parse (old, counts);
  if (v->reason < HISTORY_N_REASONS)
    counts[v->reason][history_metrics_scope (v)]++;
  if (history_metrics_text (counts, &text) < 0)
    return shim_error_errno (err, "metrics");
  len = strlen (text);
  /* Under the lock, one fixed temporary name is enough; the textfile
   * collector reads only *.prom, never the dot-file. */
  fd = openat (dirfd, TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, text, len) != (ssize_t) len || fchmod (fd, 0644) < 0
      || renameat (dirfd, TMP_FILE, dirfd, HISTORY_METRICS_FILE) < 0)
    {
      int saved = errno;
      unlinkat (dirfd, TMP_FILE, 0);
      errno = saved;
      return shim_error_errno (err, "write %s/%s", dir, HISTORY_METRICS_FILE);
    }
  return 0;
}
