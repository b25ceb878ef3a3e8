/* SPDX-License-Identifier: Apache-2.0 */
/* config.json → struct shim_config.  The whole document is parsed once with
 * yajl_tree and walked here; every error names the JSON path. */
#include "runtime/config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/util.h"

static void
cleanup_yajl_valp (yajl_val *v)
{
  if (*v)
    yajl_tree_free (*v);
}
#define cleanup_yajl __attribute__ ((cleanup (cleanup_yajl_valp)))

void
warn (struct ctx *c, const char *path, const char *why)
{
  if (c->warn)
    c->warn (c->opaque, path, why);
}

static const char *
type_name (yajl_val v)
{
  if (v == NULL || YAJL_IS_NULL (v))
    return "null";
  if (YAJL_IS_STRING (v))
    return "string";
  if (YAJL_IS_NUMBER (v))
    return "number";
  if (YAJL_IS_OBJECT (v))
    return "object";
  if (YAJL_IS_ARRAY (v))
    return "array";
  return "boolean";
}

int
type_error (struct ctx *c, const char *path, const char *want, yajl_val v)
{
  return shim_error_plain (c->err, EINVAL, "%s: expected %s, got %s", path, want, type_name (v));
}

/* Child path "parent.key" or "parent[i]"; the caller frees it. */
char *
path_key (const char *parent, const char *key)
{
  char *p = NULL;
  if (asprintf (&p, "%s%s%s", parent, *parent ? "." : "", key) < 0)
    return NULL;
  return p;
}

char *
path_index (const char *parent, size_t i)
{
  char *p = NULL;
  if (asprintf (&p, "%s[%zu]", parent, i) < 0)
    return NULL;
  return p;
}

int
get_string (struct ctx *c, yajl_val v, const char *path, char **out)
{
  if (!YAJL_IS_STRING (v))
    return type_error (c, path, "string", v);
  *out = strdup (v->u.string);
  if (*out == NULL)
    return shim_error_errno (c->err, "%s", path);
  return 0;
}

int
get_bool (struct ctx *c, yajl_val v, const char *path, bool *out)
{
  if (YAJL_IS_TRUE (v))
    *out = true;
  else if (YAJL_IS_FALSE (v))
    *out = false;
  else
    return type_error (c, path, "boolean", v);
  return 0;
}

int
get_i64 (struct ctx *c, yajl_val v, const char *path, int64_t *out)
{
  if (!YAJL_IS_NUMBER (v) || util_parse_i64 (v->u.number.r, out) < 0)
    return type_error (c, path, "integer", v);
  return 0;
}

int
get_u64 (struct ctx *c, yajl_val v, const char *path, uint64_t *out)
{
  /* yajl's own integer is int64: rlimits use 2^64-1, so parse the text. */
  if (!YAJL_IS_NUMBER (v) || util_parse_u64 (v->u.number.r, out) < 0)
    return type_error (c, path, "non-negative integer", v);
  return 0;
}

int
get_u32 (struct ctx *c, yajl_val v, const char *path, uint32_t *out)
{
  uint64_t u = 0;
  if (get_u64 (c, v, path, &u) < 0)
    return -1;
  if (u > UINT32_MAX)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRIu64 " is out of range", path, u);
  *out = (uint32_t) u;
  return 0;
}

/* A NULL-terminated string array. */
int
get_string_array (struct ctx *c, yajl_val v, const char *path, char ***out, size_t *n)
{
  size_t i;
  char **a;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array of strings", v);
  a = calloc (v->u.array.len + 1, sizeof (char *));
  if (a == NULL)
    return shim_error_errno (c->err, "%s", path);
  *out = a;
  *n = v->u.array.len;
  for (i = 0; i < v->u.array.len; i++)
    {
      cleanup_free char *p = path_index (path, i);
      if (get_string (c, v->u.array.values[i], p, &a[i]) < 0)
        return -1;
    }
  return 0;
}

static int
get_kv_object (struct ctx *c, yajl_val v, const char *path, struct util_kv **out, size_t *n)
{
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  *out = calloc (v->u.object.len + 1, sizeof (struct util_kv));
  if (*out == NULL)
    return shim_error_errno (c->err, "%s", path);
  *n = v->u.object.len;
  for (i = 0; i < v->u.object.len; i++)
    {
      cleanup_free char *p = path_key (path, v->u.object.keys[i]);
      (*out)[i].key = strdup (v->u.object.keys[i]);
      if ((*out)[i].key == NULL || get_string (c, v->u.object.values[i], p, &(*out)[i].value) < 0)
        return shim_error_errno (c->err, "%s", p);
    }
  return 0;
}

/* Whether the object's I-th key already came before it. */
static bool
key_repeated (yajl_val obj, size_t i)
{
  size_t j;
  for (j = 0; j < i; j++)
    if (strcmp (obj->u.object.keys[j], obj->u.object.keys[i]) == 0)
      return true;
  return false;
}

int
walk_object (struct ctx *c, yajl_val v, const char *path, const struct field *fields, void *target)
{
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  for (i = 0; i < v->u.object.len; i++)
    {
      const struct field *f;
      cleanup_free char *p = path_key (path, v->u.object.keys[i]);
      if (p == NULL)
        return shim_error_errno (c->err, "%s", path);
      for (f = fields; f->key; f++)
        if (strcmp (f->key, v->u.object.keys[i]) == 0)
          break;
      if (f->key == NULL)
        continue;
      /* yajl keeps both copies of a repeated key; the parsers fill their
       * target once (a second `mounts` would meet the first's count). */
      if (key_repeated (v, i))
        return shim_error_plain (c->err, EINVAL, "%s: given twice", p);
      if (f->unsupported)
        {
          warn (c, p, f->unsupported);
          continue;
        }
      if (f->fn (c, v->u.object.values[i], p, target) < 0)
        return -1;
    }
  return 0;
}

/* ---- process ---- */

