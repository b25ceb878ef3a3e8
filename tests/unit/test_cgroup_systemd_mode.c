/* SPDX-License-Identifier: Apache-2.0 */
/* --systemd-cgroup against the host's cgroup mode: on a v1 or
 * hybrid systemd host the cgroupfs v1 manager wrote directories into
 * systemd's tree.  The decision is pure: every mode, systemd as PID 1 or
 * not.  (The VM with systemd is pure cgroup v2, and this host has no
 * systemd: the hybrid systemd host exists only here, and in
 * tests/integration/systemd_cgroup_refused.bats with a faked
 * /run/systemd/system.) */
#include <errno.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "tap.h"

static void
check (enum cgroup_mode mode, bool running, const char *want, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  int r = cgroup_systemd_check (mode, running, &err);

  if (want == NULL)
    {
      ok (r == 0 && err == NULL, "%s: honoured", what);
      return;
    }
  ok (r < 0 && err && err->status == ENOTSUP, "%s: refused (ENOTSUP)", what);
  is_str (err ? err->msg : "", want, "%s: the message", what);
}

int
main (void)
{
  static const char runc[] = "systemd not running on this host, cannot use systemd cgroups manager";

  check (CGROUP_MODE_UNIFIED, true, NULL, "cgroup v2, systemd PID 1");
  check (CGROUP_MODE_HYBRID, true,
         "--systemd-cgroup: this host is hybrid (controllers on cgroup v1, an empty cgroup2 at "
         "/sys/fs/cgroup/unified): shim's systemd cgroup manager needs cgroup v2 "
         "(systemd.unified_cgroup_hierarchy=1); without the flag the cgroupfs manager makes the cgroups",
         "hybrid, systemd PID 1");
  check (CGROUP_MODE_LEGACY, true,
         "--systemd-cgroup: this host is cgroup v1 only (legacy): shim's systemd cgroup manager needs cgroup v2 "
         "(systemd.unified_cgroup_hierarchy=1); without the flag the cgroupfs manager makes the cgroups",
         "legacy, systemd PID 1");
  check (CGROUP_MODE_NONE, true,
         "--systemd-cgroup: this host has no cgroup mounted for systemd's scope",
         "no cgroup, systemd PID 1");
  check (CGROUP_MODE_UNIFIED, false, runc, "cgroup v2 without systemd: runc's words");
  check (CGROUP_MODE_HYBRID, false, runc, "hybrid without systemd (this host): runc's words");
  check (CGROUP_MODE_LEGACY, false, runc, "legacy without systemd: runc's words");
  check (CGROUP_MODE_NONE, false, runc, "no cgroup without systemd: runc's words");
  return done_testing ();
}
