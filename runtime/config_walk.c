/* SPDX-License-Identifier: Apache-2.0 */
/* The config parser's toolkit, used by every section file: typed getters
 * that name the JSON path in their errors, the table walker, warnings, the
 * propagation names, the document parser with line:column syntax errors,
 * and the matching free helpers.  It knows no section of config.json. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mount.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "runtime/config_internal.h"
#include "common/util.h"

void
config_warn (struct config_ctx *c, const char *path, const char *why)
{
  if (c->warn)
    c->warn (c->opaque, path, why);
}

const char *
config_type_name (yajl_val v)
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
config_type_error (struct config_ctx *c, const char *path, const char *want, yajl_val v)
{
  return shim_error_plain (c->err, EINVAL, "%s: expected %s, got %s", path, want, config_type_name (v));
}

/* Child path "parent.key" or "parent[i]"; the caller frees it. */
char *
config_path_key (const char *parent, const char *key)
{
  char *p = NULL;
  if (asprintf (&p, "%s%s%s", parent, *parent ? "." : "", key) < 0)
    return NULL;
  return p;
}

char *
config_path_index (const char *parent, size_t i)
{
  char *p = NULL;
  if (asprintf (&p, "%s[%zu]", parent, i) < 0)
    return NULL;
  return p;
}

int
config_get_string (struct config_ctx *c, yajl_val v, const char *path, char **out)
{
  if (!YAJL_IS_STRING (v))
    return config_type_error (c, path, "string", v);
  *out = strdup (v->u.string);
  if (*out == NULL)
    return shim_error_errno (c->err, "%s", path);
  return 0;
}

int
config_get_bool (struct config_ctx *c, yajl_val v, const char *path, bool *out)
{
  if (YAJL_IS_TRUE (v))
    *out = true;
  else if (YAJL_IS_FALSE (v))
    *out = false;
  else
    return config_type_error (c, path, "boolean", v);
  return 0;
}

int
config_get_i64 (struct config_ctx *c, yajl_val v, const char *path, int64_t *out)
{
  if (!YAJL_IS_NUMBER (v) || util_parse_i64 (v->u.number.r, out) < 0)
    return config_type_error (c, path, "integer", v);
  return 0;
}

int
config_get_u64 (struct config_ctx *c, yajl_val v, const char *path, uint64_t *out)
{
  /* yajl's own integer is int64: rlimits use 2^64-1, so parse the text. */
  if (!YAJL_IS_NUMBER (v) || util_parse_u64 (v->u.number.r, out) < 0)
    return config_type_error (c, path, "non-negative integer", v);
  return 0;
}

int
config_get_u32 (struct config_ctx *c, yajl_val v, const char *path, uint32_t *out)
{
  uint64_t u = 0;
  if (config_get_u64 (c, v, path, &u) < 0)
    return -1;
  if (u > UINT32_MAX)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRIu64 " is out of range", path, u);
  *out = (uint32_t) u;
  return 0;
}

/* A NULL-terminated string array. */
int
config_get_string_array (struct config_ctx *c, yajl_val v, const char *path, char ***out, size_t *n)
{
  size_t i;
  char **a;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array of strings", v);
  a = calloc (v->u.array.len + 1, sizeof (char *));
  if (a == NULL)
    return shim_error_errno (c->err, "%s", path);
  *out = a;
  *n = v->u.array.len;
  for (i = 0; i < v->u.array.len; i++)
    {
      cleanup_free char *p = config_path_index (path, i);
      if (config_get_string (c, v->u.array.values[i], p, &a[i]) < 0)
        return -1;
    }
  return 0;
}

int
config_get_kv_object (struct config_ctx *c, yajl_val v, const char *path, struct util_kv **out, size_t *n)
{
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  *out = calloc (v->u.object.len + 1, sizeof (struct util_kv));
  if (*out == NULL)
    return shim_error_errno (c->err, "%s", path);
  *n = v->u.object.len;
  for (i = 0; i < v->u.object.len; i++)
    {
      cleanup_free char *p = config_path_key (path, v->u.object.keys[i]);
      (*out)[i].key = strdup (v->u.object.keys[i]);
      if ((*out)[i].key == NULL || config_get_string (c, v->u.object.values[i], p, &(*out)[i].value) < 0)
        return shim_error_errno (c->err, "%s", p);
    }
  return 0;
}

/* Whether the object's I-th key already came before it. */
bool
config_key_repeated (yajl_val obj, size_t i)
{
  size_t j;
  for (j = 0; j < i; j++)
    if (strcmp (obj->u.object.keys[j], obj->u.object.keys[i]) == 0)
      return true;
  return false;
}

int
config_field_ignored (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  (void) c, (void) v, (void) path, (void) target;
  return 0;
}

/* Keys longer than this get no suggestion: the spec's are all shorter, and
 * the distance table below stays a fixed size whatever the input. */
#define SUGGEST_MAX 32

