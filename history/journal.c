/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict in the systemd journal: one readable MESSAGE and the SHIM_*
 * fields, so that `journalctl SHIM_OOM_KILLED=true` lists the OOM kills.
 * (No common/log.h here: its LOG_* names are syslog.h's too.) */
#include "history/history.h"
#include "common/sdlib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Where sd_journal_sendv sends. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

int
history_journal_priority (const struct verdict *v)
{
  switch (v->reason)
    {
    case VERDICT_OOM_KILLED:
    case VERDICT_UNKNOWN:
      return 4;
    case VERDICT_EXITED:
      return v->have_exit_code && v->exit_code == 0 ? 6 : 5;
    case VERDICT_KILLED:
    case VERDICT_SIGNALED:
      return 5;
    }
  return 4;
}

static const char *
tri_name (enum verdict_tri t)
{
  return t == VERDICT_TRUE ? "true" : t == VERDICT_FALSE ? "false" : "null";
}

/* One "KEY=value" more; a NULL value adds nothing (the field is absent). */
static int
add (char ***f, size_t *n, const char *key, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
static int
add (char ***f, size_t *n, const char *key, const char *fmt, ...)
{
  char *value = NULL, *kv = NULL, **grown;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&value, fmt, ap);
  va_end (ap);
  if (r < 0)
    return -1;
  r = asprintf (&kv, "%s=%s", key, value);
  free (value);
  if (r < 0)
    return -1;
  grown = realloc (*f, (*n + 1) * sizeof (**f));
  if (grown == NULL)
    {
      free (kv);
      return -1;
    }
  *f = grown;
  (*f)[(*n)++] = kv;
  return 0;
}

int
history_journal_fields (const struct history_event *e, const char *ident, char ***out, size_t *n)
{
  const struct verdict *v = e->v;
  const char *name = e->names.name;
  char **f = NULL;
  size_t k = 0;
  int bad = 0;

  bad |= add (&f, &k, "MESSAGE", "container %s%s%s%s: %s", e->id, name ? " (" : "", name ? name : "",
              name ? ")" : "", v->message);
  bad |= add (&f, &k, "PRIORITY", "%d", history_journal_priority (v));
  bad |= add (&f, &k, "SYSLOG_IDENTIFIER", "%s", ident);
  bad |= add (&f, &k, "SHIM_CONTAINER_ID", "%s", e->id);
  if (name)
    bad |= add (&f, &k, "SHIM_CONTAINER_NAME", "%s", name);
  if (e->names.pod)
    bad |= add (&f, &k, "SHIM_POD_NAME", "%s", e->names.pod);
  if (e->names.pod_namespace)
    bad |= add (&f, &k, "SHIM_POD_NAMESPACE", "%s", e->names.pod_namespace);
  bad |= add (&f, &k, "SHIM_SOURCE", "%s", e->source);
  bad |= add (&f, &k, "SHIM_REASON", "%s", verdict_reason_name (v->reason));
  bad |= add (&f, &k, "SHIM_OOM_KILLED", "%s", tri_name (v->oom_killed));
  if (v->have_oom && v->oom.scope != VERDICT_SCOPE_NONE)
    bad |= add (&f, &k, "SHIM_SCOPE", "%s", v->oom.scope == VERDICT_SCOPE_CONTAINER ? "container" : "ancestor");
  if (v->have_exit_code)
    bad |= add (&f, &k, "SHIM_EXIT_CODE", "%d", v->exit_code);
  if (v->signal > 0 && sigabbrev_np (v->signal))
    bad |= add (&f, &k, "SHIM_SIGNAL", "SIG%s", sigabbrev_np (v->signal));
  if (v->have_memory_peak)
    bad |= add (&f, &k, "SHIM_MEMORY_PEAK", "%llu", (unsigned long long) v->memory_peak);
  if (v->have_memory_limit)
    bad |= add (&f, &k, "SHIM_MEMORY_LIMIT", "%llu", (unsigned long long) v->memory_limit);
  if (v->have_oom && v->oom.have_victims && v->oom.n_victims > 0)
    {
      bad |= add (&f, &k, "SHIM_VICTIM_PID", "%lld", (long long) v->oom.victims[0].pid);
      bad |= add (&f, &k, "SHIM_VICTIM_COMM", "%s", v->oom.victims[0].comm);
    }
  if (e->verdict_json)
    bad |= add (&f, &k, "SHIM_VERDICT", "%s", e->verdict_json);
  if (bad)
    {
      history_journal_fields_free (f, k);
      return -1;
    }
  *out = f;
  *n = k;
  return 0;
}

void
history_journal_fields_free (char **f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (f[i]);
  free (f);
}

int
history_journal_send (const struct history_event *e, const char *ident, shim_error_t *err)
{
  const struct sdlib *sd;
  char **f = NULL;
  struct iovec *iov;
  size_t n = 0;
  int r;

  /* No journald, nothing to tell: not worth loading libsystemd to learn
   * that from sd_journal_sendv. */
  if (access (JOURNAL_SOCKET, F_OK) < 0)
    return 0;
  if ((sd = sdlib_load (err)) == NULL)
    return shim_error_prefix (err, "journal");
  if (history_journal_fields (e, ident, &f, &n) < 0)
    return shim_error_errno (err, "journal fields");
  iov = calloc (n, sizeof (*iov));
  if (iov == NULL)
    {
      history_journal_fields_free (f, n);
      return shim_error_errno (err, "journal fields");
    }
  for (size_t i = 0; i < n; i++)
    iov[i] = (struct iovec){ .iov_base = f[i], .iov_len = strlen (f[i]) };
  r = sd->journal_sendv (iov, (int) n);
  free (iov);
  history_journal_fields_free (f, n);
  /* No journald (its socket missing or refusing): nothing to tell, and
   * nothing wrong with the container. */
  if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTDIR)
    return 0;
  if (r < 0)
    {
      errno = -r;
      return shim_error_errno (err, "sd_journal_sendv");
    }
  return 0;
}
