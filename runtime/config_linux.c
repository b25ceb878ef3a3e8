/* SPDX-License-Identifier: Apache-2.0 */
/* config.json's "linux": namespaces, uid/gid mappings, devices, sysctl,
 * maskedPaths/readonlyPaths, rootfsPropagation and cgroupsPath.  Its
 * resources are parsed by config_resources.c and its seccomp by
 * config_security.c; the lookups the setup code uses are here too. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/json.h"
#include "common/util.h"

static const struct
{
  const char *name;
  int type;
} namespace_types[] = {
  { "pid", CLONE_NEWPID },     { "network", CLONE_NEWNET }, { "mount", CLONE_NEWNS },
  { "ipc", CLONE_NEWIPC },     { "uts", CLONE_NEWUTS },     { "cgroup", CLONE_NEWCGROUP },
  { "user", CLONE_NEWUSER },   { "time", CLONE_NEWTIME },
};

/* The entry of NS's type before it (among the first N kept), or NULL. */
static const struct shim_namespace *
namespace_before (const struct shim_config *cfg, size_t n, int type, size_t *at)
{
  for (*at = 0; *at < n; (*at)++)
    if (cfg->namespaces[*at].type == type)
      return &cfg->namespaces[*at];
  return NULL;
}

static int
parse_namespaces (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  cleanup_free size_t *json_index = NULL;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  cfg->namespaces = calloc (v->u.array.len + 1, sizeof (struct shim_namespace));
  json_index = calloc (v->u.array.len + 1, sizeof (size_t));
  if (cfg->namespaces == NULL || json_index == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, p;
      const char *tk[] = { "type", NULL }, *pk[] = { "path", NULL };
      struct shim_namespace *ns = &cfg->namespaces[cfg->n_namespaces];
      const struct shim_namespace *before;
      cleanup_free char *ep = config_path_index (path, i);
      cleanup_free char *tp = config_path_key (ep, "type");
      cleanup_free char *pp = config_path_key (ep, "path");

      json_index[cfg->n_namespaces] = i;
      cfg->n_namespaces++;
      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      t = yajl_tree_get (e, tk, yajl_t_any);
      p = yajl_tree_get (e, pk, yajl_t_any);
      if (!YAJL_IS_STRING (t))
        return config_type_error (c, tp, "string", t);
      for (j = 0; j < sizeof (namespace_types) / sizeof (namespace_types[0]); j++)
        if (strcmp (namespace_types[j].name, t->u.string) == 0)
          break;
      if (j == sizeof (namespace_types) / sizeof (namespace_types[0]))
        return shim_error_plain (c->err, EINVAL, "%s: unknown namespace type `%s`", tp, t->u.string);
      ns->type = namespace_types[j].type;
      if (ns->type == CLONE_NEWTIME)
        return shim_error_plain (c->err, ENOTSUP, "%s: time namespaces are not supported yet", tp);
      if (p != NULL && !YAJL_IS_NULL (p))
        {
          if (config_get_string (c, p, pp, &ns->path) < 0)
            return -1;
          if (ns->path[0] != '/')
            return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", pp, ns->path);
        }
      /* A second entry of a type: the same one again (no path twice, or
       * one path twice) is taken once with a warning, as runc does since
       * 1.2; two different ones cannot both be, and are refused in runc's
       * words, for scripts. */
      before = namespace_before (cfg, cfg->n_namespaces - 1, ns->type, &j);
      if (before == NULL)
        continue;
      if ((before->path == NULL) != (ns->path == NULL) || (ns->path && strcmp (before->path, ns->path) != 0))
        return shim_error_plain (c->err, EINVAL,
                                 "malformed spec file: duplicated ns: %s: namespace `%s` given twice (%s[%zu] "
                                 "too), differently",
                                 tp, t->u.string, path, json_index[j]);
      {
        cleanup_free char *why = NULL;
        if (asprintf (&why, "namespace `%s` given twice, the same as %s[%zu]: taken once", t->u.string, path,
                      json_index[j])
            < 0)
          return shim_error_errno (c->err, "%s", tp);
        config_warn (c, tp, why);
      }
      free (ns->path);
      memset (ns, 0, sizeof (*ns));
      cfg->n_namespaces--;
    }
  return 0;
}

static int
parse_cgroups_path (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_string (c, v, path, &((struct shim_config *) target)->cgroups_path);
}

