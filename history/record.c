/* SPDX-License-Identifier: Apache-2.0 */
/* A history record: written as JSON, read back, matched, shown.  Pure. */
#include "history/history.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/json.h"
#include "common/util.h"

int
history_record_json (const struct history_event *e, char **out, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  char when[80];
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return shim_error_plain (err, ENOMEM, "history record");
  util_rfc3339 (e->time_ns, when, sizeof (when));
  if (yajl_gen_map_open (g) != yajl_gen_status_ok || !json_kv_str (g, "id", e->id)
      || !json_kv_str (g, "name", e->names.name) || !json_kv_str (g, "pod", e->names.pod)
      || !json_kv_str (g, "namespace", e->names.pod_namespace) || !json_kv_str (g, "source", e->source)
      || !json_kv_str (g, "time", when) || !json_str (g, "verdict") || verdict_gen (g, e->v, err) < 0
      || yajl_gen_map_close (g) != yajl_gen_status_ok || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "history record");
  *out = strndup ((const char *) buf, len);
  if (*out == NULL)
    return shim_error_errno (err, "history record");
  return 0;
}

static int
dup_field (yajl_val obj, const char *key, char **out)
{
  const char *s = json_field_str (obj, key);
  *out = NULL;
  if (s && (*out = strdup (s)) == NULL)
    return -1;
  return 0;
}

int
history_record_parse (const char *json, struct history_record *r, shim_error_t *err)
{
  char errbuf[256] = "";
  cleanup_yajl_val yajl_val root = yajl_tree_parse (json, errbuf, sizeof (errbuf));
  yajl_val v, x;

  memset (r, 0, sizeof (*r));
  r->oom_killed = VERDICT_NULL;
  if (root == NULL)
    return shim_error_plain (err, EINVAL, "not JSON: %s", errbuf);
  v = json_field (root, "verdict");
  if (!YAJL_IS_OBJECT (root) || v == NULL || !YAJL_IS_OBJECT (v) || json_field_str (root, "id") == NULL)
    return shim_error_plain (err, EINVAL, "not a history record (no `id` or `verdict`)");
  if (dup_field (root, "id", &r->id) < 0 || dup_field (root, "name", &r->name) < 0
      || dup_field (root, "pod", &r->pod) < 0 || dup_field (root, "namespace", &r->pod_namespace) < 0
      || dup_field (root, "source", &r->source) < 0 || dup_field (root, "time", &r->time) < 0
      || dup_field (v, "reason", &r->reason) < 0 || dup_field (v, "message", &r->message) < 0
      || dup_field (v, "signal", &r->signal) < 0 || (r->json = strdup (json)) == NULL)
    {
      history_record_release (r);
      return shim_error_errno (err, "history record");
    }
  x = json_field (v, "oom_killed");
  if (x && YAJL_IS_TRUE (x))
    r->oom_killed = VERDICT_TRUE;
  else if (x && YAJL_IS_FALSE (x))
    r->oom_killed = VERDICT_FALSE;
  x = json_field (v, "exit_code");
  if (x && YAJL_IS_INTEGER (x))
    {
      r->have_exit_code = true;
      r->exit_code = YAJL_GET_INTEGER (x);
    }
  x = json_field (v, "memory_peak");
  if (x && YAJL_IS_INTEGER (x) && YAJL_GET_INTEGER (x) >= 0)
    {
      r->have_peak = true;
      r->peak = (uint64_t) YAJL_GET_INTEGER (x);
    }
  /* The JSON arrays hold it on one line. */
  for (char *p = r->json; *p; p++)
    if (*p == '\n')
      *p = ' ';
  return 0;
}

void
history_record_release (struct history_record *r)
{
  free (r->file);
  free (r->json);
  free (r->time);
  free (r->id);
  free (r->name);
  free (r->pod);
  free (r->pod_namespace);
  free (r->source);
  free (r->reason);
  free (r->message);
  free (r->signal);
  memset (r, 0, sizeof (*r));
}

bool
history_record_matches (const struct history_record *r, const char *match)
{
  char full[1024];

  if (match == NULL || *match == '\0')
    return true;
  if (r->id && strncmp (r->id, match, strlen (match)) == 0)
    return true;
  if (r->name == NULL)
    return false;
  if (strcmp (r->name, match) == 0)
    return true;
  if (r->pod && snprintf (full, sizeof (full), "%s/%s", r->pod, r->name) < (int) sizeof (full)
      && strcmp (full, match) == 0)
    return true;
  return r->pod && r->pod_namespace
         && snprintf (full, sizeof (full), "%s/%s/%s", r->pod_namespace, r->pod, r->name) < (int) sizeof (full)
         && strcmp (full, match) == 0;
}

/* A growing string. */
struct buf
{
  char *s;
  size_t len, cap;
  bool bad;
};

