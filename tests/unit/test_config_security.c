/* SPDX-License-Identifier: Apache-2.0 */
/* The security fields of config.json as parsed (the bad ones are in
 * fixtures/config/bad/, driven by test_config): capability masks, LSM
 * labels, and linux.seccomp turned into libseccomp's values. */
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>

#include "runtime/config.h"
#include "tap.h"
#include "common/util.h"

#define BIT(c) (1ULL << (c))

static struct shim_config *
parse_fixture (const char *path)
{
  cleanup_free char *json = NULL;
  struct shim_config *c = NULL;
  shim_error_t err = NULL;
  size_t len = 0;

  if (util_read_file_at (AT_FDCWD, path, &json, &len, &err) < 0
      || config_parse (json, len, "/bundle", &c, NULL, NULL, &err) < 0)
    {
      diag ("%s", err->msg);
      shim_error_release (&err);
      return NULL;
    }
  return c;
}

static void
test_capabilities (const struct shim_config *c)
{
  const struct shim_capabilities *k = &c->process.caps;
  ok (k->bounding == (BIT (CAP_CHOWN) | BIT (CAP_KILL) | BIT (CAP_NET_BIND_SERVICE) | BIT (40)),
      "bounding; CAP_CHECKPOINT_RESTORE is 40");
  ok (k->effective == BIT (CAP_KILL), "effective");
  ok (k->inheritable == 0, "inheritable: null is empty");
  ok (k->permitted == (BIT (CAP_KILL) | BIT (CAP_CHOWN)), "permitted");
  ok (k->ambient == 0, "ambient: CAP_CHECKPOINT_RESTORE, neither permitted nor inheritable, left out");
  is_str (c->process.apparmor_profile, "shim-default", "apparmorProfile");
  is_str (c->process.selinux_label, "system_u:system_r:container_t:s0", "selinuxLabel");
}

static void
test_seccomp (const struct shim_seccomp *s)
{
  const struct shim_seccomp_rule *r;

  ok (s != NULL, "linux.seccomp present");
  if (s == NULL)
    return;
  ok (s->default_action == SCMP_ACT_ERRNO (38), "defaultAction ERRNO with defaultErrnoRet 38");
  is_int (s->n_architectures, 3, "architectures: 3");
  if (s->n_architectures == 3)
    ok (s->architectures[0] == SCMP_ARCH_X86_64 && s->architectures[1] == SCMP_ARCH_X86
            && s->architectures[2] == SCMP_ARCH_AARCH64,
        "architectures resolved");
  ok (s->flags == (SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW), "flags");
  is_str (s->listener_path, "/run/seccomp-agent.sock", "listenerPath");
  is_str (s->listener_metadata, "meta data", "listenerMetadata");
  ok (s->uses_notify, "uses_notify");
  is_int (s->n_syscalls, 10, "syscalls: 10");
  if (s->n_syscalls != 10)
    return;
  r = s->syscalls;
  ok (r[0].n_names == 2 && strcmp (r[0].names[1], "write") == 0 && r[0].names[2] == NULL, "syscalls[0].names");
  ok (r[0].action == SCMP_ACT_ALLOW && r[0].n_args == 0, "syscalls[0]: ALLOW, null errnoRet and args");
  ok (r[1].action == SCMP_ACT_ERRNO (1), "syscalls[1]: ERRNO defaults to EPERM");
  ok (r[2].action == SCMP_ACT_TRACE (22), "syscalls[2]: TRACE with errnoRet 22");
  ok (r[3].action == SCMP_ACT_NOTIFY, "syscalls[3]: NOTIFY");
  ok (r[4].action == SCMP_ACT_ALLOW && r[4].n_args == 2, "syscalls[4]: two args");
  if (r[4].n_args == 2)
    {
      ok (r[4].args[0].index == 0 && r[4].args[0].op == SCMP_CMP_EQ && r[4].args[0].value == 0
              && r[4].args[0].value_two == 0,
          "args[0]: index 0 EQ 0, valueTwo defaults to 0");
      ok (r[4].args[1].index == 5 && r[4].args[1].op == SCMP_CMP_MASKED_EQ && r[4].args[1].value == UINT64_MAX
              && r[4].args[1].value_two == 7,
          "args[1]: index 5 MASKED_EQ, value 2^64-1 (the mask), valueTwo 7");
    }
  ok (r[5].action == SCMP_ACT_KILL, "SCMP_ACT_KILL");
  ok (r[6].action == SCMP_ACT_KILL_PROCESS, "SCMP_ACT_KILL_PROCESS");
  ok (r[7].action == SCMP_ACT_KILL_THREAD, "SCMP_ACT_KILL_THREAD");
  ok (r[8].action == SCMP_ACT_TRAP, "SCMP_ACT_TRAP");
  ok (r[9].action == SCMP_ACT_LOG, "SCMP_ACT_LOG");
}

static void
test_absent (void)
{
  static const char j[] = "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"r\"},"
                          " \"process\": {\"args\": [\"x\"], \"cwd\": \"/\"},"
                          " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}]}}";
  struct shim_config *c = NULL;
  shim_error_t err = NULL;

  ok (config_parse (j, strlen (j), "/b", &c, NULL, NULL, &err) == 0, "a config without security fields");
  if (c == NULL)
    return;
  ok (c->process.caps.bounding == 0 && c->process.caps.effective == 0 && c->process.caps.permitted == 0
          && c->process.caps.inheritable == 0 && c->process.caps.ambient == 0,
      "no process.capabilities: every set empty (runc's rule)");
  ok (c->seccomp == NULL, "no linux.seccomp: no filter");
  ok (c->process.apparmor_profile == NULL && c->process.selinux_label == NULL, "no LSM label");
  config_free (c);
}

int
main (void)
{
  struct shim_config *c = parse_fixture ("tests/unit/fixtures/config/good/security.json");
  ok (c != NULL, "good/security.json parses");
  if (c)
    {
      test_capabilities (c);
      test_seccomp (c->seccomp);
      config_free (c);
    }
  test_absent ();
  return done_testing ();
}
