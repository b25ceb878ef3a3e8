/* SPDX-License-Identifier: Apache-2.0 */
/* Inside the config.json parser: the toolkit of config_walk.c and the
 * section parsers.  Only runtime/config*.c include this.
 *
 * Who calls whom (one way only):
 *   config.c           the entry points, the top-level table, free
 *     -> config_process.c, config_mounts.c, config_linux.c, config_hooks.c,
 *        config_validate.c (the cross-field checks after the walk)
 *   config_process.c   -> config_security.c (capabilities, LSM labels)
 *   config_linux.c     -> config_resources.c, config_security.c (seccomp)
 *   config_validate.c  -> config_linux.c's public lookups
 *   every file         -> config_walk.c (the toolkit), which calls none. */
#ifndef SHIM_CONFIG_INTERNAL_H
#define SHIM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "runtime/config.h"

/* ---- config_walk.c: the toolkit ---- */

struct config_ctx
{
  shim_config_warn_fn warn;
  void *opaque;
  shim_error_t *err;
};

/* Walk an object: each key is handled by the first matching entry of the
 * table.  Unknown keys are ignored, as runc ignores them, with a warning
 * naming their JSON path and the closest known name ("did you mean
 * `memory`?"): each table lists every name the runtime spec has for its
 * object.  Keys marked `unsupported` are known but not honoured yet, and
 * say so by name rather than being dropped in silence; keys whose fn is
 * config_field_ignored are the spec's for other platforms. */
struct config_field
{
  const char *key;
  int (*fn) (struct config_ctx *, yajl_val, const char *path, void *target);
  const char *unsupported;
};

int config_walk_object (struct config_ctx *c, yajl_val v, const char *path, const struct config_field *fields,
                        void *target);
int config_field_ignored (struct config_ctx *c, yajl_val v, const char *path, void *target);
/* Whether the object's I-th key already came before it. */
bool config_key_repeated (yajl_val obj, size_t i);

void config_warn (struct config_ctx *c, const char *path, const char *why);
/* "string", "number", "object", ... for messages. */
const char *config_type_name (yajl_val v);
int config_type_error (struct config_ctx *c, const char *path, const char *want, yajl_val v);
/* "parent.key" and "parent[i]"; NULL when out of memory.  The caller frees. */
char *config_path_key (const char *parent, const char *key);
char *config_path_index (const char *parent, size_t i);

int config_get_string (struct config_ctx *c, yajl_val v, const char *path, char **out);
int config_get_bool (struct config_ctx *c, yajl_val v, const char *path, bool *out);
int config_get_i64 (struct config_ctx *c, yajl_val v, const char *path, int64_t *out);
int config_get_u64 (struct config_ctx *c, yajl_val v, const char *path, uint64_t *out);
int config_get_u32 (struct config_ctx *c, yajl_val v, const char *path, uint32_t *out);
/* A NULL-terminated string array. */
int config_get_string_array (struct config_ctx *c, yajl_val v, const char *path, char ***out, size_t *n);
/* An object of strings (annotations, sysctl, unified). */
int config_get_kv_object (struct config_ctx *c, yajl_val v, const char *path, struct util_kv **out, size_t *n);

/* "rprivate" → MS_PRIVATE | MS_REC; -1 for an unknown name.  The i-th name,
 * NULL past the last (for config_mount_option_name). */
int config_propagation_lookup (const char *name, unsigned long *out);
const char *config_propagation_name (size_t i);

/* JSON text (LEN bytes, no NUL inside) → a yajl tree the caller frees;
 * syntax errors give line:column, WHAT names the document when out of
 * memory. */
int config_tree_parse (const char *json, size_t len, const char *what, yajl_val *out, shim_error_t *err);

void config_free_strv (char **v, size_t n);
void config_free_kv (struct util_kv *kv, size_t n);

/* ---- the sections: config_field functions for their key's table ---- */

/* config_process.c: the top-level "process" (TARGET: struct shim_config). */
int config_parse_process (struct config_ctx *c, yajl_val v, const char *path, void *target);
/* config_mounts.c: "mounts" (TARGET: struct shim_config). */
int config_parse_mounts (struct config_ctx *c, yajl_val v, const char *path, void *target);
/* config_linux.c: "linux" (TARGET: struct shim_config). */
int config_parse_linux (struct config_ctx *c, yajl_val v, const char *path, void *target);
/* config_resources.c: linux.resources (TARGET: struct shim_config). */
int config_parse_resources (struct config_ctx *c, yajl_val v, const char *path, void *target);
/* config_hooks.c: "hooks" (TARGET: struct shim_config). */
int config_parse_hooks (struct config_ctx *c, yajl_val v, const char *path, void *target);

/* config_security.c: process.capabilities, process.apparmorProfile,
 * process.selinuxLabel (TARGET: struct shim_process), linux.seccomp
 * (TARGET: struct shim_config). */
int config_parse_capabilities (struct config_ctx *c, yajl_val v, const char *path, void *target);
int config_parse_apparmor_profile (struct config_ctx *c, yajl_val v, const char *path, void *target);
int config_parse_selinux_label (struct config_ctx *c, yajl_val v, const char *path, void *target);
int config_parse_seccomp (struct config_ctx *c, yajl_val v, const char *path, void *target);
void config_seccomp_free (struct shim_seccomp *s);

/* config_validate.c: what the walk cannot check field by field (required
 * fields, the namespaces others need, the user namespace's mappings). */
int config_validate (struct config_ctx *c, const struct shim_config *cfg);

#endif
