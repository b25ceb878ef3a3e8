/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log's evidence as JSON, for the watcher's record
 * (kmsg_evidence.h): written as read, escaped as the kernel escapes it,
 * and read back with every field checked. */
#include "evidence/kmsg_evidence.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"

static const char *const kmsg_access_names[] = {
  [KMSG_NOT_READ] = "not_read",
  [KMSG_READ] = "read",
  [KMSG_DENIED] = "denied",
  [KMSG_OTHER_NS] = "other_ns",
};
#define KMSG_N_ACCESS (sizeof kmsg_access_names / sizeof kmsg_access_names[0])

/* Strings go out escaped as the kernel escapes them: the comm and the
 * workload's cgroup names are any bytes, and JSON wants UTF-8. */
static bool
gen_escaped (yajl_gen g, const char *key, const char *v)
{
  char buf[KMSG_PATH_MAX * 4];

  kmsg_escape (v, buf, sizeof buf);
  return json_kv_str (g, key, buf);
}

static bool
gen_kill (yajl_gen g, const struct kmsg_oom_kill *k)
{
  return yajl_gen_map_open (g) == yajl_gen_status_ok && json_kv_int (g, "seq", (long long) k->seq)
         && json_kv_bool (g, "memcg", k->memcg) && json_kv_bool (g, "summary", k->have_summary)
         && json_kv_bool (g, "victim", k->have_victim)
         && gen_escaped (g, "oom_memcg", k->oom_memcg)
         && gen_escaped (g, "task_memcg", k->task_memcg) && gen_escaped (g, "comm", k->comm)
         && json_kv_int (g, "pid", k->pid) && json_kv_int (g, "uid", k->uid)
         && json_kv_int (g, "total_vm_kb", (long long) k->total_vm_kb)
         && json_kv_int (g, "anon_rss_kb", (long long) k->anon_rss_kb)
         && json_kv_int (g, "file_rss_kb", (long long) k->file_rss_kb)
         && json_kv_int (g, "shmem_rss_kb", (long long) k->shmem_rss_kb)
         && json_kv_bool (g, "group_member", k->group_member)
         && gen_escaped (g, "oom_group", k->oom_group)
         && yajl_gen_map_close (g) == yajl_gen_status_ok;
}

int
kmsg_evidence_gen (yajl_gen g, const struct kmsg_evidence *ev, shim_error_t *err)
{
  unsigned a = (unsigned) ev->access;
  bool ok;
  size_t i;

  ok = yajl_gen_map_open (g) == yajl_gen_status_ok
       && gen_escaped (g, "cgroup", ev->cgroup)
       && json_kv_str (g, "access", a < KMSG_N_ACCESS ? kmsg_access_names[a] : "not_read")
       && json_kv_int (g, "error", ev->error) && json_kv_bool (g, "lost", ev->lost)
       && json_kv_int (g, "unattributed", (long long) ev->unattributed)
       && json_kv_bool (g, "truncated", ev->truncated)
       && json_kv_int (g, "relisted", (long long) ev->relisted) && json_str (g, "kills")
       && yajl_gen_array_open (g) == yajl_gen_status_ok;
  for (i = 0; ok && i < ev->n && i < KMSG_MAX_KILLS; i++)
    ok = gen_kill (g, &ev->kills[i]);
  ok = ok && yajl_gen_array_close (g) == yajl_gen_status_ok
       && yajl_gen_map_close (g) == yajl_gen_status_ok;
  if (!ok)
    return shim_error_plain (err, EIO, "kmsg evidence: cannot write its JSON");
  return 0;
}

/* The readers: an absent (or null) key keeps the zero value; a key of the
 * wrong type is an error naming it. */
