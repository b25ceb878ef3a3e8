/* SPDX-License-Identifier: Apache-2.0 */
/* yajl helpers shared by every file that reads or writes JSON: cleanup
 * attributes for the generator and trees, and the few calls every writer
 * and reader repeats. */
#ifndef SHIM_JSON_H
#define SHIM_JSON_H

#include <stdbool.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

static inline void
cleanup_yajl_genp (yajl_gen *g)
{
  if (*g)
    yajl_gen_free (*g);
}

static inline void
cleanup_yajl_valp (yajl_val *v)
{
  if (*v)
    yajl_tree_free (*v);
}

#define cleanup_yajl_gen __attribute__ ((cleanup (cleanup_yajl_genp)))
#define cleanup_yajl_val __attribute__ ((cleanup (cleanup_yajl_valp)))

/* A writer that keeps one yajl_gen_status: run X only while ST is still
 * ok, so a long object is written as a list of steps and checked once. */
#define JSON_TRY(st, x)                                                                            \
  do                                                                                               \
    if ((st) == yajl_gen_status_ok)                                                                \
      (st) = (x);                                                                                  \
  while (0)

/* yajl_gen_string for a C string. */
static inline yajl_gen_status
json_gen_str (yajl_gen g, const char *s)
{
  return yajl_gen_string (g, (const unsigned char *) s, strlen (s));
}

/* The same, true on success, so a writer can chain calls with &&. */
static inline bool
json_str (yajl_gen g, const char *s)
{
  return json_gen_str (g, s) == yajl_gen_status_ok;
}

/* "key": "value" (a NULL value is JSON null). */
static inline bool
json_kv_str (yajl_gen g, const char *key, const char *value)
{
  return json_str (g, key) && (value ? json_str (g, value) : yajl_gen_null (g) == yajl_gen_status_ok);
}

static inline bool
json_kv_int (yajl_gen g, const char *key, long long value)
{
  return json_str (g, key) && yajl_gen_integer (g, value) == yajl_gen_status_ok;
}

static inline bool
json_kv_bool (yajl_gen g, const char *key, bool value)
{
  return json_str (g, key) && yajl_gen_bool (g, value) == yajl_gen_status_ok;
}

/* The value of key in an object, or NULL; JSON null counts as absent. */
static inline yajl_val
json_field (yajl_val obj, const char *key)
{
  size_t i;
  if (obj == NULL || !YAJL_IS_OBJECT (obj))
    return NULL;
  for (i = 0; i < obj->u.object.len; i++)
    if (strcmp (obj->u.object.keys[i], key) == 0)
      return YAJL_IS_NULL (obj->u.object.values[i]) ? NULL : obj->u.object.values[i];
  return NULL;
}

static inline const char *
json_field_str (yajl_val obj, const char *key)
{
  yajl_val v = json_field (obj, key);
  return v && YAJL_IS_STRING (v) ? v->u.string : NULL;
}

#endif
