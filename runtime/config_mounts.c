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

/* runc's recursive options, for mount_setattr(2) with AT_RECURSIVE: clear
 * means the attribute is removed.  Any atime one replaces the whole atime
 * setting (the kernel wants MOUNT_ATTR__ATIME cleared to change it). */
static const struct
{
  const char *name;
  bool clear;
  unsigned long long attr;
} rec_flags[] = {
  { "rro", false, MOUNT_ATTR_RDONLY },           { "rrw", true, MOUNT_ATTR_RDONLY },
  { "rnosuid", false, MOUNT_ATTR_NOSUID },       { "rsuid", true, MOUNT_ATTR_NOSUID },
  { "rnodev", false, MOUNT_ATTR_NODEV },         { "rdev", true, MOUNT_ATTR_NODEV },
  { "rnoexec", false, MOUNT_ATTR_NOEXEC },       { "rexec", true, MOUNT_ATTR_NOEXEC },
  { "rnodiratime", false, MOUNT_ATTR_NODIRATIME }, { "rdiratime", true, MOUNT_ATTR_NODIRATIME },
  { "rnoatime", false, MOUNT_ATTR_NOATIME },     { "ratime", true, MOUNT_ATTR_NOATIME },
  { "rstrictatime", false, MOUNT_ATTR_STRICTATIME }, { "rnostrictatime", true, MOUNT_ATTR_STRICTATIME },
  { "rrelatime", false, MOUNT_ATTR_RELATIME },   { "rnorelatime", true, MOUNT_ATTR_RELATIME },
};

static bool
rec_option (const char *o, struct shim_mount *m)
{
  size_t j;
  for (j = 0; j < sizeof (rec_flags) / sizeof (rec_flags[0]); j++)
    if (strcmp (rec_flags[j].name, o) == 0)
      {
        unsigned long long a = rec_flags[j].attr;
        bool atime = a == MOUNT_ATTR_NOATIME || a == MOUNT_ATTR_STRICTATIME || a == MOUNT_ATTR_RELATIME;
        if (atime)
          {
            /* Clearing an atime mode leaves relatime, the kernel's default. */
            m->rec_attr_set &= ~(unsigned long long) MOUNT_ATTR__ATIME;
            m->rec_attr_clr |= MOUNT_ATTR__ATIME;
            if (!rec_flags[j].clear)
              m->rec_attr_set |= a;
          }
        else if (rec_flags[j].clear)
          {
            m->rec_attr_set &= ~a;
            m->rec_attr_clr |= a;
          }
        else
          {
            m->rec_attr_set |= a;
            m->rec_attr_clr &= ~a;
          }
        return true;
      }
  return false;
}

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
      if (found || rec_option (o, m))
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
      /* A bind mount takes no filesystem options: mount(2) would drop
       * them without a word, and an option that does nothing (a
       * misspelt `ro`, say) must not pass for one that does. */
      if (m->is_bind && m->data)
        {
          cleanup_free char *first = strndup (m->data, strcspn (m->data, ","));
          return shim_error_plain (c->err, EINVAL, "%s.options: `%s` cannot be applied to a bind mount", ep,
                                   first ? first : m->data);
        }
    }
  return 0;
}

const char *
config_mount_option_name (size_t i)
{
  size_t nf = sizeof (mount_flags) / sizeof (mount_flags[0]);
  size_t nr = sizeof (rec_flags) / sizeof (rec_flags[0]);
  if (i < nf)
    return mount_flags[i].name;
  if (i < nf + nr)
    return rec_flags[i - nf].name;
  return config_propagation_name (i - nf - nr);
}