static int
get_bool (yajl_val o, const char *where, const char *key, bool *out, shim_error_t *err)
{
  yajl_val v = json_field (o, key);

  if (v != NULL && !YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
    return shim_error_plain (err, EINVAL, "%s.%s: not a boolean", where, key);
  *out = v != NULL && YAJL_IS_TRUE (v);
  return 0;
}

static int
get_int (yajl_val o, const char *where, const char *key, long long min, long long max,
         long long *out, shim_error_t *err)
{
  yajl_val v = json_field (o, key);

  if (v != NULL
      && (!YAJL_IS_INTEGER (v) || YAJL_GET_INTEGER (v) < min || YAJL_GET_INTEGER (v) > max))
    return shim_error_plain (err, EINVAL, "%s.%s: not an integer from %lld to %lld", where, key,
                             min, max);
  *out = v != NULL ? YAJL_GET_INTEGER (v) : 0;
  return 0;
}

static int
get_str (yajl_val o, const char *where, const char *key, char *out, size_t size, shim_error_t *err)
{
  yajl_val v = json_field (o, key);

  if (v != NULL && !YAJL_IS_STRING (v))
    return shim_error_plain (err, EINVAL, "%s.%s: not a string", where, key);
  if (!kmsg_unescape_str (v ? v->u.string : "", out, size))
    return shim_error_plain (err, EINVAL, "%s.%s: longer than %zu bytes or badly escaped", where,
                             key, size - 1);
  return 0;
}

static int
kill_from_tree (yajl_val o, const char *where, struct kmsg_oom_kill *k, shim_error_t *err)
{
  long long seq = 0, pid = 0, uid = 0, vm = 0, anon = 0, file = 0, shmem = 0;
  const long long big = (long long) KMSG_NUM_LIMIT;

  if (!YAJL_IS_OBJECT (o))
    return shim_error_plain (err, EINVAL, "%s: not an object", where);
  if (get_int (o, where, "seq", 0, LLONG_MAX, &seq, err) < 0
      || get_bool (o, where, "memcg", &k->memcg, err) < 0
      || get_bool (o, where, "summary", &k->have_summary, err) < 0
      || get_bool (o, where, "victim", &k->have_victim, err) < 0
      || get_str (o, where, "oom_memcg", k->oom_memcg, sizeof k->oom_memcg, err) < 0
      || get_str (o, where, "task_memcg", k->task_memcg, sizeof k->task_memcg, err) < 0
      || get_str (o, where, "comm", k->comm, sizeof k->comm, err) < 0
      || get_int (o, where, "pid", 0, KMSG_PID_LIMIT, &pid, err) < 0
      || get_int (o, where, "uid", -big, big, &uid, err) < 0
      || get_int (o, where, "total_vm_kb", 0, big, &vm, err) < 0
      || get_int (o, where, "anon_rss_kb", 0, big, &anon, err) < 0
      || get_int (o, where, "file_rss_kb", 0, big, &file, err) < 0
      || get_int (o, where, "shmem_rss_kb", 0, big, &shmem, err) < 0
      || get_bool (o, where, "group_member", &k->group_member, err) < 0
      || get_str (o, where, "oom_group", k->oom_group, sizeof k->oom_group, err) < 0)
    return -1;
  k->seq = (uint64_t) seq;
  k->pid = pid;
  k->uid = uid;
  k->total_vm_kb = (uint64_t) vm;
  k->anon_rss_kb = (uint64_t) anon;
  k->file_rss_kb = (uint64_t) file;
  k->shmem_rss_kb = (uint64_t) shmem;
  return 0;
}

int
kmsg_evidence_from_tree (yajl_val v, const char *where, struct kmsg_evidence *ev,
                         shim_error_t *err)
{
  long long error = 0, unattributed = 0, relisted = 0;
  const char *access;
  yajl_val kills;
  size_t i;

  memset (ev, 0, sizeof *ev);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  if (!YAJL_IS_OBJECT (v))
    return shim_error_plain (err, EINVAL, "%s: not an object", where);
  if ((access = json_field_str (v, "access")) == NULL)
    return shim_error_plain (err, EINVAL, "%s.access: missing or not a string", where);
  for (i = 0; i < KMSG_N_ACCESS && strcmp (access, kmsg_access_names[i]) != 0; i++)
    ;
  if (i == KMSG_N_ACCESS)
    return shim_error_plain (err, EINVAL, "%s.access: unknown value `%s`", where, access);
  ev->access = (enum kmsg_access) i;
  if (get_str (v, where, "cgroup", ev->cgroup, sizeof ev->cgroup, err) < 0
      || get_int (v, where, "error", 0, INT_MAX, &error, err) < 0
      || get_bool (v, where, "lost", &ev->lost, err) < 0
      || get_int (v, where, "unattributed", 0, LLONG_MAX, &unattributed, err) < 0
      || get_bool (v, where, "truncated", &ev->truncated, err) < 0
      || get_int (v, where, "relisted", 0, LLONG_MAX, &relisted, err) < 0)
    return -1;
  ev->error = (int) error;
  ev->unattributed = (uint64_t) unattributed;
  ev->relisted = (uint64_t) relisted;
  if ((kills = json_field (v, "kills")) == NULL)
    return 0;
  if (!YAJL_IS_ARRAY (kills) || kills->u.array.len > KMSG_MAX_KILLS)
    return shim_error_plain (err, EINVAL, "%s.kills: not an array of at most %d kills", where,
                             KMSG_MAX_KILLS);
  for (i = 0; i < kills->u.array.len; i++)
    {
      char w[256];
      snprintf (w, sizeof w, "%s.kills[%zu]", where, i);
      if (kill_from_tree (kills->u.array.values[i], w, &ev->kills[i], err) < 0)
        return -1;
      ev->n++;
    }
  return 0;
}
