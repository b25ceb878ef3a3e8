/* SPDX-License-Identifier: Apache-2.0 */
/* config.json → struct shim_config.  The whole document is parsed once with
 * yajl_tree and walked from the top-level table here; each section has its
 * file (config_process.c, config_mounts.c, config_linux.c, config_hooks.c),
 * the checks across sections are in config_validate.c, and the getters and
 * the walker in config_walk.c.  Every error names the JSON path. */
#include "runtime/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/json.h"
#include "common/util.h"

/* ---- root, ociVersion, hostname, annotations: the top level's own fields ---- */

static int
parse_root_path (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_string (c, v, path, &((struct shim_config *) target)->root_path);
}

static int
parse_root_readonly (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_bool (c, v, path, &((struct shim_config *) target)->root_readonly);
}

static const struct config_field root_fields[] = {
  { "path", parse_root_path, NULL },
  { "readonly", parse_root_readonly, NULL },
  { NULL, NULL, NULL },
};

static int
parse_root (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_walk_object (c, v, path, root_fields, target);
}

static int
parse_oci_version (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (config_get_string (c, v, path, &cfg->oci_version) < 0)
    return -1;
  /* Same major version as the spec we implement (1.x); anything else has a
   * different meaning for the same fields. */
  if (strncmp (cfg->oci_version, "1.", 2) != 0)
    return shim_error_plain (c->err, EINVAL, "%s: unsupported version `%s` (shim implements 1.x)", path,
                       cfg->oci_version);
  return 0;
}

static int
parse_hostname (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  if (config_get_string (c, v, path, &cfg->hostname) < 0)
    return -1;
  if (strlen (cfg->hostname) > 64)
    return shim_error_plain (c->err, EINVAL, "%s: longer than 64 bytes", path);
  return 0;
}

static int
parse_annotations (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;
  return config_get_kv_object (c, v, path, &cfg->annotations, &cfg->n_annotations);
}

/* ---- the document ---- */

static const struct config_field top_fields[] = {
  { "ociVersion", parse_oci_version, NULL },
  { "root", parse_root, NULL },
  { "process", config_parse_process, NULL },
  { "hostname", parse_hostname, NULL },
  { "mounts", config_parse_mounts, NULL },
  { "linux", config_parse_linux, NULL },
  { "annotations", parse_annotations, NULL },
  { "hooks", config_parse_hooks, NULL },
  { "domainname", NULL, "not set yet" },
  /* The spec's sections for other platforms: nothing to do on Linux. */
  { "solaris", config_field_ignored, NULL },
  { "windows", config_field_ignored, NULL },
  { "vm", config_field_ignored, NULL },
  { "zos", config_field_ignored, NULL },
  { NULL, NULL, NULL },
};

int
config_parse (const char *json, size_t len, const char *bundle, struct shim_config **out,
                   shim_config_warn_fn warnfn, void *opaque, shim_error_t *err)
{
  cleanup_yajl_val yajl_val root = NULL;
  cleanup_config struct shim_config *cfg = NULL;
  struct config_ctx c = { .warn = warnfn, .opaque = opaque, .err = err };

  if (config_tree_parse (json, len, "config.json", &root, err) < 0)
    return -1;
  if (!YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "expected an object at the top level, got %s",
                       config_type_name (root));

  cfg = calloc (1, sizeof (*cfg));
  if (cfg == NULL)
    return shim_error_errno (err, "config.json");
  cfg->bundle = strdup (bundle ? bundle : ".");
  if (cfg->bundle == NULL)
    return shim_error_errno (err, "config.json");
  if (config_walk_object (&c, root, "", top_fields, cfg) < 0)
    return -1;
  if (config_validate (&c, cfg) < 0)
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
config_load (const char *bundle, struct shim_config **out, shim_config_warn_fn warnfn,
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
  if (config_parse (json, len, abs, out, warnfn, opaque, err) < 0)
    return shim_error_prefix (err, "%s", file);
  return 0;
}

void
config_free (struct shim_config *c)
{
  size_t i;
  if (c == NULL)
    return;
  free (c->bundle);
  free (c->oci_version);
  free (c->root_path);
  config_process_free (&c->process);
  config_seccomp_free (c->seccomp);
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
  config_free_strv (c->masked_paths, c->n_masked_paths);
  config_free_strv (c->readonly_paths, c->n_readonly_paths);
  config_free_kv (c->sysctl, c->n_sysctl);
  config_resources_free (&c->resources);
  free (c->uid_mappings);
  free (c->gid_mappings);
  for (i = 0; i < c->n_devices; i++)
    free (c->devices[i].path);
  free (c->devices);
  config_free_kv (c->annotations, c->n_annotations);
  for (i = 0; i < HOOK_N_STAGES; i++)
    {
      size_t j;
      for (j = 0; j < c->hooks[i].n; j++)
        {
          free (c->hooks[i].v[j].path);
          config_free_strv (c->hooks[i].v[j].args, c->hooks[i].v[j].n_args);
          config_free_strv (c->hooks[i].v[j].env, c->hooks[i].v[j].n_env);
        }
      free (c->hooks[i].v);
    }
  free (c);
}
