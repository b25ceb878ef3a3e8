/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup snapshot's JSON form (cgroup_files.h): the generator and the
 * reader, from one table of fields each, so that the two cannot drift
 * apart.  Split from cgroup_files.c, which reads the files. */
#include "cgroup/cgroup_files.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "common/util.h"

/* Field tables shared by the generator and the reader, so the two cannot
 * drift apart. */
struct u64_field
{
  const char *key;
  unsigned bit;
  size_t off;
};

static const struct u64_field events_fields[] = {
  { "low", CG_EV_LOW, offsetof (struct cg_memory_events, low) },
  { "high", CG_EV_HIGH, offsetof (struct cg_memory_events, high) },
  { "max", CG_EV_MAX, offsetof (struct cg_memory_events, max) },
  { "oom", CG_EV_OOM, offsetof (struct cg_memory_events, oom) },
  { "oom_kill", CG_EV_OOM_KILL, offsetof (struct cg_memory_events, oom_kill) },
  { "oom_group_kill", CG_EV_OOM_GROUP_KILL, offsetof (struct cg_memory_events, oom_group_kill) },
  { NULL, 0, 0 },
};

static const struct u64_field stat_fields[] = {
  { "anon", CG_STAT_ANON, offsetof (struct cg_memory_stat, anon) },
  { "file", CG_STAT_FILE, offsetof (struct cg_memory_stat, file) },
  { "kernel", CG_STAT_KERNEL, offsetof (struct cg_memory_stat, kernel) },
  { "shmem", CG_STAT_SHMEM, offsetof (struct cg_memory_stat, shmem) },
  { "sock", CG_STAT_SOCK, offsetof (struct cg_memory_stat, sock) },
  { "file_mapped", CG_STAT_FILE_MAPPED, offsetof (struct cg_memory_stat, file_mapped) },
  { "anon_thp", CG_STAT_ANON_THP, offsetof (struct cg_memory_stat, anon_thp) },
  { NULL, 0, 0 },
};

#define FIELD(base, off) ((uint64_t *) ((char *) (base) + (off)))

/* Values are <= INT64_MAX by construction (parse_number), so the cast keeps
 * them. */
static yajl_gen_status
gen_u64 (yajl_gen g, uint64_t v)
{
  return yajl_gen_integer (g, (long long) v);
}

static yajl_gen_status
gen_fields (yajl_gen g, const struct u64_field *f, unsigned have, const void *base)
{
  yajl_gen_status s = yajl_gen_map_open (g);
  for (; s == yajl_gen_status_ok && f->key; f++)
    if (have & f->bit)
      {
        s = json_gen_str (g, f->key);
        if (s == yajl_gen_status_ok)
          s = gen_u64 (g, *FIELD (base, f->off));
      }
  return s == yajl_gen_status_ok ? yajl_gen_map_close (g) : s;
}

static yajl_gen_status
gen_limit (yajl_gen g, uint64_t v)
{
  if (v == CG_UNLIMITED)
    return yajl_gen_string (g, (const unsigned char *) "max", 3);
  return gen_u64 (g, v);
}

