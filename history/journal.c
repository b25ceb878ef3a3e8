/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict in the systemd journal: one readable MESSAGE and the SHIM_*
 * fields, so that `journalctl SHIM_OOM_KILLED=true` lists the OOM kills.
 * (No common/log.h here: its LOG_* names are syslog.h's too.) */
#include "history/history.h"
#include "common/util.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Where journald listens for native messages. */
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

/* journald's native protocol (systemd.io, "Native Journal Protocol"), as
 * sd_journal_sendv speaks it: one datagram of fields, each "KEY=value\n",
 * or "KEY\n", the value's length as 64-bit little endian, the value and
 * "\n" where the value holds a newline.  Spoken here rather than through
 * libsystemd: loading it and the five libraries it pulls in cost more
 * than the rest of a container's end.  The size is known before a byte is
 * written: one allocation. */
static bool
binary_form (const char *field)
{
  const char *eq = strchr (field, '=');
  return eq && strchr (eq, '\n');
}

static int
encode (char **f, size_t n, char **out, size_t *out_len)
{
  size_t len = 0;
  char *buf, *p;

  for (size_t i = 0; i < n; i++)
    len += strlen (f[i]) + 1 + (binary_form (f[i]) ? sizeof (uint64_t) : 0);
  if ((p = buf = malloc (len ? len : 1)) == NULL)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      const char *eq = strchr (f[i], '=');
      size_t all = strlen (f[i]), key = eq ? (size_t) (eq - f[i]) : all;

      if (!binary_form (f[i]))
        p = mempcpy (p, f[i], all);
      else
        {
          uint64_t le = htole64 ((uint64_t) (all - key - 1));
          p = mempcpy (p, f[i], key);
          *p++ = '\n';
          p = mempcpy (p, &le, sizeof (le));
          p = mempcpy (p, eq + 1, all - key - 1);
        }
      *p++ = '\n';
    }
  *out = buf;
  *out_len = len;
  return 0;
}

/* A datagram larger than the socket takes goes as a memfd, sealed (journald
 * reads only a sealed one), its descriptor the only content of an empty
 * datagram. */
static int
send_as_memfd (int sock, const struct sockaddr_un *addr, const char *data, size_t len, shim_error_t *err)
{
  cleanup_close int fd = util_memfd_create ("shim-journal", MFD_ALLOW_SEALING, false);
  union
  {
    struct cmsghdr h;
    char buf[CMSG_SPACE (sizeof (int))];
  } control = { 0 };
  struct msghdr m = { .msg_name = (void *) addr, .msg_namelen = sizeof (*addr),
                      .msg_control = control.buf, .msg_controllen = sizeof (control.buf) };
  struct cmsghdr *c = CMSG_FIRSTHDR (&m);

  if (fd < 0)
    return shim_error_errno (err, "journal: memfd_create");
  for (size_t off = 0; off < len;)
    {
      ssize_t w = write (fd, data + off, len - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return shim_error_errno (err, "journal: write the memfd");
      off += (size_t) w;
    }
  if (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    return shim_error_errno (err, "journal: seal the memfd (F_ADD_SEALS)");
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof (int));
  if (sendmsg (sock, &m, MSG_NOSIGNAL) < 0)
    return shim_error_errno (err, "journal: sendmsg of the memfd");
  return 0;
}

/* journald's queue full (journald stuck): give up after this long. */
#define JOURNAL_SEND_TIMEOUT_S 1

int
history_journal_send_at (const char *socket_path, const struct history_event *e, const char *ident,
                         shim_error_t *err)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct timeval tmo = { .tv_sec = JOURNAL_SEND_TIMEOUT_S };
  cleanup_close int sock = -1;
  cleanup_free char *data = NULL;
  char **f = NULL;
  size_t n = 0, len = 0;
  int r;

  if (strlen (socket_path) >= sizeof (addr.sun_path))
    return shim_error_plain (err, ENAMETOOLONG, "journal: socket path %s", socket_path);
  strcpy (addr.sun_path, socket_path);
  /* No journald, nothing to tell. */
  if (access (socket_path, F_OK) < 0)
    return 0;
  if (history_journal_fields (e, ident, &f, &n) < 0)
    return shim_error_errno (err, "journal fields");
  r = encode (f, n, &data, &len);
  history_journal_fields_free (f, n);
  if (r < 0)
    return shim_error_errno (err, "journal fields");
  sock = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0)
    return shim_error_errno (err, "journal: socket");
  if (setsockopt (sock, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof (tmo)) < 0)
    return shim_error_errno (err, "journal: setsockopt(SO_SNDTIMEO)");
  if (sendto (sock, data, len, MSG_NOSIGNAL, (struct sockaddr *) &addr, sizeof (addr)) >= 0)
    return 0;
  /* No journald (its socket left behind, or refusing): nothing to tell,
   * and nothing wrong with the container. */
  if (errno == ENOENT || errno == ECONNREFUSED || errno == ENOTDIR)
    return 0;
  if (errno == EMSGSIZE || errno == ENOBUFS)
    return send_as_memfd (sock, &addr, data, len, err);
  return shim_error_errno (err, "journal: sendto %s", socket_path);
}

int
history_journal_send (const struct history_event *e, const char *ident, shim_error_t *err)
{
  return history_journal_send_at (JOURNAL_SOCKET, e, ident, err);
}
