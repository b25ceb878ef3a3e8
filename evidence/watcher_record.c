/* SPDX-License-Identifier: Apache-2.0 */
/* The watcher's record (record.json): its snapshots, the surviving
 * ancestor's counters, whether it saw the end, init's status when the
 * kernel told it, and what the kernel log said. */
#include "evidence/watcher.h"

#include <errno.h>
#include <string.h>

#include "common/json.h"
#include "common/util.h"
#include "evidence/kmsg_evidence.h"

static int
gen_snap (yajl_gen g, const char *key, bool have, const struct cg_snapshot *s, shim_error_t *err)
{
  if (!json_str (g, key))
    return shim_error_plain (err, ENOMEM, "watch record: %s", key);
  if (!have)
    return yajl_gen_null (g) == yajl_gen_status_ok ? 0 : shim_error_plain (err, ENOMEM, "watch record");
  return cg_snapshot_gen (g, s, err);
}

int
watcher_record_write (int dirfd, const char *name, const struct watcher_record *r, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return shim_error_plain (err, ENOMEM, "watch record");
  if (yajl_gen_map_open (g) != yajl_gen_status_ok
      || gen_snap (g, "baseline", r->have_baseline, &r->baseline, err) < 0
      || gen_snap (g, "last", r->have_last, &r->last, err) < 0
      || gen_snap (g, "fullest", r->have_fullest, &r->fullest, err) < 0
      || !json_kv_bool (g, "ended", r->ended) || !json_str (g, "status")
      || (r->have_status ? yajl_gen_integer (g, r->status) : yajl_gen_null (g)) != yajl_gen_status_ok
      || gen_snap (g, "ancestor_baseline", r->have_ancestor_baseline, &r->ancestor_baseline, err) < 0
      || gen_snap (g, "ancestor_final", r->have_ancestor_final, &r->ancestor_final, err) < 0
      || !json_str (g, "kmsg") || kmsg_evidence_gen (g, &r->kmsg, err) < 0
      || !json_kv_bool (g, "oom_group_emulated", r->oom_group_emulated)
      || !json_kv_int (g, "oom_group_left", r->oom_group_left)
      || !json_kv_bool (g, "status_reaped_first", r->status_reaped_first)
      || yajl_gen_map_close (g) != yajl_gen_status_ok
      || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "watch record `%s`", name);
  return util_write_file_atomic_at (dirfd, name, (const char *) buf, len, 0600, err);
}

static int
read_snap (yajl_val root, const char *key, const char *name, bool *have, struct cg_snapshot *s,
           shim_error_t *err)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get (root, path, yajl_t_any);
  *have = v != NULL && !YAJL_IS_NULL (v);
  if (!*have)
    return 0;
  return cg_snapshot_from_tree (v, name, s, err);
}

int
watcher_record_read (int dirfd, const char *name, struct watcher_record *out, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  cleanup_yajl_val yajl_val root = NULL;
  const char *ended[] = { "ended", NULL }, *status[] = { "status", NULL }, *kmsg[] = { "kmsg", NULL };
  const char *emulated[] = { "oom_group_emulated", NULL }, *left[] = { "oom_group_left", NULL };
  const char *reaped[] = { "status_reaped_first", NULL };
  yajl_val st, k;
  char ebuf[256];

  memset (out, 0, sizeof (*out));
  if (util_read_file_at (dirfd, name, &json, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (json, ebuf, sizeof (ebuf));
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "watch record `%s`: not a JSON object", name);
  if (read_snap (root, "baseline", name, &out->have_baseline, &out->baseline, err) < 0
      || read_snap (root, "last", name, &out->have_last, &out->last, err) < 0
      || read_snap (root, "fullest", name, &out->have_fullest, &out->fullest, err) < 0
      || read_snap (root, "ancestor_baseline", name, &out->have_ancestor_baseline,
                    &out->ancestor_baseline, err) < 0
      || read_snap (root, "ancestor_final", name, &out->have_ancestor_final, &out->ancestor_final,
                    err) < 0)
    return -1;
  out->ended = YAJL_IS_TRUE (yajl_tree_get (root, ended, yajl_t_any));
  /* Absent in an older watcher's record: it emulated nothing. */
  out->oom_group_emulated = YAJL_IS_TRUE (yajl_tree_get (root, emulated, yajl_t_any));
  k = yajl_tree_get (root, left, yajl_t_any);
  if (k && YAJL_IS_INTEGER (k) && YAJL_GET_INTEGER (k) > 0 && YAJL_GET_INTEGER (k) <= UINT32_MAX)
    out->oom_group_left = (unsigned) YAJL_GET_INTEGER (k);
  st = yajl_tree_get (root, status, yajl_t_any);
  if (st && YAJL_IS_INTEGER (st))
    {
      out->have_status = true;
      out->status = (int) YAJL_GET_INTEGER (st);
    }
  else
    out->status_reaped_first = YAJL_IS_TRUE (yajl_tree_get (root, reaped, yajl_t_any));
  /* A record of an older watcher has no "kmsg": not read. */
  k = yajl_tree_get (root, kmsg, yajl_t_any);
  if (k && !YAJL_IS_NULL (k) && kmsg_evidence_from_tree (k, name, &out->kmsg, err) < 0)
    return -1;
  return 0;
}
