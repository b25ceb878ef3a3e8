/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_verdict.h"

#include <errno.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/json.h"
#include "common/util.h"
#include "evidence/input.h"

const char *
hook_verdict_record_kind_name (enum hook_record_kind k)
{
  switch (k)
    {
    case HOOK_RECORD_COMPLETE:
      return "complete";
    case HOOK_RECORD_INCOMPLETE:
      return "incomplete";
    default:
      return "missing";
    }
}

enum hook_record_kind
hook_verdict_compute (const char *id, const struct watcher_record *r, const char *why_missing,
                      int64_t init_pid, struct verdict *v)
{
  struct evidence_sources src;
  enum evidence_record_kind kind;

  /* The limit could be enforced when the memory controller was there. */
  evidence_input_init (&src, id, r && r->have_baseline && (r->baseline.have & CG_SNAP_MAX));
  kind = evidence_input_record (&src, r, why_missing);
  /* init's pid at arming: the kernel log's victims are matched to it. */
  evidence_input_init_pid (&src, init_pid);
  /* runc's and crun's `kill` pass no hook: whether they sent a signal is
   * never "no". */
  evidence_input_signals_unseen (&src);
  evidence_input_compute (&src, v);
  return kind == EVIDENCE_RECORD_COMPLETE     ? HOOK_RECORD_COMPLETE
         : kind == EVIDENCE_RECORD_INCOMPLETE ? HOOK_RECORD_INCOMPLETE
                                             : HOOK_RECORD_MISSING;
}

static yajl_gen_status
gen_str_or_null (yajl_gen g, const char *s)
{
  return s ? json_gen_str (g, s) : yajl_gen_null (g);
}

int
hook_verdict_document (const char *id, const struct verdict *v, enum hook_record_kind kind,
                       const struct hook_meta *meta, bool oom_file, char **out, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  yajl_gen_status st = yajl_gen_status_ok;
  const unsigned char *buf;
  size_t len;
  char now[UTIL_RFC3339_LEN];

  if (g == NULL)
    return shim_error_plain (err, ENOMEM, "generate the verdict file");
  util_rfc3339_now (now, sizeof now);
  JSON_TRY (st, yajl_gen_map_open (g));
  JSON_TRY (st, json_gen_str (g, "id"));
  JSON_TRY (st, json_gen_str (g, id));
  JSON_TRY (st, json_gen_str (g, "written_at"));
  JSON_TRY (st, json_gen_str (g, now));
  JSON_TRY (st, json_gen_str (g, "stage"));
  JSON_TRY (st, json_gen_str (g, "poststop"));
  /* The watcher's pidfd tells it where the kernel keeps a reaped
   * process's status (6.15 and later). */
  JSON_TRY (st, json_gen_str (g, "exit_status_known"));
  JSON_TRY (st, yajl_gen_bool (g, v->have_exit_code || v->signal != 0));
  JSON_TRY (st, json_gen_str (g, "record"));
  JSON_TRY (st, json_gen_str (g, hook_verdict_record_kind_name (kind)));
  JSON_TRY (st, json_gen_str (g, "cgroup"));
  JSON_TRY (st, gen_str_or_null (g, meta ? meta->cgroup : NULL));
  JSON_TRY (st, json_gen_str (g, "bundle"));
  JSON_TRY (st, gen_str_or_null (g, meta ? meta->bundle : NULL));
  JSON_TRY (st, json_gen_str (g, "oom_file"));
  JSON_TRY (st, yajl_gen_bool (g, oom_file));
  JSON_TRY (st, json_gen_str (g, "verdict"));
  if (st != yajl_gen_status_ok || verdict_gen (g, v, err) < 0
      || yajl_gen_map_close (g) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "generate the verdict file");
  *out = strndup ((const char *) buf, len);
  if (*out == NULL)
    return shim_error_errno (err, "generate the verdict file");
  return 0;
}

/* Write a parsed value back as JSON (show --json prints the verdict object
 * exactly as stored, as one line). */
static yajl_gen_status
gen_value (yajl_gen g, yajl_val v)
{
  yajl_gen_status st = yajl_gen_status_ok;

  if (YAJL_IS_STRING (v))
    return json_gen_str (g, v->u.string);
  if (YAJL_IS_INTEGER (v))
    return yajl_gen_integer (g, YAJL_GET_INTEGER (v));
  if (YAJL_IS_NUMBER (v))
    return yajl_gen_number (g, v->u.number.r, strlen (v->u.number.r));
  if (YAJL_IS_TRUE (v) || YAJL_IS_FALSE (v))
    return yajl_gen_bool (g, YAJL_IS_TRUE (v));
  if (YAJL_IS_OBJECT (v))
    {
      st = yajl_gen_map_open (g);
      for (size_t i = 0; st == yajl_gen_status_ok && i < v->u.object.len; i++)
        {
          st = json_gen_str (g, v->u.object.keys[i]);
          if (st == yajl_gen_status_ok)
            st = gen_value (g, v->u.object.values[i]);
        }
      return st == yajl_gen_status_ok ? yajl_gen_map_close (g) : st;
    }
  if (YAJL_IS_ARRAY (v))
    {
      st = yajl_gen_array_open (g);
      for (size_t i = 0; st == yajl_gen_status_ok && i < v->u.array.len; i++)
        st = gen_value (g, v->u.array.values[i]);
      return st == yajl_gen_status_ok ? yajl_gen_array_close (g) : st;
    }
  return yajl_gen_null (g);
}

static char *
dup_string (yajl_val obj, const char *key)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get (obj, path, yajl_t_string);
  return v ? strdup (v->u.string) : NULL;
}

int
hook_verdict_parse_document (const char *text, struct hook_shown *out, shim_error_t *err)
{
  cleanup_yajl_val yajl_val root = NULL;
  cleanup_yajl_gen yajl_gen g = NULL;
  const char *path[] = { "verdict", NULL };
  const unsigned char *buf;
  size_t len;
  yajl_val v;
  char ebuf[128];

  memset (out, 0, sizeof *out);
  root = yajl_tree_parse (text, ebuf, sizeof ebuf);
  v = root ? yajl_tree_get (root, path, yajl_t_object) : NULL;
  if (v == NULL)
    return shim_error_plain (err, EINVAL, "`" HOOK_VERDICT "`: no `verdict` object");
  g = yajl_gen_alloc (NULL);
  if (g == NULL || gen_value (g, v) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok
      || (out->verdict_json = strndup ((const char *) buf, len)) == NULL)
    return shim_error_plain (err, ENOMEM, "`" HOOK_VERDICT "`: print the verdict");
  out->message = dup_string (v, "message");
  out->hint = dup_string (v, "hint");
  return 0;
}

void
hook_verdict_shown_release (struct hook_shown *s)
{
  free (s->verdict_json);
  free (s->message);
  free (s->hint);
  memset (s, 0, sizeof *s);
}
