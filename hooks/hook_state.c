/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_tree.h>

#include "cgroup/cgroup.h"
#include "common/json.h"
#include "common/util.h"
#include "history/history.h"

static const char *
type_name (yajl_val v)
{
  if (YAJL_IS_STRING (v))
    return "a string";
  if (YAJL_IS_INTEGER (v))
    return "an integer";
  if (YAJL_IS_NUMBER (v))
    return "a number";
  if (YAJL_IS_OBJECT (v))
    return "an object";
  if (YAJL_IS_ARRAY (v))
    return "an array";
  if (YAJL_IS_TRUE (v) || YAJL_IS_FALSE (v))
    return "a boolean";
  return "null";
}

/* The value of key in the top-level object, or NULL; JSON null counts as
 * absent (stacks write `"pid": null` too). */
static yajl_val
field (yajl_val root, const char *key)
{
  for (size_t i = 0; i < root->u.object.len; i++)
    if (strcmp (root->u.object.keys[i], key) == 0)
      return YAJL_IS_NULL (root->u.object.values[i]) ? NULL : root->u.object.values[i];
  return NULL;
}

static int
get_string (yajl_val root, const char *key, char **out, shim_error_t *err)
{
  yajl_val v = field (root, key);

  *out = NULL;
  if (v == NULL)
    return 0;
  if (!YAJL_IS_STRING (v))
    return shim_error_plain (err, EINVAL, "state: `%s`: expected a string, got %s", key,
                             type_name (v));
  *out = strdup (v->u.string);
  if (*out == NULL)
    return shim_error_errno (err, "state: `%s`", key);
  return 0;
}

static int
parse_switch (const char *value, enum hook_switch *out, shim_error_t *err)
{
  if (strcasecmp (value, "true") == 0)
    *out = HOOK_SWITCH_ON;
  else if (strcasecmp (value, "false") == 0)
    *out = HOOK_SWITCH_OFF;
  else
    return shim_error_plain (err, EINVAL,
                             "state: annotation `" HOOK_ANNOTATION "`: `%s` is neither true nor false",
                             value);
  return 0;
}

/* The switch, and the name and engine a container is known by (a name that
 * could not be a directory name is left out: it only finds a verdict). */
static int
get_annotations (yajl_val root, struct hook_state *st, shim_error_t *err)
{
  static const char *const names[] = HOOK_NAME_ANNOTATIONS;
  yajl_val a = field (root, "annotations");

  st->annotation = HOOK_SWITCH_UNSET;
  if (a == NULL)
    return 0;
  if (!YAJL_IS_OBJECT (a))
    return shim_error_plain (err, EINVAL, "state: `annotations`: expected an object, got %s",
                             type_name (a));
  for (size_t i = 0; i < a->u.object.len; i++)
    {
      yajl_val v = a->u.object.values[i];
      if (!YAJL_IS_STRING (v))
        return shim_error_plain (err, EINVAL, "state: `annotations.%s`: expected a string, got %s",
                                 a->u.object.keys[i], type_name (v));
      if (strcmp (a->u.object.keys[i], HOOK_ANNOTATION) == 0
          && parse_switch (v->u.string, &st->annotation, err) < 0)
        return -1;
      if (strcmp (a->u.object.keys[i], HISTORY_PODMAN_MANAGER_KEY) == 0)
        st->podman = strcmp (v->u.string, HISTORY_PODMAN_MANAGER) == 0;
      for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp (a->u.object.keys[i], names[k]) == 0 && st->name == NULL
            && util_id_invalid (v->u.string) == NULL && v->u.string[0] != '.'
            && (st->name = strdup (v->u.string)) == NULL)
          return shim_error_errno (err, "state: `annotations.%s`", names[k]);
    }
  return 0;
}

int
hook_state_parse (const char *json, struct hook_state *out, shim_error_t *err)
{
  cleanup_yajl_val yajl_val root = NULL;
  char ebuf[256] = "";
  yajl_val pid;

  memset (out, 0, sizeof *out);
  root = yajl_tree_parse (json, ebuf, sizeof ebuf);
  if (root == NULL)
    {
      ebuf[strcspn (ebuf, "\n")] = '\0';
      return shim_error_plain (err, EINVAL, "state on stdin is not JSON: %s",
                               ebuf[0] ? ebuf : "empty input");
    }
  if (!YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "state on stdin: expected an object, got %s",
                             type_name (root));
  if (get_string (root, "id", &out->id, err) < 0 || get_string (root, "status", &out->status, err) < 0
      || get_string (root, "bundle", &out->bundle, err) < 0
      || get_annotations (root, out, err) < 0)
    goto fail;
  if (out->id == NULL)
    {
      shim_error_plain (err, EINVAL, "state: no `id`");
      goto fail;
    }
  if (hook_state_id_check (out->id, err) < 0)
    goto fail;
  if (out->bundle && out->bundle[0] != '/')
    {
      shim_error_plain (err, EINVAL, "state: `bundle`: `%s` is not an absolute path", out->bundle);
      goto fail;
    }
  pid = field (root, "pid");
  if (pid != NULL)
    {
      if (!YAJL_IS_INTEGER (pid))
        {
          shim_error_plain (err, EINVAL, "state: `pid`: expected an integer, got %s",
                            type_name (pid));
          goto fail;
        }
      if (YAJL_GET_INTEGER (pid) < 0 || YAJL_GET_INTEGER (pid) > INT32_MAX)
        {
          shim_error_plain (err, EINVAL, "state: `pid`: %lld is not a process id",
                            (long long) YAJL_GET_INTEGER (pid));
          goto fail;
        }
      out->pid = YAJL_GET_INTEGER (pid);
    }
  return 0;

fail:
  hook_state_release (out);
  return -1;
}