static void
put (struct buf *b, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void
put (struct buf *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (b->bad)
    return;
  for (;;)
    {
      va_start (ap, fmt);
      n = vsnprintf (b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
      va_end (ap);
      if (n < 0)
        {
          b->bad = true;
          return;
        }
      if (b->s && (size_t) n < b->cap - b->len)
        {
          b->len += (size_t) n;
          return;
        }
      size_t cap = (b->cap + (size_t) n + 1) * 2;
      char *s = realloc (b->s, cap);
      if (s == NULL)
        {
          b->bad = true;
          return;
        }
      b->s = s;
      b->cap = cap;
    }
}

enum
{
  COL_TIME,
  COL_ID,
  COL_NAME,
  COL_REASON,
  COL_OOM,
  COL_EXIT,
  COL_PEAK,
  COL_SOURCE,
  N_COLS
};

static void
cells (const struct history_record *r, char cell[N_COLS][256])
{
  static const char *const head[N_COLS] = { "TIME", "ID", "NAME", "REASON", "OOM_KILLED", "EXIT", "PEAK", "SOURCE" };

  if (r == NULL)
    {
      for (int i = 0; i < N_COLS; i++)
        snprintf (cell[i], 256, "%s", head[i]);
      return;
    }
  /* Seconds are enough in a table; --json has the nanoseconds. */
  snprintf (cell[COL_TIME], 256, "%.19s", r->time ? r->time : "-");
  snprintf (cell[COL_ID], 256, "%s", r->id);
  snprintf (cell[COL_NAME], 256, "%s", r->name ? r->name : "-");
  snprintf (cell[COL_REASON], 256, "%s", r->reason ? r->reason : "-");
  snprintf (cell[COL_OOM], 256, "%s",
            r->oom_killed == VERDICT_TRUE ? "true" : r->oom_killed == VERDICT_FALSE ? "false" : "null");
  if (r->signal)
    snprintf (cell[COL_EXIT], 256, "%s", r->signal);
  else if (r->have_exit_code)
    snprintf (cell[COL_EXIT], 256, "%lld", (long long) r->exit_code);
  else
    snprintf (cell[COL_EXIT], 256, "-");
  if (r->have_peak)
    verdict_format_size (r->peak, cell[COL_PEAK], 256);
  else
    snprintf (cell[COL_PEAK], 256, "-");
  snprintf (cell[COL_SOURCE], 256, "%s", r->source ? r->source : "-");
}

int
history_format (const struct history_record *r, size_t n, bool json, char **out)
{
  struct buf b = { 0 };
  size_t width[N_COLS] = { 0 };
  char cell[N_COLS][256];

  if (json)
    {
      put (&b, "[");
      for (size_t i = 0; i < n; i++)
        put (&b, "%s%s", i ? "," : "", r[i].json);
      put (&b, "]\n");
    }
  else
    {
      /* Two passes, as `shim list`: the widths, then the lines. */
      for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i <= n; i++)
          {
            cells (i == 0 ? NULL : &r[i - 1], cell);
            for (int c = 0; c < N_COLS; c++)
              {
                size_t l = strlen (cell[c]);
                if (pass == 0 && l > width[c])
                  width[c] = l;
                if (pass == 1)
                  put (&b, "%-*s%s", c + 1 < N_COLS ? (int) width[c] : 0, cell[c], c + 1 < N_COLS ? "   " : "\n");
              }
          }
    }
  if (b.bad)
    {
      free (b.s);
      return -1;
    }
  *out = b.s;
  return 0;
}

int
history_parse_since (const char *s, int64_t now_ns, int64_t *out, shim_error_t *err)
{
  struct tm tm = { 0 };
  uint64_t n;
  const char *rest;
  char *num;
  size_t len = strlen (s);

  if (s[0] == '@' && util_parse_u64 (s + 1, &n) == 0 && n < INT64_MAX / 1000000000)
    {
      *out = (int64_t) n * 1000000000;
      return 0;
    }
  if (len >= 2 && strchr ("smhd", s[len - 1]) && (num = strndup (s, len - 1)) != NULL)
    {
      static const int64_t unit[] = { ['s'] = 1, ['m'] = 60, ['h'] = 3600, ['d'] = 86400 };
      int ok = util_parse_u64 (num, &n) == 0 && n < (uint64_t) (INT64_MAX / 1000000000 / 86400);
      free (num);
      if (ok)
        {
          *out = now_ns - (int64_t) n * unit[(unsigned char) s[len - 1]] * 1000000000;
          return 0;
        }
    }
  rest = strptime (s, "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest)
    {
      /* Fractions of a second are dropped; the zone must be UTC. */
      if (*rest == '.')
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
          ;
      if (strcmp (rest, "Z") == 0 || strcmp (rest, "+00:00") == 0)
        {
          *out = (int64_t) timegm (&tm) * 1000000000;
          return 0;
        }
    }
  return shim_error_plain (err, EINVAL,
                           "--since: `%s` is neither a UTC time (2026-12-06T02:00:00Z), nor @SECONDS, nor an "
                           "age (90s, 15m, 2h, 7d)",
                           s);
}