int
cg_snapshot_gen (yajl_gen g, const struct cg_snapshot *s, shim_error_t *err)
{
  yajl_gen_status st = yajl_gen_map_open (g);

#define PART(bit, gen) JSON_TRY (st, (s->have & (bit)) ? (gen) : yajl_gen_null (g))

  JSON_TRY (st, json_gen_str (g, "memory.events.local"));
  PART (CG_SNAP_EVENTS_LOCAL, gen_fields (g, events_fields, s->events_local.have, &s->events_local));
  JSON_TRY (st, json_gen_str (g, "memory.events"));
  PART (CG_SNAP_EVENTS, gen_fields (g, events_fields, s->events.have, &s->events));
  JSON_TRY (st, json_gen_str (g, "memory.peak"));
  PART (CG_SNAP_PEAK, gen_u64 (g, s->memory_peak));
  JSON_TRY (st, json_gen_str (g, "memory.max"));
  PART (CG_SNAP_MAX, gen_limit (g, s->memory_max));
  JSON_TRY (st, json_gen_str (g, "memory.swap.max"));
  PART (CG_SNAP_SWAP_MAX, gen_limit (g, s->memory_swap_max));
  JSON_TRY (st, json_gen_str (g, "memory.stat"));
  if (s->have & CG_SNAP_STAT)
    {
      /* Like gen_fields, plus the estimated flag, which is not a number. */
      JSON_TRY (st, yajl_gen_map_open (g));
      for (const struct u64_field *f = stat_fields; f->key; f++)
        if (s->stat.have & f->bit)
          {
            JSON_TRY (st, json_gen_str (g, f->key));
            JSON_TRY (st, gen_u64 (g, *FIELD (&s->stat, f->off)));
          }
      if (s->stat.have & CG_STAT_KERNEL_ESTIMATED)
        {
          JSON_TRY (st, json_gen_str (g, "kernel_estimated"));
          JSON_TRY (st, yajl_gen_bool (g, 1));
        }
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "cgroup.events"));
  if (s->have & CG_SNAP_CGROUP_EVENTS)
    {
      JSON_TRY (st, yajl_gen_map_open (g));
      if (s->cgroup_events.have & CG_CEV_POPULATED)
        {
          JSON_TRY (st, json_gen_str (g, "populated"));
          JSON_TRY (st, yajl_gen_bool (g, s->cgroup_events.populated));
        }
      if (s->cgroup_events.have & CG_CEV_FROZEN)
        {
          JSON_TRY (st, json_gen_str (g, "frozen"));
          JSON_TRY (st, yajl_gen_bool (g, s->cgroup_events.frozen));
        }
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "memory.oom.group"));
  PART (CG_SNAP_OOM_GROUP, yajl_gen_integer (g, s->oom_group ? 1 : 0));
  JSON_TRY (st, json_gen_str (g, "cgroup.id"));
  PART (CG_SNAP_ID, gen_u64 (g, s->cgroup_id));
  JSON_TRY (st, json_gen_str (g, "memory_localevents"));
  PART (CG_SNAP_LOCALEVENTS, yajl_gen_bool (g, s->localevents));
  /* Only when read: a snapshot without the pids controller (or from an
   * older writer) stays as it was. */
  if (s->have & CG_SNAP_PIDS_EVENTS)
    {
      JSON_TRY (st, json_gen_str (g, "pids.events"));
      JSON_TRY (st, yajl_gen_map_open (g));
      JSON_TRY (st, json_gen_str (g, "max"));
      JSON_TRY (st, gen_u64 (g, s->pids_max_events));
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  if (s->have & CG_SNAP_PIDS_MAX)
    {
      JSON_TRY (st, json_gen_str (g, "pids.max"));
      JSON_TRY (st, gen_limit (g, s->pids_max));
    }
  /* Only in v1 snapshots: a v2 snapshot's JSON stays as it was. */
  if (s->have & CG_SNAP_V1)
    {
      JSON_TRY (st, json_gen_str (g, "cgroup_v1"));
      JSON_TRY (st, yajl_gen_bool (g, 1));
      JSON_TRY (st, json_gen_str (g, "cgroup_v1.nested"));
      JSON_TRY (st, yajl_gen_bool (g, s->v1_nested));
    }
  JSON_TRY (st, yajl_gen_map_close (g));
#undef PART

  if (st != yajl_gen_status_ok)
    return shim_error (err, 0, "generate cgroup snapshot JSON: yajl status %d", (int) st);
  return 0;
}

int
cg_snapshot_to_json (const struct cg_snapshot *snap, char **out, shim_error_t *err)
{
  yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;
  int ret = -1;

  if (g == NULL)
    return shim_error (err, ENOMEM, "generate cgroup snapshot JSON");
  if (cg_snapshot_gen (g, snap, err) == 0 && yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok)
    {
      *out = strndup ((const char *) buf, len);
      ret = *out ? 0 : shim_error (err, ENOMEM, "generate cgroup snapshot JSON");
    }
  else
    shim_error (err, 0, "generate cgroup snapshot JSON");
  yajl_gen_free (g);
  return ret;
}