static int
parse_rootfs_propagation (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (!YAJL_IS_STRING (v))
    return config_type_error (c, path, "string", v);
  if (config_propagation_lookup (v->u.string, &cfg->rootfs_propagation) < 0)
    return shim_error_plain (c->err, EINVAL, "%s: unknown propagation `%s`", path, v->u.string);
  return 0;
}

static int
check_abs_paths (struct config_ctx *c, char **a, size_t n, const char *path)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (a[i][0] != '/')
      {
        cleanup_free char *ep = config_path_index (path, i);
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", ep, a[i]);
      }
  return 0;
}

static int
parse_masked (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (config_get_string_array (c, v, path, &cfg->masked_paths, &cfg->n_masked_paths) < 0)
    return -1;
  return check_abs_paths (c, cfg->masked_paths, cfg->n_masked_paths, path);
}

static int
parse_readonly (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (config_get_string_array (c, v, path, &cfg->readonly_paths, &cfg->n_readonly_paths) < 0)
    return -1;
  return check_abs_paths (c, cfg->readonly_paths, cfg->n_readonly_paths, path);
}

static int
parse_sysctl (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i;
  if (config_get_kv_object (c, v, path, &cfg->sysctl, &cfg->n_sysctl) < 0)
    return -1;
  for (i = 0; i < cfg->n_sysctl; i++)
    {
      const char *k = cfg->sysctl[i].key;
      if (k[0] == '\0' || k[0] == '.' || k[0] == '/' || strstr (k, "..") || strstr (k, "/.."))
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a sysctl name", path, k);
    }
  return 0;
}

/* linux.uidMappings / gidMappings: each range checked here, against the
 * namespaces in config_validate.c (they need a new user namespace). */
static int
parse_idmappings (struct config_ctx *c, yajl_val v, const char *path, struct shim_idmap **out, size_t *n)
{
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  /* The kernel takes at most 340 lines (5 before Linux 4.15). */
  if (v->u.array.len > 340)
    return shim_error_plain (c->err, E2BIG, "%s: %zu ranges, the kernel takes at most 340", path,
                             v->u.array.len);
  *out = calloc (v->u.array.len + 1, sizeof (**out));
  if (*out == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      struct shim_idmap *m = &(*out)[i];
      cleanup_free char *ep = config_path_index (path, i);
      const char *keys[] = { "containerID", "hostID", "size" };
      uint32_t *dst[] = { &m->container_id, &m->host_id, &m->size };

      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      for (j = 0; j < 3; j++)
        {
          cleanup_free char *kp = config_path_key (ep, keys[j]);
          yajl_val f = json_field (e, keys[j]);
          if (f == NULL)
            return shim_error_plain (c->err, EINVAL, "%s: required", kp);
          if (config_get_u32 (c, f, kp, dst[j]) < 0)
            return -1;
        }
      if (m->size == 0)
        return shim_error_plain (c->err, EINVAL, "%s.size: must be at least 1", ep);
      if ((uint64_t) m->container_id + m->size > (uint64_t) UINT32_MAX + 1
          || (uint64_t) m->host_id + m->size > (uint64_t) UINT32_MAX + 1)
        return shim_error_plain (c->err, ERANGE, "%s: the range goes past id 4294967295", ep);
      /* The kernel refuses the whole map for an overlap; say which. */
      for (j = 0; j < i; j++)
        {
          const struct shim_idmap *o = &(*out)[j];
          if (m->container_id < o->container_id + (uint64_t) o->size
              && o->container_id < m->container_id + (uint64_t) m->size)
            return shim_error_plain (c->err, EINVAL, "%s: container ids overlap those of %s[%zu]", ep, path, j);
          if (m->host_id < o->host_id + (uint64_t) o->size && o->host_id < m->host_id + (uint64_t) m->size)
            return shim_error_plain (c->err, EINVAL, "%s: host ids overlap those of %s[%zu]", ep, path, j);
        }
      (*n)++;
    }
  return 0;
}

static int
parse_uid_mappings (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return parse_idmappings (c, v, path, &cfg->uid_mappings, &cfg->n_uid_mappings);
}

static int
parse_gid_mappings (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return parse_idmappings (c, v, path, &cfg->gid_mappings, &cfg->n_gid_mappings);
}

