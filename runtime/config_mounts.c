/* SPDX-License-Identifier: Apache-2.0 */
/* config.json's "mounts": each entry's destination, type and source, and
 * its options split into mount(2) flags, a propagation change and the
 * filesystem's own data (the propagation names are the toolkit's, shared
 * with linux.rootfsPropagation). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/util.h"

static const struct
{
  const char *name;
  bool clear;
  unsigned long flag;
} mount_flags[] = {
  { "async", true, MS_SYNCHRONOUS },  { "atime", true, MS_NOATIME },
  { "bind", false, MS_BIND },         { "defaults", false, 0 },
  { "dev", true, MS_NODEV },          { "diratime", true, MS_NODIRATIME },
  { "dirsync", false, MS_DIRSYNC },   { "exec", true, MS_NOEXEC },
  { "lazytime", false, MS_LAZYTIME }, { "mand", false, MS_MANDLOCK },
  { "noatime", false, MS_NOATIME },   { "nodev", false, MS_NODEV },
  { "nodiratime", false, MS_NODIRATIME }, { "noexec", false, MS_NOEXEC },
  { "nomand", true, MS_MANDLOCK },    { "norelatime", true, MS_RELATIME },
  { "nostrictatime", true, MS_STRICTATIME }, { "nosuid", false, MS_NOSUID },
  { "rbind", false, MS_BIND | MS_REC }, { "relatime", false, MS_RELATIME },
  { "remount", false, MS_REMOUNT },   { "ro", false, MS_RDONLY },
  { "rw", true, MS_RDONLY },          { "strictatime", false, MS_STRICTATIME },
  { "suid", true, MS_NOSUID },        { "sync", false, MS_SYNCHRONOUS },
};

int
config_mount_options_parse (char *const *opts, size_t n, struct shim_mount *m, const char *json_path,
                          shim_error_t *err)
{
  cleanup_free char *data = NULL;
  size_t i, j;

  for (i = 0; i < n; i++)
    {
      const char *o = opts[i];
      unsigned long prop;
      bool found = false;

      for (j = 0; j < sizeof (mount_flags) / sizeof (mount_flags[0]); j++)
        if (strcmp (mount_flags[j].name, o) == 0)
          {
            if (mount_flags[j].clear)
              m->flags &= ~mount_flags[j].flag;
            else
              m->flags |= mount_flags[j].flag;
            found = true;
            break;
          }
      if (found)
        continue;
      if (config_propagation_lookup (o, &prop) == 0)
        {
          m->propagation = prop;
          continue;
        }
      if (o[0] == '\0' || strchr (o, ',') != NULL)
        return shim_error_plain (err, EINVAL, "%s[%zu]: `%s` is not a mount option", json_path, i, o);
      /* Anything else is the filesystem's own (mode=755, size=64m, ...). */
      {
        char *nd = NULL;
        if (asprintf (&nd, "%s%s%s", data ? data : "", data ? "," : "", o) < 0)
          return shim_error_errno (err, "%s", json_path);
        free (data);
        data = nd;
      }
    }
  m->is_bind = (m->flags & MS_BIND) != 0;
  m->data = steal_pointer (&data);
  return 0;
}

int
config_parse_mounts (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i, k;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  cfg->mounts = calloc (v->u.array.len + 1, sizeof (struct shim_mount));
  if (cfg->mounts == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      struct shim_mount *m = &cfg->mounts[i];
      cleanup_free char *ep = config_path_index (path, i);
      char **opts = NULL;
      size_t n_opts = 0;
      int r = 0;

      cfg->n_mounts++;
      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      for (k = 0; k < e->u.object.len && r == 0; k++)
        {
          const char *key = e->u.object.keys[k];
          yajl_val val = e->u.object.values[k];
          cleanup_free char *kp = config_path_key (ep, key);
          if (config_key_repeated (e, k))
            r = shim_error_plain (c->err, EINVAL, "%s: given twice", kp);
          else if (strcmp (key, "destination") == 0)
            r = config_get_string (c, val, kp, &m->destination);
          else if (strcmp (key, "type") == 0)
            r = config_get_string (c, val, kp, &m->type);
          else if (strcmp (key, "source") == 0)
            r = config_get_string (c, val, kp, &m->source);
          else if (strcmp (key, "options") == 0)
            {
              r = config_get_string_array (c, val, kp, &opts, &n_opts);
              if (r == 0)
                r = config_mount_options_parse (opts, n_opts, m, kp, c->err);
            }
          else if (strcmp (key, "uidMappings") == 0 || strcmp (key, "gidMappings") == 0)
            config_warn (c, kp, "id-mapped mounts are not supported yet");
        }
      if (opts)
        {
          for (k = 0; k < n_opts; k++)
            free (opts[k]);
          free (opts);
        }
      if (r < 0)
        return -1;
      if (m->destination == NULL)
        return shim_error_plain (c->err, EINVAL, "%s.destination: required", ep);
      if (m->destination[0] != '/')
        return shim_error_plain (c->err, EINVAL, "%s.destination: `%s` is not an absolute path", ep,
                           m->destination);
      if (m->type && strcmp (m->type, "bind") == 0)
        {
          m->is_bind = true;
          m->flags |= MS_BIND;
        }
      if (m->type == NULL && !m->is_bind)
        return shim_error_plain (c->err, EINVAL, "%s: neither a `type` nor a bind option", ep);
      if (m->is_bind && m->source == NULL)
        return shim_error_plain (c->err, EINVAL, "%s.source: required for a bind mount", ep);
    }
  return 0;
}

const char *
config_mount_option_name (size_t i)
{
  size_t nf = sizeof (mount_flags) / sizeof (mount_flags[0]);
  if (i < nf)
    return mount_flags[i].name;
  return config_propagation_name (i - nf);
}