static const struct
{
  const char *name;
  int resource;
} rlimit_names[] = {
  { "RLIMIT_AS", RLIMIT_AS },           { "RLIMIT_CORE", RLIMIT_CORE },
  { "RLIMIT_CPU", RLIMIT_CPU },         { "RLIMIT_DATA", RLIMIT_DATA },
  { "RLIMIT_FSIZE", RLIMIT_FSIZE },     { "RLIMIT_LOCKS", RLIMIT_LOCKS },
  { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK }, { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
  { "RLIMIT_NICE", RLIMIT_NICE },       { "RLIMIT_NOFILE", RLIMIT_NOFILE },
  { "RLIMIT_NPROC", RLIMIT_NPROC },     { "RLIMIT_RSS", RLIMIT_RSS },
  { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },   { "RLIMIT_RTTIME", RLIMIT_RTTIME },
  { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING }, { "RLIMIT_STACK", RLIMIT_STACK },
};

static int
parse_rlimits (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  p->rlimits = calloc (v->u.array.len + 1, sizeof (*p->rlimits));
  if (p->rlimits == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, soft, hard;
      const char *type_path[] = { "type", NULL }, *soft_path[] = { "soft", NULL },
                 *hard_path[] = { "hard", NULL };
      cleanup_free char *ep = path_index (path, i);
      cleanup_free char *tp = path_key (ep, "type");
      cleanup_free char *sp = path_key (ep, "soft");
      cleanup_free char *hp = path_key (ep, "hard");
      struct shim_rlimit *r = &p->rlimits[i];

      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      t = yajl_tree_get (e, type_path, yajl_t_any);
      soft = yajl_tree_get (e, soft_path, yajl_t_any);
      hard = yajl_tree_get (e, hard_path, yajl_t_any);
      if (!YAJL_IS_STRING (t))
        return type_error (c, tp, "string", t);
      for (j = 0; j < sizeof (rlimit_names) / sizeof (rlimit_names[0]); j++)
        if (strcmp (rlimit_names[j].name, t->u.string) == 0)
          break;
      if (j == sizeof (rlimit_names) / sizeof (rlimit_names[0]))
        return shim_error_plain (c->err, EINVAL, "%s: unknown rlimit `%s`", tp, t->u.string);
      r->resource = rlimit_names[j].resource;
      for (j = 0; j < i; j++)
        if (p->rlimits[j].resource == r->resource)
          return shim_error_plain (c->err, EINVAL, "%s: rlimit `%s` given twice", tp, t->u.string);
      if (get_u64 (c, soft, sp, &r->soft) < 0 || get_u64 (c, hard, hp, &r->hard) < 0)
        return -1;
      if (r->soft > r->hard)
        return shim_error_plain (c->err, EINVAL, "%s: soft limit %" PRIu64 " is above the hard limit %" PRIu64,
                           ep, r->soft, r->hard);
      p->n_rlimits++;
    }
  return 0;
}

static int
parse_user_uid (struct ctx *c, yajl_val v, const char *path, void *target)
{
  uint32_t u = 0;
  if (get_u32 (c, v, path, &u) < 0)
    return -1;
  ((struct shim_process *) target)->uid = u;
  return 0;
}

static int
parse_user_gid (struct ctx *c, yajl_val v, const char *path, void *target)
{
  uint32_t u = 0;
  if (get_u32 (c, v, path, &u) < 0)
    return -1;
  ((struct shim_process *) target)->gid = u;
  return 0;
}

static int
parse_user_umask (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  uint32_t u = 0;
  if (get_u32 (c, v, path, &u) < 0)
    return -1;
  if (u > 0777)
    return shim_error_plain (c->err, EINVAL, "%s: %u is not a file mode mask (0 to 0777)", path, u);
  p->has_umask = true;
  p->umask = u;
  return 0;
}

static int
parse_user_gids (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  p->additional_gids = calloc (v->u.array.len + 1, sizeof (gid_t));
  if (p->additional_gids == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      cleanup_free char *ep = path_index (path, i);
      uint32_t g;
      if (get_u32 (c, v->u.array.values[i], ep, &g) < 0)
        return -1;
      p->additional_gids[p->n_additional_gids++] = g;
    }
  return 0;
}

static const struct field user_fields[] = {
  { "uid", parse_user_uid, NULL },
  { "gid", parse_user_gid, NULL },
  { "umask", parse_user_umask, NULL },
  { "additionalGids", parse_user_gids, NULL },
  { "username", NULL, "only meaningful on Windows; ignored" },
  { NULL, NULL, NULL },
};

static int
parse_user (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return walk_object (c, v, path, user_fields, target);
}

static int
parse_terminal (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  return get_bool (c, v, path, &p->terminal);
}

static int
parse_console_size (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  const char *keys[] = { "height", "width" };
  unsigned short *dst[] = { &p->console_height, &p->console_width };
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  for (i = 0; i < 2; i++)
    {
      const char *k[] = { keys[i], NULL };
      yajl_val f = yajl_tree_get (v, k, yajl_t_any);
      cleanup_free char *p2 = path_key (path, keys[i]);
      uint32_t x;
      if (f == NULL)
        continue;
      if (get_u32 (c, f, p2, &x) < 0)
        return -1;
      if (x > 65535)
        return shim_error_plain (c->err, ERANGE, "%s: %u is out of range", p2, x);
      *dst[i] = (unsigned short) x;
    }
  return 0;
}

static int
parse_args (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  return get_string_array (c, v, path, &p->args, &p->n_args);
}

static int
parse_env (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i;
  if (get_string_array (c, v, path, &p->env, &p->n_env) < 0)
    return -1;
  for (i = 0; i < p->n_env; i++)
    if (strchr (p->env[i], '=') == NULL || p->env[i][0] == '=')
      {
        cleanup_free char *ep = path_index (path, i);
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not of the form NAME=VALUE", ep, p->env[i]);
      }
  return 0;
}

static int
parse_cwd (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  if (get_string (c, v, path, &p->cwd) < 0)
    return -1;
  if (p->cwd[0] != '/')
    return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", path, p->cwd);
  return 0;
}

static int
parse_nnp (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return get_bool (c, v, path, &((struct shim_process *) target)->no_new_privileges);
}

static int
parse_oom_score_adj (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  int64_t x;
  if (get_i64 (c, v, path, &x) < 0)
    return -1;
  if (x < -1000 || x > 1000)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRId64 " is outside -1000..1000", path, x);
  p->has_oom_score_adj = true;
  p->oom_score_adj = (int) x;
  return 0;
}