static int
parse_devices (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  cfg->devices = calloc (v->u.array.len + 1, sizeof (*cfg->devices));
  if (cfg->devices == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], f;
      struct shim_device *d = &cfg->devices[i];
      cleanup_free char *ep = config_path_index (path, i);
      cleanup_free char *pp = config_path_key (ep, "path");
      cleanup_free char *tp = config_path_key (ep, "type");
      cleanup_free char *mp = config_path_key (ep, "fileMode");
      cleanup_free char *up = config_path_key (ep, "uid");
      cleanup_free char *gp = config_path_key (ep, "gid");
      const char *nums[] = { "major", "minor" };
      uint32_t *dst[] = { &d->major, &d->minor };
      uint32_t mode;

      cfg->n_devices++;
      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      f = json_field (e, "path");
      if (f == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", pp);
      if (config_get_string (c, f, pp, &d->path) < 0)
        return -1;
      if (d->path[0] != '/')
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", pp, d->path);
      for (j = 0; j < i; j++)
        if (strcmp (cfg->devices[j].path, d->path) == 0)
          return shim_error_plain (c->err, EINVAL, "%s: `%s` is already %s[%zu]", pp, d->path, path, j);
      f = json_field (e, "type");
      if (f == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", tp);
      if (!YAJL_IS_STRING (f))
        return config_type_error (c, tp, "string", f);
      if (strlen (f->u.string) != 1 || strchr ("cubp", f->u.string[0]) == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a device type (c, u, b or p)", tp,
                                 f->u.string);
      /* "u" is an unbuffered character device: the same node. */
      d->type = f->u.string[0] == 'u' ? 'c' : f->u.string[0];
      for (j = 0; j < 2; j++)
        {
          cleanup_free char *np = config_path_key (ep, nums[j]);
          f = json_field (e, nums[j]);
          if (f == NULL && d->type != 'p')
            return shim_error_plain (c->err, EINVAL, "%s: required for a `%c` device", np, d->type);
          if (f && config_get_u32 (c, f, np, dst[j]) < 0)
            return -1;
        }
      if ((f = json_field (e, "fileMode")) != NULL)
        {
          if (config_get_u32 (c, f, mp, &mode) < 0)
            return -1;
          if (mode & ~07777u)
            return shim_error_plain (c->err, EINVAL, "%s: %u has bits other than permissions (07777)", mp, mode);
          d->has_file_mode = true;
          d->file_mode = mode;
        }
      if ((f = json_field (e, "uid")) != NULL && (d->has_uid = true)
          && config_get_u32 (c, f, up, &d->uid) < 0)
        return -1;
      if ((f = json_field (e, "gid")) != NULL && (d->has_gid = true)
          && config_get_u32 (c, f, gp, &d->gid) < 0)
        return -1;
    }
  return 0;
}

static const struct config_field linux_fields[] = {
  { "namespaces", parse_namespaces, NULL },
  { "cgroupsPath", parse_cgroups_path, NULL },
  { "rootfsPropagation", parse_rootfs_propagation, NULL },
  { "maskedPaths", parse_masked, NULL },
  { "readonlyPaths", parse_readonly, NULL },
  { "sysctl", parse_sysctl, NULL },
  { "resources", config_parse_resources, NULL },
  { "uidMappings", parse_uid_mappings, NULL },
  { "gidMappings", parse_gid_mappings, NULL },
  { "seccomp", config_parse_seccomp, NULL },
  { "devices", parse_devices, NULL },
  { "mountLabel", NULL, "SELinux labels are not applied yet" },
  { "intelRdt", NULL, "Intel RDT is not supported" },
  { "personality", NULL, "personality is not applied yet" },
  { "timeOffsets", NULL, "time namespaces are not supported" },
  { "memoryPolicy", NULL, "memory policies are not applied yet" },
  { "netDevices", NULL, "network devices are not moved into the container yet" },
  { NULL, NULL, NULL },
};

int
config_parse_linux (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_walk_object (c, v, path, linux_fields, target);
}

/* ---- lookups for the setup code (and config_validate.c) ---- */

int
config_idmap_to_host (const struct shim_idmap *m, size_t n, uint32_t id, uint32_t *host)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
      {
        *host = m[i].host_id + (id - m[i].container_id);
        return 0;
      }
  return -1;
}

const struct shim_namespace *
config_namespace (const struct shim_config *c, int type)
{
  size_t i;
  for (i = 0; i < c->n_namespaces; i++)
    if (c->namespaces[i].type == type)
      return &c->namespaces[i];
  return NULL;
}