static int
tree_u64 (yajl_val v, const char *what, const char *path, uint64_t *out, shim_error_t *err)
{
  if (!YAJL_IS_INTEGER (v) || YAJL_GET_INTEGER (v) < 0)
    return shim_error (err, 0, "`%s`: `%s` is not a non-negative integer", what, path);
  *out = (uint64_t) YAJL_GET_INTEGER (v);
  return 0;
}

/* Look up key in an object; NULL when missing. */
static yajl_val
tree_key (yajl_val obj, const char *key)
{
  const char *path[] = { key, NULL };
  return yajl_tree_get (obj, path, yajl_t_any);
}

/* An object of known u64 fields; unknown fields are skipped (a newer writer). */
static int
tree_fields (yajl_val obj, const char *what, const char *part, const struct u64_field *f,
             unsigned *have, void *base, shim_error_t *err)
{
  if (!YAJL_IS_OBJECT (obj))
    return shim_error (err, 0, "`%s`: `%s` is not an object", what, part);
  for (; f->key; f++)
    {
      yajl_val v = tree_key (obj, f->key);
      char path[96];
      if (v == NULL || YAJL_IS_NULL (v))
        continue;
      snprintf (path, sizeof path, "%s.%s", part, f->key);
      if (tree_u64 (v, what, path, FIELD (base, f->off), err) < 0)
        return -1;
      *have |= f->bit;
    }
  return 0;
}

static int
tree_limit (yajl_val v, const char *what, const char *path, uint64_t *out, shim_error_t *err)
{
  if (YAJL_IS_STRING (v) && strcmp (v->u.string, "max") == 0)
    {
      *out = CG_UNLIMITED;
      return 0;
    }
  return tree_u64 (v, what, path, out, err);
}

static int
tree_bool (yajl_val obj, const char *what, const char *key, unsigned bit, unsigned *have,
           bool *out, shim_error_t *err)
{
  yajl_val v = tree_key (obj, key);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
    return shim_error (err, 0, "`%s`: `cgroup.events.%s` is not a boolean", what, key);
  *out = YAJL_IS_TRUE (v);
  *have |= bit;
  return 0;
}

