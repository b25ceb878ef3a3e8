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

static yajl_gen_status
gen_str_or_null (yajl_gen g, const char *s)
{
  return s[0] ? json_gen_str (g, s) : yajl_gen_null (g);
}

/* [{"pid":4121,"command":"python3","anon_rss":..,"file_rss":..,"shmem_rss":..,"cgroup":"."}] */
static yajl_gen_status
gen_victims (yajl_gen g, const struct verdict *v)
{
  yajl_gen_status st = yajl_gen_status_ok;

  if (!v->oom.have_victims)
    return yajl_gen_null (g);
  JSON_TRY (st, yajl_gen_array_open (g));
  for (size_t i = 0; i < v->oom.n_victims; i++)
    {
      const struct verdict_victim *x = &v->oom.victims[i];
      const char *keys[] = { "anon_rss", "file_rss", "shmem_rss" };
      uint64_t vals[] = { x->anon_rss, x->file_rss, x->shmem_rss };

      JSON_TRY (st, yajl_gen_map_open (g));
      JSON_TRY (st, json_gen_str (g, "pid"));
      JSON_TRY (st, yajl_gen_integer (g, (long long) x->pid));
      JSON_TRY (st, json_gen_str (g, "command"));
      JSON_TRY (st, gen_str_or_null (g, x->comm));
      for (size_t k = 0; k < 3; k++)
        {
          JSON_TRY (st, json_gen_str (g, keys[k]));
          JSON_TRY (st, x->have_rss ? yajl_gen_integer (g, (long long) vals[k]) : yajl_gen_null (g));
        }
      JSON_TRY (st, json_gen_str (g, "cgroup"));
      JSON_TRY (st, gen_str_or_null (g, x->cgroup));
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  JSON_TRY (st, yajl_gen_array_close (g));
  return st;
}

static yajl_gen_status
gen_witnesses (yajl_gen g, unsigned w)
{
  static const char *const names[] = { "counters", "ancestor", "kmsg" };
  yajl_gen_status st = yajl_gen_status_ok;

  JSON_TRY (st, yajl_gen_array_open (g));
  for (unsigned i = 0; i < 3; i++)
    if (w & (1u << i))
      JSON_TRY (st, json_gen_str (g, names[i]));
  JSON_TRY (st, yajl_gen_array_close (g));
  return st;
}

int
verdict_gen (yajl_gen g, const struct verdict *v, shim_error_t *err)
{
  if (verdict_gen_fields (g, v, err) < 0)
    return -1;
  if (yajl_gen_map_close (g) != yajl_gen_status_ok)
    return shim_error (err, 0, "generate verdict JSON: close the object");
  return 0;
}

int
verdict_gen_fields (yajl_gen g, const struct verdict *v, shim_error_t *err)
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
      JSON_TRY (st, json_gen_str (g, "group_kill_by"));
      if (v->oom.group_kill_by == VERDICT_GROUP_BY_NONE)
        JSON_TRY (st, yajl_gen_null (g));
      else
        JSON_TRY (st, json_gen_str (g, v->oom.group_kill_by == VERDICT_GROUP_BY_RUNTIME ? "runtime" : "kernel"));
      JSON_TRY (st, json_gen_str (g, "nested_kills"));
      JSON_TRY (st, v->oom.nested_kills_unknown ? yajl_gen_null (g)
                                                : yajl_gen_integer (g, (long long) v->oom.nested_kills));
      JSON_TRY (st, json_gen_str (g, "oom_memcg"));
      JSON_TRY (st, gen_str_or_null (g, v->oom.oom_memcg));
      JSON_TRY (st, json_gen_str (g, "max_events"));
      JSON_TRY (st, v->oom.have_max_events ? yajl_gen_integer (g, (long long) v->oom.max_events)
                                           : yajl_gen_null (g));
      JSON_TRY (st, json_gen_str (g, "victims"));
      JSON_TRY (st, gen_victims (g, v));
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
  JSON_TRY (st, json_gen_str (g, "pids_limit"));
  JSON_TRY (st, v->have_pids_limit ? yajl_gen_integer (g, (long long) v->pids_limit) : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "pids_max_events"));
  JSON_TRY (st, v->have_pids_max_events ? yajl_gen_integer (g, (long long) v->pids_max_events)
                                        : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "killed_by"));
  if (v->killed_by == VERDICT_BY_NONE)
    JSON_TRY (st, yajl_gen_null (g));
  else
    JSON_TRY (st, json_gen_str (g, v->killed_by == VERDICT_BY_RUNTIME ? "runtime" : "outside"));
  JSON_TRY (st, json_gen_str (g, "message"));
  JSON_TRY (st, json_gen_str (g, v->message));
  JSON_TRY (st, json_gen_str (g, "hint"));
  JSON_TRY (st, v->hint[0] ? json_gen_str (g, v->hint) : yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "witnesses"));
  JSON_TRY (st, gen_witnesses (g, v->witnesses));
  JSON_TRY (st, json_gen_str (g, "provisional"));
  JSON_TRY (st, yajl_gen_bool (g, v->provisional));
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
