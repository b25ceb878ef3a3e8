/* SPDX-License-Identifier: Apache-2.0 */
/* The security fields of config.json: process.capabilities,
 * process.apparmorProfile, process.selinuxLabel and linux.seccomp.  Names
 * (capabilities, actions, operators, architectures, flags) are checked here,
 * so a typo fails before anything is created; security.c applies the
 * result. */
#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/capability.h>

#include "runtime/config_internal.h"
#include "common/json.h"
#include "common/util.h"

#define N_ELEMS(a) (sizeof (a) / sizeof ((a)[0]))

/* A null value is the same as an absent field (Go's encoders write them). */
static bool
is_absent (yajl_val v)
{
  return v == NULL || YAJL_IS_NULL (v);
}

/* ---- process.capabilities ---- */

/* Names as the spec writes them: "CAP_" and libcap's name.  libcap would also
 * take "chown" or "12"; the spec does not. */
static int
cap_lookup (const char *name, uint64_t *bit)
{
  cap_value_t v;
  const char *p;

  if (strncmp (name, "CAP_", 4) != 0 || name[4] < 'A' || name[4] > 'Z')
    return -1;
  for (p = name + 4; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return -1;
  if (cap_from_name (name, &v) < 0 || v < 0 || v > 63)
    return -1;
  *bit = 1ULL << v;
  return 0;
}

static int
parse_cap_set (struct config_ctx *c, yajl_val v, const char *path, uint64_t *mask)
{
  size_t i;

  if (is_absent (v))
    return 0;
  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array of strings", v);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      cleanup_free char *ep = config_path_index (path, i);
      uint64_t bit;
      if (!YAJL_IS_STRING (e))
        return config_type_error (c, ep, "string", e);
      if (cap_lookup (e->u.string, &bit) < 0)
        return shim_error_plain (c->err, EINVAL, "%s: unknown capability \"%s\"", ep, e->u.string);
      *mask |= bit;
    }
  return 0;
}

/* The kernel raises an ambient capability only when it is permitted and
 * inheritable too (PR_CAP_AMBIENT_RAISE: EPERM).  runc leaves the others
 * out without a word, and `runc spec` writes such a config (ambient, no
 * inheritable): they are left out here too, each named in a warning. */
static int
ambient_raisable (struct config_ctx *c, yajl_val ambient, const char *path, struct shim_capabilities *caps)
{
  uint64_t lone = caps->ambient & ~(caps->permitted & caps->inheritable), bit;
  cleanup_free char *ap = NULL;
  size_t i;

  if (lone == 0)
    return 0;
  if ((ap = config_path_key (path, "ambient")) == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < ambient->u.array.len; i++)
    {
      const char *name = ambient->u.array.values[i]->u.string;
      cleanup_free char *ep = NULL, *why = NULL;
      if (cap_lookup (name, &bit) < 0 || (lone & bit) == 0)
        continue;
      lone &= ~bit;
      if ((ep = config_path_index (ap, i)) == NULL
          || asprintf (&why, "%s is not both permitted and inheritable, so the kernel cannot raise it: "
                             "left out, as runc does", name) < 0)
        return shim_error_errno (c->err, "%s", ap);
      config_warn (c, ep, why);
    }
  caps->ambient &= caps->permitted & caps->inheritable;
  return 0;
}

int
config_parse_capabilities (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_capabilities *caps = &((struct shim_process *) target)->caps;
  const struct
  {
    const char *key;
    uint64_t *mask;
  } sets[] = {
    { "bounding", &caps->bounding },       { "effective", &caps->effective },
    { "inheritable", &caps->inheritable }, { "permitted", &caps->permitted },
    { "ambient", &caps->ambient },
  };
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  for (i = 0; i < N_ELEMS (sets); i++)
    {
      cleanup_free char *p = config_path_key (path, sets[i].key);
      if (parse_cap_set (c, json_field (v, sets[i].key), p, sets[i].mask) < 0)
        return -1;
    }
  return ambient_raisable (c, json_field (v, "ambient"), path, caps);
}

/* ---- LSM labels: applied (or refused) by security.c, which knows the host ---- */

int
config_parse_apparmor_profile (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_string (c, v, path, &((struct shim_process *) target)->apparmor_profile);
}

int
config_parse_selinux_label (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  return config_get_string (c, v, path, &((struct shim_process *) target)->selinux_label);
}

/* ---- linux.seccomp ---- */

enum
{
  ACT_PLAIN,
  ACT_ERRNO, /* takes errnoRet */
};