static const struct field process_fields[] = {
  { "terminal", parse_terminal, NULL },
  { "consoleSize", parse_console_size, NULL },
  { "user", parse_user, NULL },
  { "args", parse_args, NULL },
  { "env", parse_env, NULL },
  { "cwd", parse_cwd, NULL },
  { "rlimits", parse_rlimits, NULL },
  { "noNewPrivileges", parse_nnp, NULL },
  { "oomScoreAdj", parse_oom_score_adj, NULL },
  { "capabilities", parse_capabilities, NULL },
  { "apparmorProfile", parse_apparmor_profile, NULL },
  { "selinuxLabel", parse_selinux_label, NULL },
  { "ioPriority", NULL, "I/O priority is not applied yet" },
  { "scheduler", NULL, "scheduler settings are not applied yet" },
  { "execCPUAffinity", NULL, "CPU affinity is not applied yet" },
  { NULL, NULL, NULL },
};

static int
parse_process (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (walk_object (c, v, path, process_fields, &cfg->process) < 0)
    return -1;
  if (cfg->process.n_args == 0)
    return shim_error_plain (c->err, EINVAL, "%s.args: must name at least the program to run", path);
  if (cfg->process.cwd == NULL)
    return shim_error_plain (c->err, EINVAL, "%s.cwd: required", path);
  return 0;
}

/* ---- root, hostname, annotations ---- */

static int
parse_root_path (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return get_string (c, v, path, &((struct shim_config *) target)->root_path);
}

static int
parse_root_readonly (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return get_bool (c, v, path, &((struct shim_config *) target)->root_readonly);
}

static const struct field root_fields[] = {
  { "path", parse_root_path, NULL },
  { "readonly", parse_root_readonly, NULL },
  { NULL, NULL, NULL },
};

static int
parse_root (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return walk_object (c, v, path, root_fields, target);
}

static int
parse_oci_version (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (get_string (c, v, path, &cfg->oci_version) < 0)
    return -1;
  /* Same major version as the spec we implement (1.x); anything else has a
   * different meaning for the same fields. */
  if (strncmp (cfg->oci_version, "1.", 2) != 0)
    return shim_error_plain (c->err, EINVAL, "%s: unsupported version `%s` (shim implements 1.x)", path,
                       cfg->oci_version);
  return 0;
}

static int
parse_hostname (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (get_string (c, v, path, &cfg->hostname) < 0)
    return -1;
  if (strlen (cfg->hostname) > 64)
    return shim_error_plain (c->err, EINVAL, "%s: longer than 64 bytes", path);
  return 0;
}

static int
parse_annotations (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return get_kv_object (c, v, path, &cfg->annotations, &cfg->n_annotations);
}

/* ---- mounts ---- */

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

static const struct
{
  const char *name;
  unsigned long flag;
} propagation_flags[] = {
  { "private", MS_PRIVATE },        { "rprivate", MS_PRIVATE | MS_REC },
  { "shared", MS_SHARED },          { "rshared", MS_SHARED | MS_REC },
  { "slave", MS_SLAVE },            { "rslave", MS_SLAVE | MS_REC },
  { "unbindable", MS_UNBINDABLE },  { "runbindable", MS_UNBINDABLE | MS_REC },
};

static int
propagation_lookup (const char *name, unsigned long *out)
{
  size_t i;
  for (i = 0; i < sizeof (propagation_flags) / sizeof (propagation_flags[0]); i++)
    if (strcmp (propagation_flags[i].name, name) == 0)
      {
        *out = propagation_flags[i].flag;
        return 0;
      }
  return -1;
}

