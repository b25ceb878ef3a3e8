/* SPDX-License-Identifier: Apache-2.0 */
/* linux.resources (memory, pids, cpu, blockIO, hugepageLimits, unified,
 * devices) into a struct cgroup_resources, each value with whether it was
 * given; also the whole document of `update --resources`. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/json.h"
#include "common/util.h"

/* linux.resources: each value recorded with whether it was present. */
static int
res_i64 (struct config_ctx *c, yajl_val obj, const char *path, const char *key, bool *has, int64_t *out)
{
  yajl_val v = json_field (obj, key);
  cleanup_free char *p = v ? config_path_key (path, key) : NULL;
  return v ? (*has = true, config_get_i64 (c, v, p, out)) : 0;
}

static int
res_u64 (struct config_ctx *c, yajl_val obj, const char *path, const char *key, bool *has, uint64_t *out)
{
  yajl_val v = json_field (obj, key);
  cleanup_free char *p = v ? config_path_key (path, key) : NULL;
  return v ? (*has = true, config_get_u64 (c, v, p, out)) : 0;
}

static int
res_str (struct config_ctx *c, yajl_val obj, const char *path, const char *key, char **out)
{
  yajl_val v = json_field (obj, key);
  cleanup_free char *p = v ? config_path_key (path, key) : NULL;
  return v ? config_get_string (c, v, p, out) : 0;
}

int
config_memory_check (const struct cgroup_resources *r, const char *path, const char *limit_from,
                     shim_error_t *err)
{
  /* The kernel refuses memory+swap below the limit with a bare EINVAL
   * (v1's memsw write; v2's swap.max would be negative): said here, with
   * both values and where each came from. */
  if (r->has_memory_swap && r->memory_swap >= 0 && r->has_memory_limit && r->memory_limit > 0
      && r->memory_swap < r->memory_limit)
    {
      if (limit_from)
        return shim_error_plain (err, EINVAL,
                                 "%s.swap: %" PRId64 " is below the limit %" PRId64
                                 " of %s (swap counts memory plus swap): give a larger swap or a smaller %s",
                                 path, r->memory_swap, r->memory_limit, limit_from, limit_from);
      return shim_error_plain (err, EINVAL,
                               "%s.swap: %" PRId64 " is below limit %" PRId64
                               " (swap counts memory plus swap)",
                               path, r->memory_swap, r->memory_limit);
    }
  return 0;
}

static int
parse_res_memory (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;
  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  if (res_i64 (c, v, path, "limit", &r->has_memory_limit, &r->memory_limit) < 0
      || res_i64 (c, v, path, "reservation", &r->has_memory_reservation, &r->memory_reservation) < 0
      || res_i64 (c, v, path, "swap", &r->has_memory_swap, &r->memory_swap) < 0)
    return -1;
  if (json_field (v, "disableOOMKiller"))
    {
      cleanup_free char *p = config_path_key (path, "disableOOMKiller");
      if (config_get_bool (c, json_field (v, "disableOOMKiller"), p, &r->oom_kill_disable) < 0)
        return -1;
    }
  if (r->has_memory_limit && r->memory_limit < -1)
    return shim_error_plain (c->err, EINVAL, "%s.limit: %" PRId64 " is not a byte count or -1", path,
                       r->memory_limit);
  /* runc reads 0 as "not set", and engines rely on it. */
  if (r->has_memory_limit && r->memory_limit == 0)
    r->has_memory_limit = false;
  if (r->has_memory_swap && r->memory_swap < -1)
    return shim_error_plain (c->err, EINVAL, "%s.swap: %" PRId64 " is not a byte count or -1", path,
                       r->memory_swap);
  if (config_memory_check (r, path, NULL, c->err) < 0)
    return -1;
  for (i = 0; i < v->u.object.len; i++)
    {
      const char *k = v->u.object.keys[i];
      if (strcmp (k, "limit") && strcmp (k, "reservation") && strcmp (k, "swap") && strcmp (k, "disableOOMKiller"))
        {
          cleanup_free char *p = config_path_key (path, k);
          config_warn (c, p, "not applied on cgroup v2");
        }
    }
  return 0;
}

