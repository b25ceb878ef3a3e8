/* SPDX-License-Identifier: Apache-2.0 */
/* features and spec: what this runtime implements, and a config.json to
 * start from. */
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

/* runc spec's default, for the rootfs next to it. */
static const char default_spec[] =
  "{\n"
  "  \"ociVersion\": \"1.2.0\",\n"
  "  \"process\": {\n"
  "    \"terminal\": true,\n"
  "    \"user\": { \"uid\": 0, \"gid\": 0 },\n"
  "    \"args\": [ \"sh\" ],\n"
  "    \"env\": [ \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\", \"TERM=xterm\" ],\n"
  "    \"cwd\": \"/\",\n"
  "    \"rlimits\": [ { \"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": 1024 } ],\n"
  "    \"noNewPrivileges\": true\n"
  "  },\n"
  "  \"root\": { \"path\": \"rootfs\", \"readonly\": true },\n"
  "  \"hostname\": \"shim\",\n"
  "  \"mounts\": [\n"
  "    { \"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\" },\n"
  "    { \"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
  "      \"options\": [ \"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\" ] },\n"
  "    { \"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": \"devpts\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"newinstance\", \"ptmxmode=0666\", \"mode=0620\", \"gid=5\" ] },\n"
  "    { \"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": \"shm\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", \"size=65536k\" ] },\n"
  "    { \"destination\": \"/dev/mqueue\", \"type\": \"mqueue\", \"source\": \"mqueue\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\" ] },\n"
  "    { \"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"ro\" ] },\n"
  "    { \"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup2\", \"source\": \"cgroup\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"relatime\", \"ro\" ] }\n"
  "  ],\n"
  "  \"linux\": {\n"
  "    \"resources\": { \"devices\": [ { \"allow\": false, \"access\": \"rwm\" } ] },\n"
  "    \"namespaces\": [ { \"type\": \"pid\" }, { \"type\": \"network\" }, { \"type\": \"ipc\" },\n"
  "                    { \"type\": \"uts\" }, { \"type\": \"mount\" }, { \"type\": \"cgroup\" } ],\n"
  "    \"maskedPaths\": [ \"/proc/acpi\", \"/proc/asound\", \"/proc/kcore\", \"/proc/keys\",\n"
  "      \"/proc/latency_stats\", \"/proc/timer_list\", \"/proc/timer_stats\", \"/proc/sched_debug\",\n"
  "      \"/sys/firmware\", \"/proc/scsi\" ],\n"
  "    \"readonlyPaths\": [ \"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\",\n"
  "      \"/proc/sysrq-trigger\" ]\n"
  "  }\n"
  "}\n";

int
runtime_spec (const char *bundle, shim_error_t *err)
{
  cleanup_close int dfd = -1, fd = -1;
  size_t off = 0, len = sizeof (default_spec) - 1;

  dfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return shim_error_errno (err, "bundle `%s`", bundle);
  /* As runc: an existing config.json is never overwritten. */
  fd = openat (dfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return shim_error_errno (err, "`%s/config.json`", bundle);
  while (off < len)
    {
      ssize_t w = write (fd, default_spec + off, len - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return shim_error_errno (err, "write `%s/config.json`", bundle);
      off += (size_t) w;
    }
  return 0;
}