void
hook_state_release (struct hook_state *s)
{
  free (s->id);
  free (s->status);
  free (s->bundle);
  free (s->name);
  memset (s, 0, sizeof *s);
}

int
hook_state_id_check (const char *id, shim_error_t *err)
{
  const char *why = util_id_invalid (id);

  /* The verdict directory keeps its own dot files (.lock) next to the ids. */
  if (id[0] == '.')
    return shim_error_plain (err, EINVAL, "state: `id`: `%s` starts with a dot", id);
  return why ? shim_error_plain (err, EINVAL, "state: `id`: `%s`: %s", id, why) : 0;
}

static const struct
{
  const char *name;
  enum hook_stage stage;
} stage_names[] = {
  { "createRuntime", HOOK_STAGE_ARM },
  { "prestart", HOOK_STAGE_ARM },
  { "arm", HOOK_STAGE_ARM },
  { "poststop", HOOK_STAGE_POSTSTOP },
  { "verdict", HOOK_STAGE_POSTSTOP },
};

int
hook_state_stage_parse (const char *name, enum hook_stage *out, shim_error_t *err)
{
  for (size_t i = 0; i < sizeof stage_names / sizeof stage_names[0]; i++)
    if (strcmp (name, stage_names[i].name) == 0)
      {
        *out = stage_names[i].stage;
        return 0;
      }
  if (strcmp (name, "poststart") == 0 || strcmp (name, "startContainer") == 0
      || strcmp (name, "createContainer") == 0)
    return shim_error_plain (err, EINVAL,
                             "stage `%s` cannot arm the watcher: register the hook at "
                             "createRuntime or prestart (and poststop)",
                             name);
  return shim_error_plain (err, EINVAL,
                           "unknown stage `%s` (createRuntime, prestart, poststop)", name);
}

int
hook_state_stage_from_status (const char *status, enum hook_stage *out, shim_error_t *err)
{
  if (status == NULL)
    return shim_error_plain (err, EINVAL,
                             "state: no `status` to tell the stage by: name it "
                             "(shim-oom-hook createRuntime | prestart | poststop)");
  if (strcmp (status, "creating") == 0 || strcmp (status, "created") == 0)
    *out = HOOK_STAGE_ARM;
  else if (strcmp (status, "stopped") == 0)
    *out = HOOK_STAGE_POSTSTOP;
  else if (strcmp (status, "running") == 0)
    return shim_error_plain (err, EINVAL,
                             "state: status `running`: the workload already runs, an OOM kill may "
                             "predate the watcher; register the hook at createRuntime or prestart, "
                             "not poststart");
  else
    return shim_error_plain (err, EINVAL, "state: status `%s` is not a stage this hook knows",
                             status);
  return 0;
}

int
hook_state_parse_proc_cgroup (const char *buf, char **path, shim_error_t *err)
{
  cleanup_free char *p = NULL;
  shim_error_t tmp = NULL;

  *path = NULL;
  if (cgroup_parse_proc_cgroup (buf, &p, &tmp) < 0)
    {
      /* Read from another cgroup namespace: the hook runs inside the
       * container; say where to register it. */
      if (tmp->status == EXDEV)
        shim_error_plain (err, EINVAL,
                          "%s (is the hook running inside the container? register it at "
                          "createRuntime or prestart)",
                          tmp->msg);
      else
        shim_error_plain (err, tmp->status, "%s", tmp->msg);
      shim_error_release (&tmp);
      return -1;
    }
  if (strcmp (p, "/") == 0)
    return shim_error_plain (err, EINVAL,
                             "the process is in the root cgroup: the container has no "
                             "cgroup of its own");
  *path = steal_pointer (&p);
  return 0;
}

bool
hook_state_cgroup_within (const char *inner, const char *outer)
{
  size_t n = strlen (outer);

  while (n > 1 && outer[n - 1] == '/')
    n--;
  return strncmp (inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}