int
shim_mount_options_parse (char *const *opts, size_t n, struct shim_mount *m, const char *json_path,
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
      if (propagation_lookup (o, &prop) == 0)
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

static int
parse_mounts (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i, k;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  cfg->mounts = calloc (v->u.array.len + 1, sizeof (struct shim_mount));
  if (cfg->mounts == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      struct shim_mount *m = &cfg->mounts[i];
      cleanup_free char *ep = path_index (path, i);
      char **opts = NULL;
      size_t n_opts = 0;
      int r = 0;

      cfg->n_mounts++;
      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      for (k = 0; k < e->u.object.len && r == 0; k++)
        {
          const char *key = e->u.object.keys[k];
          yajl_val val = e->u.object.values[k];
          cleanup_free char *kp = path_key (ep, key);
          if (key_repeated (e, k))
            r = shim_error_plain (c->err, EINVAL, "%s: given twice", kp);
          else if (strcmp (key, "destination") == 0)
            r = get_string (c, val, kp, &m->destination);
          else if (strcmp (key, "type") == 0)
            r = get_string (c, val, kp, &m->type);
          else if (strcmp (key, "source") == 0)
            r = get_string (c, val, kp, &m->source);
          else if (strcmp (key, "options") == 0)
            {
              r = get_string_array (c, val, kp, &opts, &n_opts);
              if (r == 0)
                r = shim_mount_options_parse (opts, n_opts, m, kp, c->err);
            }
          else if (strcmp (key, "uidMappings") == 0 || strcmp (key, "gidMappings") == 0)
            warn (c, kp, "id-mapped mounts are not supported yet");
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

/* ---- linux ---- */

static const struct
{
  const char *name;
  int type;
} namespace_types[] = {
  { "pid", CLONE_NEWPID },     { "network", CLONE_NEWNET }, { "mount", CLONE_NEWNS },
  { "ipc", CLONE_NEWIPC },     { "uts", CLONE_NEWUTS },     { "cgroup", CLONE_NEWCGROUP },
  { "user", CLONE_NEWUSER },   { "time", CLONE_NEWTIME },
};

static int
parse_namespaces (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  cfg->namespaces = calloc (v->u.array.len + 1, sizeof (struct shim_namespace));
  if (cfg->namespaces == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, p;
      const char *tk[] = { "type", NULL }, *pk[] = { "path", NULL };
      struct shim_namespace *ns = &cfg->namespaces[i];
      cleanup_free char *ep = path_index (path, i);
      cleanup_free char *tp = path_key (ep, "type");
      cleanup_free char *pp = path_key (ep, "path");

      cfg->n_namespaces++;
      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      t = yajl_tree_get (e, tk, yajl_t_any);
      p = yajl_tree_get (e, pk, yajl_t_any);
      if (!YAJL_IS_STRING (t))
        return type_error (c, tp, "string", t);
      for (j = 0; j < sizeof (namespace_types) / sizeof (namespace_types[0]); j++)
        if (strcmp (namespace_types[j].name, t->u.string) == 0)
          break;
      if (j == sizeof (namespace_types) / sizeof (namespace_types[0]))
        return shim_error_plain (c->err, EINVAL, "%s: unknown namespace type `%s`", tp, t->u.string);
      ns->type = namespace_types[j].type;
      if (ns->type == CLONE_NEWTIME)
        return shim_error_plain (c->err, ENOTSUP, "%s: time namespaces are not supported yet", tp);
      for (j = 0; j < i; j++)
        if (cfg->namespaces[j].type == ns->type)
          return shim_error_plain (c->err, EINVAL, "%s: namespace `%s` given twice", tp, t->u.string);
      if (p != NULL && !YAJL_IS_NULL (p))
        {
          if (get_string (c, p, pp, &ns->path) < 0)
            return -1;
          if (ns->path[0] != '/')
            return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", pp, ns->path);
        }
    }
  return 0;
}

static int
parse_cgroups_path (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return get_string (c, v, path, &((struct shim_config *) target)->cgroups_path);
}

static int
parse_rootfs_propagation (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (!YAJL_IS_STRING (v))
    return type_error (c, path, "string", v);
  if (propagation_lookup (v->u.string, &cfg->rootfs_propagation) < 0)
    return shim_error_plain (c->err, EINVAL, "%s: unknown propagation `%s`", path, v->u.string);
  return 0;
}

static int
check_abs_paths (struct ctx *c, char **a, size_t n, const char *path)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (a[i][0] != '/')
      {
        cleanup_free char *ep = path_index (path, i);
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", ep, a[i]);
      }
  return 0;
}

static int
parse_masked (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (get_string_array (c, v, path, &cfg->masked_paths, &cfg->n_masked_paths) < 0)
    return -1;
  return check_abs_paths (c, cfg->masked_paths, cfg->n_masked_paths, path);
}

static int
parse_readonly (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (get_string_array (c, v, path, &cfg->readonly_paths, &cfg->n_readonly_paths) < 0)
    return -1;
  return check_abs_paths (c, cfg->readonly_paths, cfg->n_readonly_paths, path);
}

static int
parse_sysctl (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i;
  if (get_kv_object (c, v, path, &cfg->sysctl, &cfg->n_sysctl) < 0)
    return -1;
  for (i = 0; i < cfg->n_sysctl; i++)
    {
      const char *k = cfg->sysctl[i].key;
      if (k[0] == '\0' || k[0] == '.' || k[0] == '/' || strstr (k, "..") || strstr (k, "/.."))
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a sysctl name", path, k);
    }
  return 0;
}

/* linux.resources: each value recorded with whether it was present. */
static int
res_i64 (struct ctx *c, yajl_val obj, const char *path, const char *key, bool *has, int64_t *out)
{
  const char *k[] = { key, NULL };
  yajl_val v = yajl_tree_get (obj, k, yajl_t_any);
  cleanup_free char *p = path_key (path, key);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  *has = true;
  return get_i64 (c, v, p, out);
}

static int
res_u64 (struct ctx *c, yajl_val obj, const char *path, const char *key, bool *has, uint64_t *out)
{
  const char *k[] = { key, NULL };
  yajl_val v = yajl_tree_get (obj, k, yajl_t_any);
  cleanup_free char *p = path_key (path, key);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  *has = true;
  return get_u64 (c, v, p, out);
}

static int
res_str (struct ctx *c, yajl_val obj, const char *path, const char *key, char **out)
{
  const char *k[] = { key, NULL };
  yajl_val v = yajl_tree_get (obj, k, yajl_t_any);
  cleanup_free char *p = path_key (path, key);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  return get_string (c, v, p, out);
}

static int
parse_res_memory (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  if (res_i64 (c, v, path, "limit", &r->has_memory_limit, &r->memory_limit) < 0
      || res_i64 (c, v, path, "reservation", &r->has_memory_reservation, &r->memory_reservation) < 0
      || res_i64 (c, v, path, "swap", &r->has_memory_swap, &r->memory_swap) < 0)
    return -1;
  if (r->has_memory_limit && r->memory_limit < -1)
    return shim_error_plain (c->err, EINVAL, "%s.limit: %" PRId64 " is not a byte count or -1", path,
                       r->memory_limit);
  /* runc reads 0 as "not set", and engines rely on it. */
  if (r->has_memory_limit && r->memory_limit == 0)
    r->has_memory_limit = false;
  if (r->has_memory_swap && r->memory_swap < -1)
    return shim_error_plain (c->err, EINVAL, "%s.swap: %" PRId64 " is not a byte count or -1", path,
                       r->memory_swap);
  if (r->has_memory_swap && r->memory_swap >= 0 && r->has_memory_limit && r->memory_limit > 0
      && r->memory_swap < r->memory_limit)
    return shim_error_plain (c->err, EINVAL, "%s.swap: %" PRId64 " is below limit %" PRId64
                       " (swap counts memory plus swap)", path, r->memory_swap, r->memory_limit);
  for (i = 0; i < v->u.object.len; i++)
    {
      const char *k = v->u.object.keys[i];
      if (strcmp (k, "limit") && strcmp (k, "reservation") && strcmp (k, "swap"))
        {
          cleanup_free char *p = path_key (path, k);
          warn (c, p, "not applied on cgroup v2");
        }
    }
  return 0;
}

static int
parse_res_pids (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  return res_i64 (c, v, path, "limit", &r->has_pids_limit, &r->pids_limit);
}

static int
parse_res_cpu (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  if (res_u64 (c, v, path, "shares", &r->has_cpu_shares, &r->cpu_shares) < 0
      || res_i64 (c, v, path, "quota", &r->has_cpu_quota, &r->cpu_quota) < 0
      || res_u64 (c, v, path, "period", &r->has_cpu_period, &r->cpu_period) < 0
      || res_str (c, v, path, "cpus", &r->cpu_cpus) < 0 || res_str (c, v, path, "mems", &r->cpu_mems) < 0)
    return -1;
  if (r->has_cpu_shares && r->cpu_shares != 0 && (r->cpu_shares < 2 || r->cpu_shares > 262144))
    return shim_error_plain (c->err, ERANGE, "%s.shares: %" PRIu64 " is outside 2..262144", path,
                       r->cpu_shares);
  return 0;
}

static int
parse_res_blkio (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  uint64_t w = 0;
  size_t i;
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  if (res_u64 (c, v, path, "weight", &r->has_blkio_weight, &w) < 0)
    return -1;
  /* 0 is "not set": Docker sends it for every container, and runc
   * writes no io.weight for it. */
  if (r->has_blkio_weight && w == 0)
    r->has_blkio_weight = false;
  if (r->has_blkio_weight && (w < 10 || w > 1000))
    return shim_error_plain (c->err, ERANGE, "%s.weight: %" PRIu64 " is outside 10..1000", path, w);
  r->blkio_weight = (uint16_t) w;
  for (i = 0; i < v->u.object.len; i++)
    if (strcmp (v->u.object.keys[i], "weight") != 0)
      {
        cleanup_free char *p = path_key (path, v->u.object.keys[i]);
        warn (c, p, "not applied yet");
      }
  return 0;
}

static int
parse_res_unified (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;
  if (get_kv_object (c, v, path, &r->unified, &r->n_unified) < 0)
    return -1;
  for (i = 0; i < r->n_unified; i++)
    if (strchr (r->unified[i].key, '/') || r->unified[i].key[0] == '.'
        || strchr (r->unified[i].key, '.') == NULL)
      return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a cgroup v2 file name", path,
                         r->unified[i].key);
  return 0;
}

/* Field KEY of object OBJ, NULL when absent or null. */
static yajl_val
field_of (yajl_val obj, const char *key)
{
  const char *k[] = { key, NULL };
  yajl_val v = yajl_tree_get (obj, k, yajl_t_any);
  return v == NULL || YAJL_IS_NULL (v) ? NULL : v;
}

/* A device number that may be left out (any): -1 then. */
static int
get_dev_number (struct ctx *c, yajl_val obj, const char *ep, const char *key, int64_t *out)
{
  cleanup_free char *p = path_key (ep, key);
  yajl_val v = field_of (obj, key);
  *out = -1;
  if (v == NULL)
    return 0;
  if (get_i64 (c, v, p, out) < 0)
    return -1;
  if (*out < -1 || *out > UINT32_MAX)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRId64 " is not a device number (or -1 for any)", p,
                             *out);
  return 0;
}

static int
parse_res_devices (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct cgroup_resources *r = target;
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  r->has_devices = true;
  r->devices = calloc (v->u.array.len + 1, sizeof (*r->devices));
  if (r->devices == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, a, al;
      struct cgroup_device_rule *d = &r->devices[i];
      cleanup_free char *ep = path_index (path, i);
      cleanup_free char *tp = path_key (ep, "type");
      cleanup_free char *ap = path_key (ep, "access");
      cleanup_free char *alp = path_key (ep, "allow");
      const char *s;

      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      al = field_of (e, "allow");
      if (al == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", alp);
      if (get_bool (c, al, alp, &d->allow) < 0)
        return -1;
      d->type = 'a';
      t = field_of (e, "type");
      if (t && !YAJL_IS_STRING (t))
        return type_error (c, tp, "string", t);
      if (t && (strlen (t->u.string) != 1 || strchr ("abc", t->u.string[0]) == NULL))
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a device type (a, b or c)", tp, t->u.string);
      if (t)
        d->type = t->u.string[0];
      if (get_dev_number (c, e, ep, "major", &d->major) < 0 || get_dev_number (c, e, ep, "minor", &d->minor) < 0)
        return -1;
      /* runc refuses a rule without access; an empty one would match
       * nothing, which is never what was meant. */
      a = field_of (e, "access");
      if (a == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required (some of r, w, m)", ap);
      if (!YAJL_IS_STRING (a))
        return type_error (c, ap, "string", a);
      for (s = a->u.string; *s; s++)
        d->access |= *s == 'r' ? CGROUP_DEV_READ : *s == 'w' ? CGROUP_DEV_WRITE : *s == 'm' ? CGROUP_DEV_MKNOD : 0x100;
      if (d->access == 0 || d->access & 0x100)
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not made of r, w and m", ap, a->u.string);
      r->n_devices++;
    }
  return 0;
}

static const struct field resources_fields[] = {
  { "memory", parse_res_memory, NULL },
  { "pids", parse_res_pids, NULL },
  { "cpu", parse_res_cpu, NULL },
  { "blockIO", parse_res_blkio, NULL },
  { "unified", parse_res_unified, NULL },
  { "devices", parse_res_devices, NULL },
  { "hugepageLimits", NULL, "not applied yet" },
  { "network", NULL, "not applied on cgroup v2" },
  { "rdma", NULL, "not applied yet" },
  { NULL, NULL, NULL },
};

static int
parse_resources (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  cfg->has_resources = true;
  return walk_object (c, v, path, resources_fields, &cfg->resources);
}

/* linux.uidMappings / gidMappings: each range checked here, against the
 * namespaces in shim_config_parse (they need a new user namespace). */
static int
parse_idmappings (struct ctx *c, yajl_val v, const char *path, struct shim_idmap **out, size_t *n)
{
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
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
      cleanup_free char *ep = path_index (path, i);
      const char *keys[] = { "containerID", "hostID", "size" };
      uint32_t *dst[] = { &m->container_id, &m->host_id, &m->size };

      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      for (j = 0; j < 3; j++)
        {
          cleanup_free char *kp = path_key (ep, keys[j]);
          yajl_val f = field_of (e, keys[j]);
          if (f == NULL)
            return shim_error_plain (c->err, EINVAL, "%s: required", kp);
          if (get_u32 (c, f, kp, dst[j]) < 0)
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
parse_uid_mappings (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return parse_idmappings (c, v, path, &cfg->uid_mappings, &cfg->n_uid_mappings);
}

static int
parse_gid_mappings (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return parse_idmappings (c, v, path, &cfg->gid_mappings, &cfg->n_gid_mappings);
}

static int
parse_devices (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return type_error (c, path, "array", v);
  cfg->devices = calloc (v->u.array.len + 1, sizeof (*cfg->devices));
  if (cfg->devices == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], f;
      struct shim_device *d = &cfg->devices[i];
      cleanup_free char *ep = path_index (path, i);
      cleanup_free char *pp = path_key (ep, "path");
      cleanup_free char *tp = path_key (ep, "type");
      cleanup_free char *mp = path_key (ep, "fileMode");
      cleanup_free char *up = path_key (ep, "uid");
      cleanup_free char *gp = path_key (ep, "gid");
      const char *nums[] = { "major", "minor" };
      uint32_t *dst[] = { &d->major, &d->minor };
      uint32_t mode;

      cfg->n_devices++;
      if (!YAJL_IS_OBJECT (e))
        return type_error (c, ep, "object", e);
      f = field_of (e, "path");
      if (f == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", pp);
      if (get_string (c, f, pp, &d->path) < 0)
        return -1;
      if (d->path[0] != '/')
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", pp, d->path);
      for (j = 0; j < i; j++)
        if (strcmp (cfg->devices[j].path, d->path) == 0)
          return shim_error_plain (c->err, EINVAL, "%s: `%s` is already %s[%zu]", pp, d->path, path, j);
      f = field_of (e, "type");
      if (f == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: required", tp);
      if (!YAJL_IS_STRING (f))
        return type_error (c, tp, "string", f);
      if (strlen (f->u.string) != 1 || strchr ("cubp", f->u.string[0]) == NULL)
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not a device type (c, u, b or p)", tp,
                                 f->u.string);
      /* "u" is an unbuffered character device: the same node. */
      d->type = f->u.string[0] == 'u' ? 'c' : f->u.string[0];
      for (j = 0; j < 2; j++)
        {
          cleanup_free char *np = path_key (ep, nums[j]);
          f = field_of (e, nums[j]);
          if (f == NULL && d->type != 'p')
            return shim_error_plain (c->err, EINVAL, "%s: required for a `%c` device", np, d->type);
          if (f && get_u32 (c, f, np, dst[j]) < 0)
            return -1;
        }
      if ((f = field_of (e, "fileMode")) != NULL)
        {
          if (get_u32 (c, f, mp, &mode) < 0)
            return -1;
          if (mode & ~07777u)
            return shim_error_plain (c->err, EINVAL, "%s: %u has bits other than permissions (07777)", mp, mode);
          d->has_file_mode = true;
          d->file_mode = mode;
        }
      if ((f = field_of (e, "uid")) != NULL && (d->has_uid = true) && get_u32 (c, f, up, &d->uid) < 0)
        return -1;
      if ((f = field_of (e, "gid")) != NULL && (d->has_gid = true) && get_u32 (c, f, gp, &d->gid) < 0)
        return -1;
    }
  return 0;
}

static const struct field linux_fields[] = {
  { "namespaces", parse_namespaces, NULL },
  { "cgroupsPath", parse_cgroups_path, NULL },
  { "rootfsPropagation", parse_rootfs_propagation, NULL },
  { "maskedPaths", parse_masked, NULL },
  { "readonlyPaths", parse_readonly, NULL },
  { "sysctl", parse_sysctl, NULL },
  { "resources", parse_resources, NULL },
  { "uidMappings", parse_uid_mappings, NULL },
  { "gidMappings", parse_gid_mappings, NULL },
  { "seccomp", parse_seccomp, NULL },
  { "devices", parse_devices, NULL },
  { "mountLabel", NULL, "SELinux labels are not applied yet" },
  { "intelRdt", NULL, "Intel RDT is not supported" },
  { "personality", NULL, "personality is not applied yet" },
  { "timeOffsets", NULL, "time namespaces are not supported" },
  { NULL, NULL, NULL },
};

static int
parse_linux (struct ctx *c, yajl_val v, const char *path, void *target)
{
  return walk_object (c, v, path, linux_fields, target);
}

/* ---- hooks ---- */

static const char *const hook_stage_names[HOOK_N_STAGES] = {
  "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
};

const char *
shim_hook_stage_name (enum shim_hook_stage s)
{
  return hook_stage_names[s];
}

static int
hook_path (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  if (get_string (c, v, path, &h->path) < 0)
    return -1;
  if (h->path[0] != '/')
    return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", path, h->path);
  return 0;
}

static int
hook_args (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  return get_string_array (c, v, path, &h->args, &h->n_args);
}

static int
hook_env (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  return get_string_array (c, v, path, &h->env, &h->n_env);
}

static int
hook_timeout (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  int64_t t;
  if (get_i64 (c, v, path, &t) < 0)
    return -1;
  if (t <= 0 || t > INT32_MAX)
    return shim_error_plain (c->err, EINVAL, "%s: must be a positive number of seconds", path);
  h->timeout = (int) t;
  return 0;
}

static const struct field hook_fields[] = {
  { "path", hook_path, NULL },
  { "args", hook_args, NULL },
  { "env", hook_env, NULL },
  { "timeout", hook_timeout, NULL },
  { NULL, NULL, NULL },
};

static int
parse_hooks (struct ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t s, i;

  if (!YAJL_IS_OBJECT (v))
    return type_error (c, path, "object", v);
  for (s = 0; s < HOOK_N_STAGES; s++)
    {
      const char *k[] = { hook_stage_names[s], NULL };
      yajl_val list = yajl_tree_get (v, k, yajl_t_any);
      cleanup_free char *lp = path_key (path, hook_stage_names[s]);
      struct shim_hook_list *hl = &cfg->hooks[s];

      if (list == NULL || YAJL_IS_NULL (list))
        continue;
      if (!YAJL_IS_ARRAY (list))
        return type_error (c, lp, "array", list);
      hl->v = calloc (list->u.array.len + 1, sizeof (*hl->v));
      if (hl->v == NULL)
        return shim_error_errno (c->err, "%s", lp);
      for (i = 0; i < list->u.array.len; i++)
        {
          cleanup_free char *hp = path_index (lp, i);
          hl->n++;
          if (walk_object (c, list->u.array.values[i], hp, hook_fields, &hl->v[i]) < 0)
            return -1;
          if (hl->v[i].path == NULL)
            return shim_error_plain (c->err, EINVAL, "%s.path: required", hp);
        }
    }
  return 0;
}

static const struct field top_fields[] = {
  { "ociVersion", parse_oci_version, NULL },
  { "root", parse_root, NULL },
  { "process", parse_process, NULL },
  { "hostname", parse_hostname, NULL },
  { "mounts", parse_mounts, NULL },
  { "linux", parse_linux, NULL },
  { "annotations", parse_annotations, NULL },
  { "hooks", parse_hooks, NULL },
  { "domainname", NULL, "not set yet" },
  { NULL, NULL, NULL },
};

/* ---- cross-field checks ---- */

int
shim_idmap_to_host (const struct shim_idmap *m, size_t n, uint32_t id, uint32_t *host)
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

/* A new user namespace needs both maps, with the container's root and the
 * process's ids in them (setresuid to an unmapped id fails with a bare
 * EINVAL inside the container); mappings without one are a mistake. */
static int
check_user_namespace (struct ctx *c, struct shim_config *cfg)
{
  const struct shim_namespace *u = shim_config_namespace (cfg, CLONE_NEWUSER);
  const struct shim_process *p = &cfg->process;
  uint32_t h;
  size_t i;

  if (u == NULL)
    {
      if (cfg->n_uid_mappings || cfg->n_gid_mappings)
        return shim_error_plain (c->err, EINVAL, "linux.%s: given without a `user` entry in linux.namespaces",
                                 cfg->n_uid_mappings ? "uidMappings" : "gidMappings");
      return 0;
    }
  if (u->path)
    {
      /* unshare() would not make init pid 1 of a new pid namespace, and
       * clone3 would make it the host's. */
      const struct shim_namespace *pid = shim_config_namespace (cfg, CLONE_NEWPID);
      if (pid && pid->path == NULL)
        return shim_error_plain (c->err, ENOTSUP, "linux.namespaces: a new `pid` namespace inside a `user` "
                                 "namespace joined by path is not supported: join a pid namespace by path too");
      /* containerd and CRI-O send both; the namespace's own maps rule. */
      if (cfg->n_uid_mappings || cfg->n_gid_mappings)
        warn (c, cfg->n_uid_mappings ? "linux.uidMappings" : "linux.gidMappings",
              "ignored: the user namespace joined by path has its own mappings");
      return 0;
    }
  if (cfg->n_uid_mappings == 0)
    return shim_error_plain (c->err, EINVAL, "linux.uidMappings: required with a new `user` namespace");
  if (cfg->n_gid_mappings == 0)
    return shim_error_plain (c->err, EINVAL, "linux.gidMappings: required with a new `user` namespace");
  if (shim_idmap_to_host (cfg->uid_mappings, cfg->n_uid_mappings, 0, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "linux.uidMappings: the container's root (uid 0) is not mapped");
  if (shim_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, 0, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "linux.gidMappings: the container's root group (gid 0) is not mapped");
  if (shim_idmap_to_host (cfg->uid_mappings, cfg->n_uid_mappings, p->uid, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "process.user.uid: %u is not mapped by linux.uidMappings",
                             (unsigned) p->uid);
  if (shim_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, p->gid, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "process.user.gid: %u is not mapped by linux.gidMappings",
                             (unsigned) p->gid);
  for (i = 0; i < p->n_additional_gids; i++)
    if (shim_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, p->additional_gids[i], &h) < 0)
      return shim_error_plain (c->err, EINVAL, "process.user.additionalGids[%zu]: %u is not mapped by "
                               "linux.gidMappings", i, (unsigned) p->additional_gids[i]);
  return 0;
}

/* ---- document ---- */

/* yajl_tree only says what is wrong; rerun the event parser (error path
 * only) for the byte offset and turn it into line:column. */
static int
syntax_error (const char *file, const char *json, size_t len, const char *what, shim_error_t *err)
{
  yajl_handle h = yajl_alloc (NULL, NULL, NULL);
  size_t off = len, i, line = 1, col = 1;
  cleanup_free char *reason = NULL;

  /* A failure in yajl_complete_parse is at the end of the input.  The
   * event parser must accept what yajl_tree_parse accepts (comments), or
   * it would stop at a comment before the real error. */
  if (h)
    {
      yajl_config (h, yajl_allow_comments, 1);
      /* yajl counts the offending token as consumed: point at its last
       * byte, not at the one after it. */
      if (yajl_parse (h, (const unsigned char *) json, len) != yajl_status_ok)
        {
          off = yajl_get_bytes_consumed (h);
          if (off > 0)
            off--;
        }
      yajl_free (h);
    }
  if (off > len)
    off = len;
  for (i = 0; i < off; i++)
    if (json[i] == '\n')
      {
        line++;
        col = 1;
      }
    else
      col++;
  /* yajl's message carries a multi-line excerpt: keep its first line. */
  reason = strndup (what, strcspn (what, "\n"));
  return shim_error_plain (err, EINVAL, "%s%sline %zu, column %zu: malformed JSON: %s", file ? file : "",
                           file ? ":" : "", line, col,
                     reason && *reason ? reason : "syntax error");
}

int
shim_config_parse (const char *json, size_t len, const char *bundle, struct shim_config **out,
                   shim_config_warn_fn warnfn, void *opaque, shim_error_t *err)
{
  cleanup_yajl yajl_val root = NULL;
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *copy = NULL;
  char errbuf[1024] = "";
  struct ctx c = { .warn = warnfn, .opaque = opaque, .err = err };

  /* yajl_tree_parse wants a NUL-terminated buffer and stops at a NUL. */
  if (memchr (json, '\0', len) != NULL)
    return shim_error_plain (err, EINVAL, "contains a NUL byte");
  copy = strndup (json, len);
  if (copy == NULL)
    return shim_error_errno (err, "config.json");
  root = yajl_tree_parse (copy, errbuf, sizeof (errbuf));
  if (root == NULL)
    return syntax_error (NULL, json, len, errbuf, err);
  if (!YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "expected an object at the top level, got %s",
                       type_name (root));

  cfg = calloc (1, sizeof (*cfg));
  if (cfg == NULL)
    return shim_error_errno (err, "config.json");
  cfg->bundle = strdup (bundle ? bundle : ".");
  if (cfg->bundle == NULL)
    return shim_error_errno (err, "config.json");
  if (walk_object (&c, root, "", top_fields, cfg) < 0)
    return -1;

  if (cfg->oci_version == NULL)
    return shim_error_plain (err, EINVAL, "ociVersion: required");
  if (cfg->root_path == NULL)
    return shim_error_plain (err, EINVAL, "root.path: required");
  if (cfg->process.args == NULL)
    return shim_error_plain (err, EINVAL, "process: required (shim has nothing to run without it)");
  /* The rootfs is set up by mounting: without a mount namespace of its own
   * that would be done to the host. */
  if (shim_config_namespace (cfg, CLONE_NEWNS) == NULL)
    return shim_error_plain (err, EINVAL, "linux.namespaces: a `mount` namespace is required");
  if (cfg->hostname && shim_config_namespace (cfg, CLONE_NEWUTS) == NULL)
    return shim_error_plain (err, EINVAL, "hostname: needs a `uts` entry in linux.namespaces");
  if (check_user_namespace (&c, cfg) < 0)
    return -1;
  if (cfg->root_path[0] != '/')
    {
      char *abs = NULL;
      if (asprintf (&abs, "%s/%s", cfg->bundle, cfg->root_path) < 0)
        return shim_error_errno (err, "root.path");
      free (cfg->root_path);
      cfg->root_path = abs;
    }
  *out = steal_pointer (&cfg);
  return 0;
}

int
shim_config_load (const char *bundle, struct shim_config **out, shim_config_warn_fn warnfn,
                  void *opaque, shim_error_t *err)
{
  cleanup_close int dfd = -1;
  cleanup_free char *json = NULL;
  cleanup_free char *abs = NULL;
  cleanup_free char *file = NULL;
  size_t len;

  dfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return shim_error_errno (err, "bundle `%s`", bundle);
  abs = realpath (bundle, NULL);
  if (abs == NULL)
    return shim_error_errno (err, "bundle `%s`", bundle);
  if (asprintf (&file, "%s/config.json", strcmp (abs, "/") ? abs : "") < 0)
    return shim_error_errno (err, "bundle `%s`", bundle);
  if (util_read_file_at (dfd, "config.json", &json, &len, NULL) < 0)
    return shim_error_errno (err, "%s", file);
  if (shim_config_parse (json, len, abs, out, warnfn, opaque, err) < 0)
    return shim_error_prefix (err, "%s", file);
  return 0;
}

const struct shim_namespace *
shim_config_namespace (const struct shim_config *c, int type)
{
  size_t i;
  for (i = 0; i < c->n_namespaces; i++)
    if (c->namespaces[i].type == type)
      return &c->namespaces[i];
  return NULL;
}

static void
free_strv (char **v, size_t n)
{
  size_t i;
  if (v == NULL)
    return;
  for (i = 0; i < n; i++)
    free (v[i]);
  free (v);
}

static void
free_kv (struct util_kv *kv, size_t n)
{
  size_t i;
  if (kv == NULL)
    return;
  for (i = 0; i < n; i++)
    {
      free (kv[i].key);
      free (kv[i].value);
    }
  free (kv);
}

void
shim_config_free (struct shim_config *c)
{
  size_t i;
  if (c == NULL)
    return;
  free (c->bundle);
  free (c->oci_version);
  free (c->root_path);
  shim_process_free (&c->process);
  seccomp_config_free (c->seccomp);
  free (c->hostname);
  for (i = 0; i < c->n_mounts; i++)
    {
      free (c->mounts[i].destination);
      free (c->mounts[i].type);
      free (c->mounts[i].source);
      free (c->mounts[i].data);
    }
  free (c->mounts);
  for (i = 0; i < c->n_namespaces; i++)
    free (c->namespaces[i].path);
  free (c->namespaces);
  free (c->cgroups_path);
  free_strv (c->masked_paths, c->n_masked_paths);
  free_strv (c->readonly_paths, c->n_readonly_paths);
  free_kv (c->sysctl, c->n_sysctl);
  shim_resources_free (&c->resources);
  free (c->uid_mappings);
  free (c->gid_mappings);
  for (i = 0; i < c->n_devices; i++)
    free (c->devices[i].path);
  free (c->devices);
  free_kv (c->annotations, c->n_annotations);
  for (i = 0; i < HOOK_N_STAGES; i++)
    {
      size_t j;
      for (j = 0; j < c->hooks[i].n; j++)
        {
          free (c->hooks[i].v[j].path);
          free_strv (c->hooks[i].v[j].args, c->hooks[i].v[j].n_args);
          free_strv (c->hooks[i].v[j].env, c->hooks[i].v[j].n_env);
        }
      free (c->hooks[i].v);
    }
  free (c);
}

void
shim_process_free (struct shim_process *p)
{
  free_strv (p->args, p->n_args);
  free_strv (p->env, p->n_env);
  free (p->cwd);
  free (p->additional_gids);
  free (p->rlimits);
  free (p->apparmor_profile);
  free (p->selinux_label);
  memset (p, 0, sizeof (*p));
}

int
shim_process_parse (const char *json, size_t len, struct shim_process *out, shim_config_warn_fn warnfn,
                    void *opaque, shim_error_t *err)
{
  cleanup_yajl yajl_val root = NULL;
  cleanup_free char *copy = NULL;
  char errbuf[1024] = "";
  struct ctx c = { .warn = warnfn, .opaque = opaque, .err = err };

  memset (out, 0, sizeof (*out));
  if (memchr (json, '\0', len) != NULL)
    return shim_error_plain (err, EINVAL, "contains a NUL byte");
  copy = strndup (json, len);
  if (copy == NULL)
    return shim_error_errno (err, "process");
  root = yajl_tree_parse (copy, errbuf, sizeof (errbuf));
  if (root == NULL)
    return syntax_error (NULL, json, len, errbuf, err);
  if (walk_object (&c, root, "process", process_fields, out) < 0)
    return -1;
  if (out->n_args == 0)
    return shim_error_plain (err, EINVAL, "process.args: must name at least the program to run");
  if (out->cwd == NULL && (out->cwd = strdup ("/")) == NULL)
    return shim_error_errno (err, "process.cwd");
  return 0;
}

int
shim_resources_parse (const char *json, size_t len, struct cgroup_resources *out, shim_error_t *err)
{
  cleanup_yajl yajl_val root = NULL;
  cleanup_free char *copy = NULL;
  char errbuf[1024] = "";
  struct ctx c = { .err = err };

  memset (out, 0, sizeof (*out));
  if (memchr (json, '\0', len) != NULL)
    return shim_error_plain (err, EINVAL, "contains a NUL byte");
  copy = strndup (json, len);
  if (copy == NULL)
    return shim_error_errno (err, "resources");
  root = yajl_tree_parse (copy, errbuf, sizeof (errbuf));
  if (root == NULL)
    return syntax_error (NULL, json, len, errbuf, err);
  return walk_object (&c, root, "resources", resources_fields, out);
}

void
shim_resources_free (struct cgroup_resources *r)
{
  free (r->cpu_cpus);
  free (r->cpu_mems);
  free_kv (r->unified, r->n_unified);
  free (r->devices);
  memset (r, 0, sizeof (*r));
}

const char *
shim_mount_option_name (size_t i)
{
  size_t nf = sizeof (mount_flags) / sizeof (mount_flags[0]);
  size_t np = sizeof (propagation_flags) / sizeof (propagation_flags[0]);
  if (i < nf)
    return mount_flags[i].name;
  if (i < nf + np)
    return propagation_flags[i - nf].name;
  return NULL;
}