static int
parse_res_pids (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  return res_i64 (c, v, path, "limit", &r->has_pids_limit, &r->pids_limit);
}

static int
parse_res_cpu (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  if (res_u64 (c, v, path, "shares", &r->has_cpu_shares, &r->cpu_shares) < 0
      || res_i64 (c, v, path, "quota", &r->has_cpu_quota, &r->cpu_quota) < 0
      || res_u64 (c, v, path, "period", &r->has_cpu_period, &r->cpu_period) < 0
      || res_str (c, v, path, "cpus", &r->cpu_cpus) < 0 || res_str (c, v, path, "mems", &r->cpu_mems) < 0
      || res_i64 (c, v, path, "realtimeRuntime", &r->has_cpu_rt_runtime, &r->cpu_rt_runtime) < 0
      || res_u64 (c, v, path, "realtimePeriod", &r->has_cpu_rt_period, &r->cpu_rt_period) < 0)
    return -1;
  if (r->has_cpu_shares && r->cpu_shares != 0 && (r->cpu_shares < 2 || r->cpu_shares > 262144))
    return shim_error_plain (c->err, ERANGE, "%s.shares: %" PRIu64 " is outside 2..262144", path,
                       r->cpu_shares);
  return 0;
}

/* blockIO's per-device lists, by their key. */
static const struct
{
  const char *key;
  enum cgroup_blkio_kind kind;
} blkio_lists[] = {
  { "weightDevice", CGROUP_BLKIO_WEIGHT },
  { "throttleReadBpsDevice", CGROUP_BLKIO_READ_BPS },
  { "throttleWriteBpsDevice", CGROUP_BLKIO_WRITE_BPS },
  { "throttleReadIOPSDevice", CGROUP_BLKIO_READ_IOPS },
  { "throttleWriteIOPSDevice", CGROUP_BLKIO_WRITE_IOPS },
};
#define N_BLKIO_LISTS (sizeof (blkio_lists) / sizeof (blkio_lists[0]))

/* One {major, minor, weight|rate} entry of a blockIO list. */
static int
parse_blkio_device (struct config_ctx *c, yajl_val e, const char *ep, enum cgroup_blkio_kind kind,
                    struct cgroup_blkio_device *d)
{
  static const char *const nums[] = { "major", "minor" };
  const char *vkey = kind == CGROUP_BLKIO_WEIGHT ? "weight" : "rate";
  int64_t *out[] = { &d->major, &d->minor };
  bool has = false;
  size_t i;

