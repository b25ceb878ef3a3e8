/* SPDX-License-Identifier: Apache-2.0 */
/* The parsing helpers shared by config.c and the parsers of the security
 * fields (config_security.c).  Not for use outside the config parser. */
#ifndef SHIM_CONFIG_INTERNAL_H
#define SHIM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "runtime/config.h"

struct ctx
{
  shim_config_warn_fn warn;
  void *opaque;
  shim_error_t *err;
};

/* Walk an object: each key is handled by the first matching entry of the
 * table.  Unknown keys are ignored, as the runtime spec requires of
 * runtimes; keys marked `unsupported` are known but not honoured yet, and
 * say so by name rather than being dropped in silence. */
struct field
{
  const char *key;
  int (*fn) (struct ctx *, yajl_val, const char *path, void *target);
  const char *unsupported;
};

int walk_object (struct ctx *c, yajl_val v, const char *path, const struct field *fields, void *target);

void warn (struct ctx *c, const char *path, const char *why);
int type_error (struct ctx *c, const char *path, const char *want, yajl_val v);
/* "parent.key" and "parent[i]"; NULL when out of memory.  The caller frees. */
char *path_key (const char *parent, const char *key);
char *path_index (const char *parent, size_t i);

int get_string (struct ctx *c, yajl_val v, const char *path, char **out);
int get_bool (struct ctx *c, yajl_val v, const char *path, bool *out);
int get_i64 (struct ctx *c, yajl_val v, const char *path, int64_t *out);
int get_u64 (struct ctx *c, yajl_val v, const char *path, uint64_t *out);
int get_u32 (struct ctx *c, yajl_val v, const char *path, uint32_t *out);
/* A NULL-terminated string array. */
int get_string_array (struct ctx *c, yajl_val v, const char *path, char ***out, size_t *n);

/* config_security.c: process.capabilities, process.apparmorProfile,
 * process.selinuxLabel, linux.seccomp. */
int parse_capabilities (struct ctx *c, yajl_val v, const char *path, void *target);
int parse_apparmor_profile (struct ctx *c, yajl_val v, const char *path, void *target);
int parse_selinux_label (struct ctx *c, yajl_val v, const char *path, void *target);
int parse_seccomp (struct ctx *c, yajl_val v, const char *path, void *target);
void seccomp_config_free (struct shim_seccomp *s);

#endif