static int
lower (int ch)
{
  return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* The optimal string alignment distance of A and B, case ignored
 * (insertions, deletions, substitutions and swaps of two neighbours cost
 * 1: "memroy" is 1 from "memory", "proccess" 1 from "process"), or
 * SUGGEST_MAX + 1 when either is too long to compare. */
static size_t
distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b), d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];

  if (la > SUGGEST_MAX || lb > SUGGEST_MAX)
    return SUGGEST_MAX + 1;
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++)
      {
        size_t cost = lower (a[i - 1]) != lower (b[j - 1]), best = d[i - 1][j - 1] + cost;
        if (d[i - 1][j] + 1 < best)
          best = d[i - 1][j] + 1;
        if (d[i][j - 1] + 1 < best)
          best = d[i][j - 1] + 1;
        if (i > 1 && j > 1 && lower (a[i - 1]) == lower (b[j - 2]) && lower (a[i - 2]) == lower (b[j - 1])
            && d[i - 2][j - 2] + 1 < best)
          best = d[i - 2][j - 2] + 1;
        d[i][j] = best;
      }
  return d[la][lb];
}

/* KEY is in no table of the object at PATH (P is its JSON path): ignored,
 * as runc ignores it, with a warning naming it and the closest known name
 * when one is close (at most 2 edits, and fewer than half the key's
 * length). */
static void
warn_unknown (struct config_ctx *c, const char *key, const char *p, const struct config_field *fields)
{
  const char *best = NULL;
  size_t best_d = SUGGEST_MAX + 1, len = strlen (key);
  char why[96];

  for (const struct config_field *f = fields; f->key; f++)
    {
      size_t d = distance (key, f->key);
      if (d < best_d)
        {
          best_d = d;
          best = f->key;
        }
    }
  if (best && best_d <= 2 && best_d * 2 < len)
    snprintf (why, sizeof why, "not in the runtime spec, ignored (did you mean `%s`?)", best);
  else
    snprintf (why, sizeof why, "not in the runtime spec, ignored");
  config_warn (c, p, why);
}

int
config_walk_object (struct config_ctx *c, yajl_val v, const char *path, const struct config_field *fields,
                    void *target)
{
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  for (i = 0; i < v->u.object.len; i++)
    {
      const struct config_field *f;
      cleanup_free char *p = config_path_key (path, v->u.object.keys[i]);
      if (p == NULL)
        return shim_error_errno (c->err, "%s", path);
      for (f = fields; f->key; f++)
        if (strcmp (f->key, v->u.object.keys[i]) == 0)
          break;
      if (f->key == NULL)
        {
          warn_unknown (c, v->u.object.keys[i], p, fields);
          continue;
        }
      /* yajl keeps both copies of a repeated key; the parsers fill their
       * target once (a second `mounts` would meet the first's count). */
      if (config_key_repeated (v, i))
        return shim_error_plain (c->err, EINVAL, "%s: given twice", p);
      if (f->unsupported)
        {
          config_warn (c, p, f->unsupported);
          continue;
        }
      if (f->fn (c, v->u.object.values[i], p, target) < 0)
        return -1;
    }
  return 0;
}

/* ---- mount propagation: mounts[].options and linux.rootfsPropagation ---- */

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

int
config_propagation_lookup (const char *name, unsigned long *out)
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

const char *
config_propagation_name (size_t i)
{
  return i < sizeof (propagation_flags) / sizeof (propagation_flags[0]) ? propagation_flags[i].name : NULL;
}

/* ---- JSON documents and trees ---- */

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

/* Whether a JSON string in S holds the escape \u0000: yajl hands strings
 * on as C strings, cut at the NUL, so "/bin/sh\u0000-x" would run /bin/sh. */
static bool
escaped_nul (const char *s, size_t len)
{
  bool in_string = false;
  size_t i;

  for (i = 0; i < len; i++)
    if (!in_string)
      in_string = s[i] == '"';
    else if (s[i] == '"')
      in_string = false;
    else if (s[i] == '\\' && i + 1 < len)
      {
        if (s[i + 1] == 'u' && i + 5 < len && memcmp (s + i + 2, "0000", 4) == 0)
          return true;
        i++; /* the escaped character, `\"` and `\\` too */
      }
  return false;
}

int
config_tree_parse (const char *json, size_t len, const char *what, yajl_val *out, shim_error_t *err)
{
  cleanup_free char *copy = NULL;
  char errbuf[1024] = "";

  /* yajl_tree_parse wants a NUL-terminated buffer and stops at a NUL. */
  if (memchr (json, '\0', len) != NULL)
    return shim_error_plain (err, EINVAL, "contains a NUL byte");
  if (escaped_nul (json, len))
    return shim_error_plain (err, EINVAL, "a string contains a NUL byte (\\u0000)");
  copy = strndup (json, len);
  if (copy == NULL)
    return shim_error_errno (err, "%s", what);
  *out = yajl_tree_parse (copy, errbuf, sizeof (errbuf));
  if (*out == NULL)
    return syntax_error (NULL, json, len, errbuf, err);
  return 0;
}

/* ---- freeing what the getters allocated ---- */

void
config_free_strv (char **v, size_t n)
{
  size_t i;
  if (v == NULL)
    return;
  for (i = 0; i < n; i++)
    free (v[i]);
  free (v);
}

void
config_free_kv (struct util_kv *kv, size_t n)
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