  if (!YAJL_IS_OBJECT (e))
    return config_type_error (c, ep, "object", e);
  d->kind = kind;
  for (i = 0; i < 2; i++)
    {
      cleanup_free char *p = config_path_key (ep, nums[i]);
      yajl_val n = json_field (e, nums[i]);
      if (n == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", p);
      if (config_get_i64 (c, n, p, out[i]) < 0)
        return -1;
      if (*out[i] < 0 || *out[i] > UINT32_MAX)
        return shim_error_plain (c->err, ERANGE, "%s: %" PRId64 " is not a device number", p, *out[i]);
    }
  if (res_u64 (c, e, ep, vkey, &has, &d->value) < 0)
    return -1;
  if (!has)
    {
      cleanup_free char *p = config_path_key (ep, vkey);
      /* weightDevice may give only leafWeight, which no kernel has now. */
      if (kind == CGROUP_BLKIO_WEIGHT)
        return 1;
      return shim_error_plain (c->err, EINVAL, "%s: required", p);
    }
  if (kind == CGROUP_BLKIO_WEIGHT && (d->value < 10 || d->value > 1000))
    return shim_error_plain (c->err, ERANGE, "%s.weight: %" PRIu64 " is outside 10..1000", ep, d->value);
  return 0;
}

static int
parse_blkio_lists (struct config_ctx *c, yajl_val v, const char *path, struct cgroup_resources *r)
{
  size_t i, j, total = 0;
  for (i = 0; i < N_BLKIO_LISTS; i++)
    {
      yajl_val a = json_field (v, blkio_lists[i].key);
      cleanup_free char *lp = a ? config_path_key (path, blkio_lists[i].key) : NULL;
      if (a && !YAJL_IS_ARRAY (a))
        return config_type_error (c, lp, "array", a);
      total += a ? a->u.array.len : 0;
    }
  r->blkio_devices = calloc (total + 1, sizeof (*r->blkio_devices));
  if (r->blkio_devices == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < N_BLKIO_LISTS; i++)
    {
      yajl_val a = json_field (v, blkio_lists[i].key);
      cleanup_free char *lp = a ? config_path_key (path, blkio_lists[i].key) : NULL;
      for (j = 0; a && j < a->u.array.len; j++)
        {
          cleanup_free char *ep = config_path_index (lp, j);
          int ret = parse_blkio_device (c, a->u.array.values[j], ep, blkio_lists[i].kind,
                                        &r->blkio_devices[r->n_blkio_devices]);
          if (ret < 0)
            return -1;
          r->n_blkio_devices += ret == 0;
        }
    }
  return 0;
}

static int
parse_res_blkio (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  uint64_t w = 0;
  size_t i, j;
  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  if (res_u64 (c, v, path, "weight", &r->has_blkio_weight, &w) < 0)
    return -1;
  /* 0 is "not set": Docker sends it for every container, and runc
   * writes no io.weight for it. */
  if (r->has_blkio_weight && w == 0)
    r->has_blkio_weight = false;
  if (r->has_blkio_weight && (w < 10 || w > 1000))
    return shim_error_plain (c->err, ERANGE, "%s.weight: %" PRIu64 " is outside 10..1000", path, w);
  r->blkio_weight = (uint16_t) w;
  if (parse_blkio_lists (c, v, path, r) < 0)
    return -1;
  for (i = 0; i < v->u.object.len; i++)
    {
      bool known = strcmp (v->u.object.keys[i], "weight") == 0;
      for (j = 0; j < N_BLKIO_LISTS; j++)
        known |= strcmp (v->u.object.keys[i], blkio_lists[j].key) == 0;
      if (!known)
        {
          cleanup_free char *p = config_path_key (path, v->u.object.keys[i]);
          /* blkio.leaf_weight was CFQ's, which Linux 5.0 removed; BFQ and
           * cgroup v2 have no leaf weight. */
          config_warn (c, p,
                       strcmp (v->u.object.keys[i], "leafWeight") == 0
                           ? "not applied: no I/O scheduler since Linux 5.0 has a leaf weight (blkio.leaf_weight "
                             "was CFQ's)"
                           : "not applied yet");
        }
    }
  return 0;
}

/* "2MB", "1GB", "64KB" in kB, as the kernel names its page sizes
 * (/sys/kernel/mm/hugepages/hugepages-2048kB); 0 when not such a size. */
static uint64_t
page_size_kb (const char *s)
{
  char *end = NULL;
  unsigned long long n;
  if (*s < '1' || *s > '9')
    return 0;
  errno = 0;
  n = strtoull (s, &end, 10);
  if (errno || n > (1ull << 32))
    return 0;
  if (strcmp (end, "KB") == 0)
    return n;
  if (strcmp (end, "MB") == 0)
    return n << 10;
  if (strcmp (end, "GB") == 0)
    return n << 20;
  return 0;
}

/* hugepageLimits[]: only page sizes this kernel has, as runc checks, so a
 * typo is an error here rather than a missing cgroup file later. */
static int
parse_res_hugepages (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  r->hugepages = calloc (v->u.array.len + 1, sizeof (*r->hugepages));
  if (r->hugepages == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      struct cgroup_hugepage_limit *h = &r->hugepages[i];
      cleanup_free char *ep = config_path_index (path, i);
      cleanup_free char *pp = config_path_key (ep, "pageSize");
      cleanup_free char *lp = config_path_key (ep, "limit");
      char sys[96];
      bool has = false;
      uint64_t kb;

      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      if (json_field (e, "pageSize") == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", pp);
      r->n_hugepages++;
      if (res_str (c, e, ep, "pageSize", &h->page_size) < 0 || res_u64 (c, e, ep, "limit", &has, &h->limit) < 0)
        return -1;
      if (!has)
        return shim_error_plain (c->err, EINVAL, "%s: required", lp);
      kb = page_size_kb (h->page_size);
      if (kb == 0)
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a page size (like 2MB or 1GB)", pp,
                                 h->page_size);
      snprintf (sys, sizeof sys, "/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB", kb);
      if (access (sys, F_OK) < 0)
        return shim_error_plain (c->err, EINVAL, "%s: `%s`: this kernel has no such huge page size (%s)", pp,
                                 h->page_size, sys);
      /* The cgroup files name it the kernel's way: 2048KB is hugetlb.2MB.* */
      free (h->page_size);
      if (asprintf (&h->page_size, "%" PRIu64 "%s", kb >= (1u << 20) ? kb >> 20 : kb >= 1024 ? kb >> 10 : kb,
                    kb >= (1u << 20) ? "GB" : kb >= 1024 ? "MB" : "KB")
          < 0)
        {
          h->page_size = NULL;
          return shim_error_errno (c->err, "%s", pp);
        }
    }
  return 0;
}

static int
parse_res_unified (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;
  if (config_get_kv_object (c, v, path, &r->unified, &r->n_unified) < 0)
    return -1;
  for (i = 0; i < r->n_unified; i++)
    if (strchr (r->unified[i].key, '/') || r->unified[i].key[0] == '.'
        || strchr (r->unified[i].key, '.') == NULL)
      return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a cgroup v2 file name", path,
                         r->unified[i].key);
  return 0;
}

