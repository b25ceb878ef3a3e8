/* SPDX-License-Identifier: Apache-2.0 */
/* config.json's "process", also the whole document of `exec --process`:
 * args, env, cwd, user, rlimits, terminal and consoleSize, noNewPrivileges,
 * oomScoreAdj.  The security fields of the same object are parsed by
 * config_security.c. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/json.h"
#include "common/util.h"

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
parse_rlimits (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  p->rlimits = calloc (v->u.array.len + 1, sizeof (*p->rlimits));
  if (p->rlimits == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i], t, soft, hard;
      const char *type_path[] = { "type", NULL }, *soft_path[] = { "soft", NULL },
                 *hard_path[] = { "hard", NULL };
      cleanup_free char *ep = config_path_index (path, i);
      cleanup_free char *tp = config_path_key (ep, "type");
      cleanup_free char *sp = config_path_key (ep, "soft");
      cleanup_free char *hp = config_path_key (ep, "hard");
      struct shim_rlimit *r = &p->rlimits[i];

      if (!YAJL_IS_OBJECT (e))
        return config_type_error (c, ep, "object", e);
      t = yajl_tree_get (e, type_path, yajl_t_any);
      soft = yajl_tree_get (e, soft_path, yajl_t_any);
      hard = yajl_tree_get (e, hard_path, yajl_t_any);
      if (!YAJL_IS_STRING (t))
        return config_type_error (c, tp, "string", t);
      for (j = 0; j < sizeof (rlimit_names) / sizeof (rlimit_names[0]); j++)
        if (strcmp (rlimit_names[j].name, t->u.string) == 0)
          break;
      if (j == sizeof (rlimit_names) / sizeof (rlimit_names[0]))
        return shim_error_plain (c->err, EINVAL, "%s: unknown rlimit `%s`", tp, t->u.string);
      r->resource = rlimit_names[j].resource;
      for (j = 0; j < i; j++)
        if (p->rlimits[j].resource == r->resource)
          return shim_error_plain (c->err, EINVAL, "%s: rlimit `%s` given twice", tp, t->u.string);
      if (config_get_u64 (c, soft, sp, &r->soft) < 0 || config_get_u64 (c, hard, hp, &r->hard) < 0)
        return -1;
      if (r->soft > r->hard)
        return shim_error_plain (c->err, EINVAL, "%s: soft limit %" PRIu64 " is above the hard limit %" PRIu64,
                           ep, r->soft, r->hard);
      p->n_rlimits++;
    }
  return 0;
}

static int
parse_user_uid (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  uint32_t u = 0;
  if (config_get_u32 (c, v, path, &u) < 0)
    return -1;
  ((struct shim_process *) target)->uid = u;
  return 0;
}

static int
parse_user_gid (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  uint32_t u = 0;
  if (config_get_u32 (c, v, path, &u) < 0)
    return -1;
  ((struct shim_process *) target)->gid = u;
  return 0;
}

static int
parse_user_umask (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  uint32_t u = 0;
  if (config_get_u32 (c, v, path, &u) < 0)
    return -1;
  if (u > 0777)
    return shim_error_plain (c->err, EINVAL, "%s: %u is not a file mode mask (0 to 0777)", path, u);
  p->has_umask = true;
  p->umask = u;
  return 0;
}

static int
parse_user_gids (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  p->additional_gids = calloc (v->u.array.len + 1, sizeof (gid_t));
  if (p->additional_gids == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      cleanup_free char *ep = config_path_index (path, i);
      uint32_t g;
      if (config_get_u32 (c, v->u.array.values[i], ep, &g) < 0)
        return -1;
      p->additional_gids[p->n_additional_gids++] = g;
    }
  return 0;
}

static const struct config_field user_fields[] = {
  { "uid", parse_user_uid, NULL },
  { "gid", parse_user_gid, NULL },
  { "umask", parse_user_umask, NULL },
  { "additionalGids", parse_user_gids, NULL },
  { "username", NULL, "only meaningful on Windows; ignored" },
  { NULL, NULL, NULL },
};

static int
parse_user (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_walk_object (c, v, path, user_fields, target);
}

static int
parse_terminal (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  return config_get_bool (c, v, path, &p->terminal);
}

static int
parse_console_size (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  const char *keys[] = { "height", "width" };
  unsigned short *dst[] = { &p->console_height, &p->console_width };
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  for (i = 0; i < 2; i++)
    {
      const char *k[] = { keys[i], NULL };
      yajl_val f = yajl_tree_get (v, k, yajl_t_any);
      cleanup_free char *p2 = config_path_key (path, keys[i]);
      uint32_t x;
      if (f == NULL)
        continue;
      if (config_get_u32 (c, f, p2, &x) < 0)
        return -1;
      if (x > 65535)
        return shim_error_plain (c->err, ERANGE, "%s: %u is out of range", p2, x);
      *dst[i] = (unsigned short) x;
    }
  return 0;
}

static int
parse_args (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  return config_get_string_array (c, v, path, &p->args, &p->n_args);
}

static int
parse_env (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  size_t i;
  if (config_get_string_array (c, v, path, &p->env, &p->n_env) < 0)
    return -1;
  for (i = 0; i < p->n_env; i++)
    if (strchr (p->env[i], '=') == NULL || p->env[i][0] == '=')
      {
        cleanup_free char *ep = config_path_index (path, i);
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not of the form NAME=VALUE", ep, p->env[i]);
      }
  return 0;
}

static int
parse_cwd (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  if (config_get_string (c, v, path, &p->cwd) < 0)
    return -1;
  if (p->cwd[0] != '/')
    return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", path, p->cwd);
  return 0;
}

static int
parse_nnp (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_bool (c, v, path, &((struct shim_process *) target)->no_new_privileges);
}

static int
parse_oom_score_adj (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_process *p = target;
  int64_t x;
  if (config_get_i64 (c, v, path, &x) < 0)
    return -1;
  if (x < -1000 || x > 1000)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRId64 " is outside -1000..1000", path, x);
  p->has_oom_score_adj = true;
  p->oom_score_adj = (int) x;
  return 0;
}

static const struct config_field process_fields[] = {
  { "terminal", parse_terminal, NULL },
  { "consoleSize", parse_console_size, NULL },
  { "user", parse_user, NULL },
  { "args", parse_args, NULL },
  { "env", parse_env, NULL },
  { "cwd", parse_cwd, NULL },
  { "rlimits", parse_rlimits, NULL },
  { "noNewPrivileges", parse_nnp, NULL },
  { "oomScoreAdj", parse_oom_score_adj, NULL },
  { "capabilities", config_parse_capabilities, NULL },
  { "apparmorProfile", config_parse_apparmor_profile, NULL },
  { "selinuxLabel", config_parse_selinux_label, NULL },
  { "ioPriority", NULL, "I/O priority is not applied yet" },
  { "scheduler", NULL, "scheduler settings are not applied yet" },
  { "execCPUAffinity", NULL, "CPU affinity is not applied yet" },
  /* Windows's. */
  { "commandLine", config_field_ignored, NULL },
  { NULL, NULL, NULL },
};

