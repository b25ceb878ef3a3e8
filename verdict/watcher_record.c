/* SPDX-License-Identifier: Apache-2.0 */
/* The watcher's record (record.json): its snapshots, whether it saw the end,
 * and init's status when the kernel told it. */
#include "verdict/watcher.h"

#include <errno.h>
#include <string.h>

#include "common/json.h"
#include "common/util.h"

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
watcher_record_write (int dirfd, const char *name, const struct monitor *m, bool ended,
                      const int *status, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return shim_error_plain (err, ENOMEM, "watch record");
  if (yajl_gen_map_open (g) != yajl_gen_status_ok
      || gen_snap (g, "baseline", m->have_baseline, &m->baseline, err) < 0
      || gen_snap (g, "last", m->have_last, &m->last, err) < 0
      || gen_snap (g, "fullest", m->have_fullest, &m->fullest, err) < 0
      || !json_kv_bool (g, "ended", ended) || !json_str (g, "status")
      || (status ? yajl_gen_integer (g, *status) : yajl_gen_null (g)) != yajl_gen_status_ok
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
  const char *ended[] = { "ended", NULL }, *status[] = { "status", NULL };
  yajl_val st;
  char ebuf[256];

  memset (out, 0, sizeof (*out));
  if (util_read_file_at (dirfd, name, &json, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (json, ebuf, sizeof (ebuf));
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "watch record `%s`: not a JSON object", name);
  if (read_snap (root, "baseline", name, &out->have_baseline, &out->baseline, err) < 0
      || read_snap (root, "last", name, &out->have_last, &out->last, err) < 0
      || read_snap (root, "fullest", name, &out->have_fullest, &out->fullest, err) < 0)
    return -1;
  out->ended = YAJL_IS_TRUE (yajl_tree_get (root, ended, yajl_t_any));
  st = yajl_tree_get (root, status, yajl_t_any);
  if (st && YAJL_IS_INTEGER (st))
    {
      out->have_status = true;
      out->status = (int) YAJL_GET_INTEGER (st);
    }
  return 0;
}

void
watcher_record_fill_input (const struct watcher_record *r, struct verdict_input *in)
{
  in->baseline = r->have_baseline ? &r->baseline : NULL;
  in->final = r->have_last ? &r->last : NULL;
  in->at_oom = r->have_fullest ? &r->fullest : NULL;
  in->have_status = r->have_status;
  in->status = r->status;
  if (!r->have_baseline)
    in->unavailable_reason = "the watcher recorded no baseline";
  else if (!(r->baseline.have & CG_SNAP_EVENTS_LOCAL))
    in->unavailable_reason = "the memory controller is not enabled in the container's cgroup";
}