/* A device number that may be left out (any): -1 then. */
static int
get_dev_number (struct config_ctx *c, yajl_val obj, const char *ep, const char *key, int64_t *out)
{
  cleanup_free char *p = config_path_key (ep, key);
  yajl_val v = json_field (obj, key);
  *out = -1;
  if (v == NULL)
    return 0;
  if (config_get_i64 (c, v, p, out) < 0)
    return -1;
  if (*out < -1 || *out > UINT32_MAX)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRId64 " is not a device number (or -1 for any)", p,
                             *out);
  return 0;
}

static bool
dev_rules_overlap (const struct cgroup_device_rule *a, const struct cgroup_device_rule *b)
{
  return (a->type == 'a' || b->type == 'a' || a->type == b->type)
         && (a->major == -1 || b->major == -1 || a->major == b->major)
         && (a->minor == -1 || b->minor == -1 || a->minor == b->minor);
}

/* Whether the deny rule D (rules[N]) denies only what is denied already:
 * after a deny-all rule, no allow rule since then reaches D's devices.
 * runc accepts other letters than r, w and m in such a rule (its cgroup
 * v1 emulator never writes a redundant rule to the kernel, its v2 program
 * is built from the emulator's rules), and runc's own update test has
 * one ("deny c 1:11 rwa" after "deny a rwm"). */
static bool
dev_deny_redundant (const struct cgroup_device_rule *rules, size_t n, const struct cgroup_device_rule *d)
{
  size_t i = n;

  if (d->allow)
    return false;
  while (i-- > 0)
    {
      const struct cgroup_device_rule *e = &rules[i];
      if (e->allow && dev_rules_overlap (e, d))
        return false;
      if (!e->allow && e->type == 'a' && e->major == -1 && e->minor == -1
          && e->access == (CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD))
        return true;
    }
  return false;
}