/* The top-level "process": a container has nothing to run without args,
 * and its cwd is not defaulted (exec's is, in config_process_parse). */
int
config_parse_process (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (config_walk_object (c, v, path, process_fields, &cfg->process) < 0)
    return -1;
  if (cfg->process.n_args == 0)
    return shim_error_plain (c->err, EINVAL, "%s.args: must name at least the program to run", path);
  if (cfg->process.cwd == NULL)
    return shim_error_plain (c->err, EINVAL, "%s.cwd: required", path);
  return 0;
}

void
config_process_free (struct shim_process *p)
{
  config_free_strv (p->args, p->n_args);
  config_free_strv (p->env, p->n_env);
  free (p->cwd);
  free (p->additional_gids);
  free (p->rlimits);
  free (p->apparmor_profile);
  free (p->selinux_label);
  memset (p, 0, sizeof (*p));
}

int
config_process_parse (const char *json, size_t len, struct shim_process *out, shim_config_warn_fn warnfn,
                    void *opaque, shim_error_t *err)
{
  cleanup_yajl_val yajl_val root = NULL;
  struct config_ctx c = { .warn = warnfn, .opaque = opaque, .err = err };

  memset (out, 0, sizeof (*out));
  if (config_tree_parse (json, len, "process", &root, err) < 0)
    return -1;
  if (config_walk_object (&c, root, "process", process_fields, out) < 0)
    return -1;
  if (out->n_args == 0)
    return shim_error_plain (err, EINVAL, "process.args: must name at least the program to run");
  if (out->cwd == NULL && (out->cwd = strdup ("/")) == NULL)
    return shim_error_errno (err, "process.cwd");
  return 0;
}