int
cg_snapshot_from_tree (yajl_val node, const char *what, struct cg_snapshot *s, shim_error_t *err)
{
  yajl_val v;

  memset (s, 0, sizeof *s);
  if (node == NULL || YAJL_IS_NULL (node))
    return 0;
  if (!YAJL_IS_OBJECT (node))
    return shim_error (err, 0, "`%s`: cgroup snapshot is not an object", what);

#define PRESENT(key) ((v = tree_key (node, key)) != NULL && !YAJL_IS_NULL (v))
  if (PRESENT ("memory.events.local"))
    {
      if (tree_fields (v, what, "memory.events.local", events_fields, &s->events_local.have,
                       &s->events_local, err) < 0)
        return -1;
      s->have |= CG_SNAP_EVENTS_LOCAL;
    }
  if (PRESENT ("memory.events"))
    {
      if (tree_fields (v, what, "memory.events", events_fields, &s->events.have, &s->events, err)
          < 0)
        return -1;
      s->have |= CG_SNAP_EVENTS;
    }
  if (PRESENT ("memory.peak"))
    {
      if (tree_u64 (v, what, "memory.peak", &s->memory_peak, err) < 0)
        return -1;
      s->have |= CG_SNAP_PEAK;
    }
  if (PRESENT ("memory.max"))
    {
      if (tree_limit (v, what, "memory.max", &s->memory_max, err) < 0)
        return -1;
      s->have |= CG_SNAP_MAX;
    }
  if (PRESENT ("memory.swap.max"))
    {
      if (tree_limit (v, what, "memory.swap.max", &s->memory_swap_max, err) < 0)
        return -1;
      s->have |= CG_SNAP_SWAP_MAX;
    }
  if (PRESENT ("memory.stat"))
    {
      yajl_val est;
      if (tree_fields (v, what, "memory.stat", stat_fields, &s->stat.have, &s->stat, err) < 0)
        return -1;
      est = tree_key (v, "kernel_estimated");
      if (est && YAJL_IS_TRUE (est) && (s->stat.have & CG_STAT_KERNEL))
        s->stat.have |= CG_STAT_KERNEL_ESTIMATED;
      s->have |= CG_SNAP_STAT;
    }
  if (PRESENT ("cgroup.events"))
    {
      struct cg_cgroup_events *c = &s->cgroup_events;
      if (!YAJL_IS_OBJECT (v))
        return shim_error (err, 0, "`%s`: `cgroup.events` is not an object", what);
      if (tree_bool (v, what, "populated", CG_CEV_POPULATED, &c->have, &c->populated, err) < 0
          || tree_bool (v, what, "frozen", CG_CEV_FROZEN, &c->have, &c->frozen, err) < 0)
        return -1;
      s->have |= CG_SNAP_CGROUP_EVENTS;
    }
  if (PRESENT ("memory.oom.group"))
    {
      uint64_t g = 0;
      if (tree_u64 (v, what, "memory.oom.group", &g, err) < 0)
        return -1;
      if (g > 1)
        return shim_error (err, 0, "`%s`: `memory.oom.group` is neither 0 nor 1", what);
      s->oom_group = g == 1;
      s->have |= CG_SNAP_OOM_GROUP;
    }
  if (PRESENT ("cgroup.id"))
    {
      if (tree_u64 (v, what, "cgroup.id", &s->cgroup_id, err) < 0)
        return -1;
      s->have |= CG_SNAP_ID;
    }
  if (PRESENT ("memory_localevents"))
    {
      if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
        return shim_error (err, 0, "`%s`: `memory_localevents` is not a boolean", what);
      s->localevents = YAJL_IS_TRUE (v);
      s->have |= CG_SNAP_LOCALEVENTS;
    }
  if (PRESENT ("pids.events"))
    {
      if (!YAJL_IS_OBJECT (v))
        return shim_error (err, 0, "`%s`: `pids.events` is not an object", what);
      if ((v = tree_key (v, "max")) != NULL && !YAJL_IS_NULL (v))
        {
          if (tree_u64 (v, what, "pids.events.max", &s->pids_max_events, err) < 0)
            return -1;
          s->have |= CG_SNAP_PIDS_EVENTS;
        }
    }
  if (PRESENT ("pids.max"))
    {
      if (tree_limit (v, what, "pids.max", &s->pids_max, err) < 0)
        return -1;
      s->have |= CG_SNAP_PIDS_MAX;
    }
  if (PRESENT ("cgroup_v1") && YAJL_IS_TRUE (v))
    {
      s->have |= CG_SNAP_V1;
      if (PRESENT ("cgroup_v1.nested"))
        {
          if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
            return shim_error (err, 0, "`%s`: `cgroup_v1.nested` is not a boolean", what);
          s->v1_nested = YAJL_IS_TRUE (v);
        }
      else
        s->v1_nested = true; /* unknown: assume the worst */
    }
#undef PRESENT
  return 0;
}

int
cg_snapshot_from_json (const char *json, const char *what, struct cg_snapshot *out,
                       shim_error_t *err)
{
  char errbuf[256] = "";
  yajl_val node = yajl_tree_parse (json, errbuf, sizeof errbuf);
  int ret;

  if (node == NULL)
    {
      /* yajl's message ends with a newline and can span lines: keep line one. */
      errbuf[strcspn (errbuf, "\n")] = '\0';
      return shim_error (err, 0, "`%s`: invalid JSON: %s", what, errbuf[0] ? errbuf : "parse error");
    }
  if (YAJL_IS_NULL (node))
    {
      yajl_tree_free (node);
      return shim_error (err, 0, "`%s`: cgroup snapshot is null", what);
    }
  ret = cg_snapshot_from_tree (node, what, out, err);
  yajl_tree_free (node);
  return ret;
}
