/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict as JSON, with docs/DESIGN.md's field names. */
#include "verdict/verdict_internal.h"

#include <errno.h>
#include <string.h>

#include "common/json.h"

const char *
verdict_reason_name (enum verdict_reason r)
{
  switch (r)
    {
    case VERDICT_OOM_KILLED:
      return "OOMKilled";
    case VERDICT_KILLED:
      return "Killed";
    case VERDICT_SIGNALED:
      return "Signaled";
    case VERDICT_EXITED:
      return "Exited";
    default:
      return "Unknown";
    }
}

static yajl_gen_status
gen_tri (yajl_gen g, enum verdict_tri t)
{
  return t == VERDICT_NULL ? yajl_gen_null (g) : yajl_gen_bool (g, t == VERDICT_TRUE);
}

int
verdict_gen (yajl_gen g, const struct verdict *v, shim_error_t *err)
{
  yajl_gen_status st = yajl_gen_status_ok;
  char sig[24];

  JSON_TRY (st, yajl_gen_map_open (g));
  JSON_TRY (st, json_gen_str (g, "reason"));
  JSON_TRY (st, json_gen_str (g, verdict_reason_name (v->reason)));
  JSON_TRY (st, json_gen_str (g, "exit_code"));
  JSON_TRY (st, v->have_exit_code ? yajl_gen_integer (g, v->exit_code) : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "signal"));
  if (v->signal > 0)
    {
      verdict_signal_name (v->signal, sig, sizeof sig);
      JSON_TRY (st, json_gen_str (g, sig));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "oom_killed"));
  JSON_TRY (st, gen_tri (g, v->oom_killed));
  JSON_TRY (st, json_gen_str (g, "oom"));
  if (v->have_oom)
    {
      JSON_TRY (st, yajl_gen_map_open (g));
      JSON_TRY (st, json_gen_str (g, "scope"));
      if (v->oom.scope == VERDICT_SCOPE_NONE)
        JSON_TRY (st, yajl_gen_null (g));
      else
        JSON_TRY (st, json_gen_str (g, v->oom.scope == VERDICT_SCOPE_CONTAINER ? "container" : "ancestor"));
      JSON_TRY (st, json_gen_str (g, "kills"));
      JSON_TRY (st, yajl_gen_integer (g, (long long) v->oom.kills));
      JSON_TRY (st, json_gen_str (g, "group_kill"));
      JSON_TRY (st, gen_tri (g, v->oom.group_kill));
      JSON_TRY (st, json_gen_str (g, "nested_kills"));
      JSON_TRY (st, yajl_gen_integer (g, (long long) v->oom.nested_kills));
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "memory_limit"));
  JSON_TRY (st, v->have_memory_limit ? yajl_gen_integer (g, (long long) v->memory_limit)
                                     : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "memory_peak"));
  JSON_TRY (st, v->have_memory_peak ? yajl_gen_integer (g, (long long) v->memory_peak)
                                    : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "memory_limit_enforced"));
  JSON_TRY (st, yajl_gen_bool (g, v->memory_limit_enforced));
  JSON_TRY (st, json_gen_str (g, "killed_by"));
  if (v->killed_by == VERDICT_BY_NONE)
    JSON_TRY (st, yajl_gen_null (g));
  else
    JSON_TRY (st, json_gen_str (g, v->killed_by == VERDICT_BY_RUNTIME ? "runtime" : "outside"));
  JSON_TRY (st, json_gen_str (g, "message"));
  JSON_TRY (st, json_gen_str (g, v->message));
  JSON_TRY (st, json_gen_str (g, "hint"));
  JSON_TRY (st, v->hint[0] ? json_gen_str (g, v->hint) : yajl_gen_null (g));
  JSON_TRY (st, yajl_gen_map_close (g));
  if (st != yajl_gen_status_ok)
    return shim_error (err, 0, "generate verdict JSON: yajl status %d", (int) st);
  return 0;
}

int
verdict_to_json (const struct verdict *v, char **out, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return shim_error (err, ENOMEM, "generate verdict JSON");
  if (verdict_gen (g, v, err) < 0)
    return -1;
  if (yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok
      || (*out = strndup ((const char *) buf, len)) == NULL)
    return shim_error (err, ENOMEM, "generate verdict JSON");
  return 0;
}
