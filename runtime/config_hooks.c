/* SPDX-License-Identifier: Apache-2.0 */
/* config.json's "hooks": for each stage, the hooks' path, args, env and
 * timeout (oci_hooks.c runs them). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/util.h"

static const char *const hook_stage_names[HOOK_N_STAGES] = {
  "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
};

const char *
config_hook_stage_name (enum shim_hook_stage s)
{
  return hook_stage_names[s];
}

static int
hook_path (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  if (config_get_string (c, v, path, &h->path) < 0)
    return -1;
  if (h->path[0] != '/')
    return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", path, h->path);
  return 0;
}

static int
hook_args (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  return config_get_string_array (c, v, path, &h->args, &h->n_args);
}

static int
hook_env (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  return config_get_string_array (c, v, path, &h->env, &h->n_env);
}

static int
hook_timeout (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_hook *h = target;
  int64_t t;
  if (config_get_i64 (c, v, path, &t) < 0)
    return -1;
  if (t <= 0 || t > INT32_MAX)
    return shim_error_plain (c->err, EINVAL, "%s: must be a positive number of seconds", path);
  h->timeout = (int) t;
  return 0;
}

static const struct config_field hook_fields[] = {
  { "path", hook_path, NULL },
  { "args", hook_args, NULL },
  { "env", hook_env, NULL },
  { "timeout", hook_timeout, NULL },
  { NULL, NULL, NULL },
};

int
config_parse_hooks (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  size_t s, i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  for (s = 0; s < HOOK_N_STAGES; s++)
    {
      const char *k[] = { hook_stage_names[s], NULL };
      yajl_val list = yajl_tree_get (v, k, yajl_t_any);
      cleanup_free char *lp = config_path_key (path, hook_stage_names[s]);
      struct shim_hook_list *hl = &cfg->hooks[s];

      if (list == NULL || YAJL_IS_NULL (list))
        continue;
      if (!YAJL_IS_ARRAY (list))
        return config_type_error (c, lp, "array", list);
      hl->v = calloc (list->u.array.len + 1, sizeof (*hl->v));
      if (hl->v == NULL)
        return shim_error_errno (c->err, "%s", lp);
      for (i = 0; i < list->u.array.len; i++)
        {
          cleanup_free char *hp = config_path_index (lp, i);
          hl->n++;
          if (config_walk_object (c, list->u.array.values[i], hp, hook_fields, &hl->v[i]) < 0)
            return -1;
          if (hl->v[i].path == NULL)
            return shim_error_plain (c->err, EINVAL, "%s.path: required", hp);
        }
    }
  return 0;
}
