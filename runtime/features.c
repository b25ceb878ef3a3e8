/* SPDX-License-Identifier: Apache-2.0 */
/* features: what this runtime implements (runtime/spec.c writes the
 * config.json to start from). */
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "common/json.h"
#include "common/util.h"
#include "common/version.h"
#include "runtime/config.h"
#include "runtime/lifecycle_internal.h"

static bool
gen_strings (yajl_gen g, const char *key, const char *const *v, size_t n)
{
  size_t i;
  if (!json_str (g, key) || yajl_gen_array_open (g) != yajl_gen_status_ok)
    return false;
  for (i = 0; i < n; i++)
    if (!json_str (g, v[i]))
      return false;
  return yajl_gen_array_close (g) == yajl_gen_status_ok;
}

static bool
gen_enabled (yajl_gen g, const char *key, bool on)
{
  return json_str (g, key) && yajl_gen_map_open (g) == yajl_gen_status_ok && json_kv_bool (g, "enabled", on)
         && yajl_gen_map_close (g) == yajl_gen_status_ok;
}

/* NAME(i) for i = 0, 1, ... until NULL, as a JSON array under KEY. */
static bool
gen_names (yajl_gen g, const char *key, const char *(*name) (size_t))
{
  size_t i;
  if (!json_str (g, key) || yajl_gen_array_open (g) != yajl_gen_status_ok)
    return false;
  for (i = 0; name (i); i++)
    if (!json_str (g, name (i)))
      return false;
  return yajl_gen_array_close (g) == yajl_gen_status_ok;
}

/* Every capability this kernel and libcap know, by name. */
static bool
gen_capabilities (yajl_gen g)
{
  cap_value_t v;
  if (!json_str (g, "capabilities") || yajl_gen_array_open (g) != yajl_gen_status_ok)
    return false;
  for (v = 0; v < (cap_value_t) cap_max_bits (); v++)
    {
      char *name = cap_to_name (v);
      bool ok;
      size_t i;
      if (name == NULL)
        return false;
      /* libcap names them "cap_chown"; the spec "CAP_CHOWN". */
      for (i = 0; name[i]; i++)
        if (name[i] >= 'a' && name[i] <= 'z')
          name[i] = (char) (name[i] - 'a' + 'A');
      ok = json_str (g, name);
      cap_free (name);
      if (!ok)
        return false;
    }
  return yajl_gen_array_close (g) == yajl_gen_status_ok;
}

/* linux.seccomp: what config_security.c accepts. */
static bool
gen_seccomp (yajl_gen g)
{
  static const char *const spec_archs[] = {
    "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",      "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
    "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",        "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
    "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64",    "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
    "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",     "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
    "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64",    "SCMP_ARCH_RISCV64",
  };
  size_t i;
  bool ok = json_str (g, "seccomp") && yajl_gen_map_open (g) == yajl_gen_status_ok
            && json_kv_bool (g, "enabled", true) && gen_names (g, "actions", config_seccomp_action_name)
            && gen_names (g, "operators", config_seccomp_op_name) && json_str (g, "archs")
            && yajl_gen_array_open (g) == yajl_gen_status_ok;
  for (i = 0; ok && i < sizeof (spec_archs) / sizeof (spec_archs[0]); i++)
    if (config_seccomp_arch_known (spec_archs[i]))
      ok = json_str (g, spec_archs[i]);
  return ok && yajl_gen_array_close (g) == yajl_gen_status_ok
         && gen_names (g, "knownFlags", config_seccomp_flag_name)
         && gen_names (g, "supportedFlags", config_seccomp_flag_name) && yajl_gen_map_close (g) == yajl_gen_status_ok;
}

/* The runtime-spec's features document (features.md), limited to what is
 * implemented: a field left out means "unknown" there, a false means no. */
int
runtime_features (char **json, shim_error_t *err)
{
  /* config.c refuses the time namespace. */
  static const char *const namespaces[] = { "cgroup", "ipc", "mount", "network", "pid", "user", "uts" };
  cleanup_yajl_gen yajl_gen y = yajl_gen_alloc (NULL);
  const char *hooks[HOOK_N_STAGES];
  const unsigned char *buf;
  size_t len, i;
  bool ok;

  for (i = 0; i < HOOK_N_STAGES; i++)
    hooks[i] = config_hook_stage_name ((enum shim_hook_stage) i);
  yajl_gen_config (y, yajl_gen_beautify, 1);
  ok = yajl_gen_map_open (y) == yajl_gen_status_ok && json_kv_str (y, "ociVersionMin", "1.0.0")
       && json_kv_str (y, "ociVersionMax", SHIM_SPEC_VERSION) && gen_strings (y, "hooks", hooks, HOOK_N_STAGES)
       && json_str (y, "mountOptions") && yajl_gen_array_open (y) == yajl_gen_status_ok;
  for (i = 0; ok && config_mount_option_name (i); i++)
    ok = json_str (y, config_mount_option_name (i));
  ok = ok && yajl_gen_array_close (y) == yajl_gen_status_ok && json_str (y, "linux")
       && yajl_gen_map_open (y) == yajl_gen_status_ok
       && gen_strings (y, "namespaces", namespaces, sizeof (namespaces) / sizeof (namespaces[0]))
       && gen_capabilities (y)
       && json_str (y, "cgroup") && yajl_gen_map_open (y) == yajl_gen_status_ok && json_kv_bool (y, "v1", false)
       && json_kv_bool (y, "v2", true)
       /* --systemd-cgroup maps slice:prefix:name to a path; no D-Bus. */
       && json_kv_bool (y, "systemd", false) && json_kv_bool (y, "systemdUser", false)
       && yajl_gen_map_close (y) == yajl_gen_status_ok && gen_seccomp (y)
       /* Applied where the host has the LSM, an error elsewhere. */
       && gen_enabled (y, "apparmor", true) && gen_enabled (y, "selinux", true)
       && gen_enabled (y, "intelRdt", false) && yajl_gen_map_close (y) == yajl_gen_status_ok
       && json_str (y, "annotations") && yajl_gen_map_open (y) == yajl_gen_status_ok
       && json_kv_str (y, "io.github.shim.version", SHIM_VERSION)
       && json_kv_str (y, "io.github.shim.verdict.annotations",
                       ANNOTATION_VERDICT " " ANNOTATION_OOM_KILLED " " ANNOTATION_REASON)
       && yajl_gen_map_close (y) == yajl_gen_status_ok && yajl_gen_map_close (y) == yajl_gen_status_ok
       && yajl_gen_get_buf (y, &buf, &len) == yajl_gen_status_ok;
  if (!ok || (*json = strndup ((const char *) buf, len)) == NULL)
    return shim_error_plain (err, ENOMEM, "features");
  return 0;
}