static int
parse_res_devices (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  r->has_devices = true;
  r->devices = calloc (v->u.array.len + 1, sizeof (*r->devices));
  if (r->devices == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, a, al;
      struct cgroup_device_rule *d = &r->devices[i];
      cleanup_free char *ep = config_path_index (path, i);
      cleanup_free char *tp = config_path_key (ep, "type");
      cleanup_free char *ap = config_path_key (ep, "access");
      cleanup_free char *alp = config_path_key (ep, "allow");
      const char *s;

      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      al = json_field (e, "allow");
      if (al == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", alp);
      if (config_get_bool (c, al, alp, &d->allow) < 0)
        return -1;
      d->type = 'a';
      t = json_field (e, "type");
      if (t && !YAJL_IS_STRING (t))
        return config_type_error (c, tp, "string", t);
      if (t && (strlen (t->u.string) != 1 || strchr ("abc", t->u.string[0]) == NULL))
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a device type (a, b or c)", tp, t->u.string);
      if (t)
        d->type = t->u.string[0];
      if (get_dev_number (c, e, ep, "major", &d->major) < 0 || get_dev_number (c, e, ep, "minor", &d->minor) < 0)
        return -1;
      /* runc refuses a rule without access; an empty one would match
       * nothing, which is never what was meant. */
      a = json_field (e, "access");
      if (a == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required (some of r, w, m)", ap);
      if (!YAJL_IS_STRING (a))
        return config_type_error (c, ap, "string", a);
      for (s = a->u.string; *s; s++)
        d->access |= *s == 'r' ? CGROUP_DEV_READ : *s == 'w' ? CGROUP_DEV_WRITE : *s == 'm' ? CGROUP_DEV_MKNOD : 0x100;
      if ((d->access & 0x100) && dev_deny_redundant (r->devices, i, d))
        {
          /* Kept without the other letters: it changes nothing either way. */
          d->access &= ~0x100u;
          config_warn (c, ap, "letters other than r, w and m ignored: the rule denies what is denied already");
        }
      if (d->access == 0 || d->access & 0x100)
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not made of r, w and m", ap, a->u.string);
      r->n_devices++;
    }
  return 0;
}

static const struct config_field resources_fields[] = {
  { "memory", parse_res_memory, NULL },
  { "pids", parse_res_pids, NULL },
  { "cpu", parse_res_cpu, NULL },
  { "blockIO", parse_res_blkio, NULL },
  { "unified", parse_res_unified, NULL },
  { "devices", parse_res_devices, NULL },
  { "hugepageLimits", parse_res_hugepages, NULL },
  { "network", NULL, "not applied on cgroup v2" },
  { "rdma", NULL, "not applied yet" },
  { NULL, NULL, NULL },
};

/* linux.resources of config.json. */
int
config_parse_resources (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  cfg->has_resources = true;
  return config_walk_object (c, v, path, resources_fields, &cfg->resources);
}

/* `update --resources FILE`: the same object as a whole document. */
int
config_resources_parse (const char *json, size_t len, struct cgroup_resources *out, shim_error_t *err)
{
  cleanup_yajl_val yajl_val root = NULL;
  struct config_ctx c = { .err = err };

  memset (out, 0, sizeof (*out));
  if (config_tree_parse (json, len, "resources", &root, err) < 0)
    return -1;
  return config_walk_object (&c, root, "resources", resources_fields, out);
}

void
config_resources_free (struct cgroup_resources *r)
{
  free (r->cpu_cpus);
  free (r->cpu_mems);
  config_free_kv (r->unified, r->n_unified);
  free (r->devices);
  for (size_t i = 0; i < r->n_hugepages; i++)
    free (r->hugepages[i].page_size);
  free (r->hugepages);
  free (r->blkio_devices);
  memset (r, 0, sizeof (*r));
}