static const struct
{
  const char *name;
  uint32_t action;
  int kind;
} seccomp_actions[] = {
  { "SCMP_ACT_KILL", SCMP_ACT_KILL, ACT_PLAIN },
  { "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS, ACT_PLAIN },
  { "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD, ACT_PLAIN },
  { "SCMP_ACT_TRAP", SCMP_ACT_TRAP, ACT_PLAIN },
  { "SCMP_ACT_ERRNO", SCMP_ACT_ERRNO (0), ACT_ERRNO },
  { "SCMP_ACT_TRACE", SCMP_ACT_TRACE (0), ACT_ERRNO },
  { "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW, ACT_PLAIN },
  { "SCMP_ACT_LOG", SCMP_ACT_LOG, ACT_PLAIN },
  { "SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY, ACT_PLAIN },
};

static const struct
{
  const char *name;
  int op;
} seccomp_ops[] = {
  { "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT },
  { "SCMP_CMP_LE", SCMP_CMP_LE }, { "SCMP_CMP_EQ", SCMP_CMP_EQ },
  { "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
  { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static const struct
{
  const char *name;
  unsigned int flag;
} seccomp_flags[] = {
  { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
  { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
  { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
};

/* action (a string at PATH.action, or PATH itself for defaultAction) plus
 * its errnoRet (ERRNO_V, possibly absent) → one SCMP_ACT_* value.  As runc,
 * SCMP_ACT_ERRNO and SCMP_ACT_TRACE return EPERM unless errnoRet says. */
static int
resolve_action (struct config_ctx *c, yajl_val act, const char *act_path, yajl_val errno_v,
                const char *errno_path, uint32_t *out, bool *notify)
{
  uint64_t e = EPERM;
  size_t i;

  if (!YAJL_IS_STRING (act))
    return config_type_error (c, act_path, "string", act);
  for (i = 0; i < N_ELEMS (seccomp_actions); i++)
    if (strcmp (seccomp_actions[i].name, act->u.string) == 0)
      break;
  if (i == N_ELEMS (seccomp_actions))
    return shim_error_plain (c->err, EINVAL, "%s: unknown action \"%s\"", act_path, act->u.string);
  if (!is_absent (errno_v))
    {
      if (seccomp_actions[i].kind != ACT_ERRNO)
        return shim_error_plain (c->err, EINVAL, "%s: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not %s",
                                 errno_path, act->u.string);
      if (config_get_u64 (c, errno_v, errno_path, &e) < 0)
        return -1;
      /* The filter's return value holds 16 bits of data. */
      if (e > 0xffff)
        return shim_error_plain (c->err, ERANGE, "%s: %" PRIu64 " is out of range", errno_path, e);
    }
  *out = seccomp_actions[i].action;
  if (seccomp_actions[i].kind == ACT_ERRNO)
    *out |= (uint32_t) e;
  if (seccomp_actions[i].action == SCMP_ACT_NOTIFY)
    *notify = true;
  return 0;
}

static int
parse_seccomp_arg (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp_arg *a)
{
  yajl_val idx, op, val, val2;
  cleanup_free char *ip = config_path_key (path, "index");
  cleanup_free char *op_path = config_path_key (path, "op");
  cleanup_free char *vp = config_path_key (path, "value");
  cleanup_free char *v2p = config_path_key (path, "valueTwo");
  uint64_t index = 0;
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  idx = json_field (v, "index");
  op = json_field (v, "op");
  val = json_field (v, "value");
  val2 = json_field (v, "valueTwo");
  if (is_absent (idx))
    return shim_error_plain (c->err, EINVAL, "%s: required", ip);
  if (config_get_u64 (c, idx, ip, &index) < 0)
    return -1;
  if (index > 5)
    return shim_error_plain (c->err, ERANGE, "%s: %" PRIu64 " is not a syscall argument (0 to 5)", ip, index);
  a->index = (unsigned int) index;
  if (is_absent (op))
    return shim_error_plain (c->err, EINVAL, "%s: required", op_path);
  if (!YAJL_IS_STRING (op))
    return config_type_error (c, op_path, "string", op);
  for (i = 0; i < N_ELEMS (seccomp_ops); i++)
    if (strcmp (seccomp_ops[i].name, op->u.string) == 0)
      break;
  if (i == N_ELEMS (seccomp_ops))
    return shim_error_plain (c->err, EINVAL, "%s: unknown operator \"%s\"", op_path, op->u.string);
  a->op = seccomp_ops[i].op;
  if (is_absent (val))
    return shim_error_plain (c->err, EINVAL, "%s: required", vp);
  if (config_get_u64 (c, val, vp, &a->value) < 0)
    return -1;
  if (!is_absent (val2) && config_get_u64 (c, val2, v2p, &a->value_two) < 0)
    return -1;
  return 0;
}

static int
parse_seccomp_rule (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp_rule *r, bool *notify)
{
  yajl_val names, args;
  cleanup_free char *np = config_path_key (path, "names");
  cleanup_free char *ap = config_path_key (path, "action");
  cleanup_free char *ep = config_path_key (path, "errnoRet");
  cleanup_free char *argp = config_path_key (path, "args");
  size_t i;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  names = json_field (v, "names");
  if (is_absent (names))
    return shim_error_plain (c->err, EINVAL, "%s: required", np);
  if (config_get_string_array (c, names, np, &r->names, &r->n_names) < 0)
    return -1;
  if (r->n_names == 0)
    return shim_error_plain (c->err, EINVAL, "%s: must name at least one syscall", np);
  if (is_absent (json_field (v, "action")))
    return shim_error_plain (c->err, EINVAL, "%s: required", ap);
  if (resolve_action (c, json_field (v, "action"), ap, json_field (v, "errnoRet"), ep, &r->action, notify) < 0)
    return -1;
  args = json_field (v, "args");
  if (is_absent (args))
    return 0;
  if (!YAJL_IS_ARRAY (args))
    return config_type_error (c, argp, "array", args);
  r->args = calloc (args->u.array.len + 1, sizeof (*r->args));
  if (r->args == NULL)
    return shim_error_errno (c->err, "%s", argp);
  for (i = 0; i < args->u.array.len; i++)
    {
      cleanup_free char *p = config_path_index (argp, i);
      if (parse_seccomp_arg (c, args->u.array.values[i], p, &r->args[i]) < 0)
        return -1;
      r->n_args++;
    }
  return 0;
}

static int
parse_seccomp_syscalls (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp *s)
{
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array", v);
  s->syscalls = calloc (v->u.array.len + 1, sizeof (*s->syscalls));
  if (s->syscalls == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      cleanup_free char *p = config_path_index (path, i);
      /* Counted first: a half-parsed rule is freed with the rest. */
      s->n_syscalls++;
      if (parse_seccomp_rule (c, v->u.array.values[i], p, &s->syscalls[i], &s->uses_notify) < 0)
        return -1;
    }
  return 0;
}

/* "SCMP_ARCH_X86_64" → libseccomp's "x86_64" → its value; 0 if unknown. */
static uint32_t
spec_arch_resolve (const char *name)
{
  char lower[32];
  size_t k;

  if (strncmp (name, "SCMP_ARCH_", 10) != 0 || strlen (name + 10) >= sizeof (lower))
    return 0;
  for (k = 0; name[10 + k]; k++)
    lower[k] = (char) (name[10 + k] >= 'A' && name[10 + k] <= 'Z' ? name[10 + k] - 'A' + 'a' : name[10 + k]);
  lower[k] = '\0';
  return seccomp_arch_resolve_name (lower);
}

bool
config_seccomp_arch_known (const char *spec_name)
{
  return spec_arch_resolve (spec_name) != 0;
}

static int
parse_seccomp_arches (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp *s)
{
  size_t i;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array of strings", v);
  s->architectures = calloc (v->u.array.len + 1, sizeof (uint32_t));
  if (s->architectures == NULL)
    return shim_error_errno (c->err, "%s", path);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      cleanup_free char *ep = config_path_index (path, i);
      uint32_t arch;

      if (!YAJL_IS_STRING (e))
        return config_type_error (c, ep, "string", e);
      arch = spec_arch_resolve (e->u.string);
      if (arch == 0)
        return shim_error_plain (c->err, EINVAL, "%s: unknown architecture \"%s\"", ep, e->u.string);
      s->architectures[s->n_architectures++] = arch;
    }
  return 0;
}

static int
parse_seccomp_flags (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp *s)
{
  size_t i, j;

  if (!YAJL_IS_ARRAY (v))
    return config_type_error (c, path, "array of strings", v);
  for (i = 0; i < v->u.array.len; i++)
    {
      yajl_val e = v->u.array.values[i];
      cleanup_free char *ep = config_path_index (path, i);
      if (!YAJL_IS_STRING (e))
        return config_type_error (c, ep, "string", e);
      for (j = 0; j < N_ELEMS (seccomp_flags); j++)
        if (strcmp (seccomp_flags[j].name, e->u.string) == 0)
          break;
      if (j == N_ELEMS (seccomp_flags))
        return shim_error_plain (c->err, EINVAL, "%s: unknown or unsupported flag \"%s\"", ep, e->u.string);
      s->flags |= seccomp_flags[j].flag;
    }
  return 0;
}

static int
parse_seccomp_object (struct config_ctx *c, yajl_val v, const char *path, struct shim_seccomp *s)
{
  yajl_val act = json_field (v, "defaultAction"), x;
  cleanup_free char *dp = config_path_key (path, "defaultAction");
  cleanup_free char *ep = config_path_key (path, "defaultErrnoRet");
  cleanup_free char *lp = config_path_key (path, "listenerPath");
  cleanup_free char *mp = config_path_key (path, "listenerMetadata");
  cleanup_free char *ap = config_path_key (path, "architectures");
  cleanup_free char *fp = config_path_key (path, "flags");
  cleanup_free char *sp = config_path_key (path, "syscalls");
  bool default_notify = false;
  size_t i;

  for (i = 0; i < v->u.object.len; i++)
    if (config_key_repeated (v, i))
      {
        cleanup_free char *kp = config_path_key (path, v->u.object.keys[i]);
        return shim_error_plain (c->err, EINVAL, "%s: given twice", kp);
      }
  if (is_absent (act))
    return shim_error_plain (c->err, EINVAL, "%s: required", dp);
  if (resolve_action (c, act, dp, json_field (v, "defaultErrnoRet"), ep, &s->default_action, &default_notify) < 0)
    return -1;
  /* The kernel refuses a filter whose every unmatched syscall waits for a
   * listener; the runtime's own syscalls up to exec would hang on it. */
  if (default_notify)
    return shim_error_plain (c->err, EINVAL, "%s: SCMP_ACT_NOTIFY cannot be the default action", dp);
  if (!is_absent (x = json_field (v, "architectures")) && parse_seccomp_arches (c, x, ap, s) < 0)
    return -1;
  if (!is_absent (x = json_field (v, "flags")) && parse_seccomp_flags (c, x, fp, s) < 0)
    return -1;
  if (!is_absent (x = json_field (v, "listenerPath")))
    {
      if (config_get_string (c, x, lp, &s->listener_path) < 0)
        return -1;
      /* runc takes "" for not given. */
      if (s->listener_path[0] == '\0')
        {
          free (s->listener_path);
          s->listener_path = NULL;
        }
      else if (s->listener_path[0] != '/')
        return shim_error_plain (c->err, EINVAL, "%s: `%s` is not an absolute path", lp, s->listener_path);
    }
  if (!is_absent (x = json_field (v, "listenerMetadata")) && config_get_string (c, x, mp, &s->listener_metadata) < 0)
    return -1;
  if (!is_absent (x = json_field (v, "syscalls")) && parse_seccomp_syscalls (c, x, sp, s) < 0)
    return -1;
  if (s->uses_notify && s->listener_path == NULL)
    return shim_error_plain (c->err, EINVAL,
                             "%s: required when an action is SCMP_ACT_NOTIFY: failed to connect with seccomp agent "
                             "(none given)", lp);
  return 0;
}

int
config_parse_seccomp (struct config_ctx *c, yajl_val v, const char *path, void *target)
{
  struct shim_config *cfg = target;

  if (!YAJL_IS_OBJECT (v))
    return config_type_error (c, path, "object", v);
  cfg->seccomp = calloc (1, sizeof (*cfg->seccomp));
  if (cfg->seccomp == NULL)
    return shim_error_errno (c->err, "%s", path);
  return parse_seccomp_object (c, v, path, cfg->seccomp);
}

void
config_seccomp_free (struct shim_seccomp *s)
{
  size_t i, j;

  if (s == NULL)
    return;
  for (i = 0; i < s->n_syscalls; i++)
    {
      for (j = 0; j < s->syscalls[i].n_names; j++)
        free (s->syscalls[i].names[j]);
      free (s->syscalls[i].names);
      free (s->syscalls[i].args);
    }
  free (s->syscalls);
  free (s->architectures);
  free (s->listener_path);
  free (s->listener_metadata);
  free (s);
}

const char *
config_seccomp_action_name (size_t i)
{
  return i < N_ELEMS (seccomp_actions) ? seccomp_actions[i].name : NULL;
}

const char *
config_seccomp_op_name (size_t i)
{
  return i < N_ELEMS (seccomp_ops) ? seccomp_ops[i].name : NULL;
}

const char *
config_seccomp_flag_name (size_t i)
{
  return i < N_ELEMS (seccomp_flags) ? seccomp_flags[i].name : NULL;
}
