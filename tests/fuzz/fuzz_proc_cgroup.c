/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/PID/cgroup of a container's process: its paths are names the
 * workload may choose (a delegated cgroup's children).  Read by the runtime
 * (cgroup_parse_proc_cgroup) and by the hook. */
#include "hooks/hook_state.c"
#include "cgroup/cgroup.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *buf = fuzz_string (data, size);
  char *path = NULL;
  shim_error_t err = NULL;
  int r;

  r = cgroup_parse_proc_cgroup (buf, &path, &err);
  fuzz_check_error (r, &err);
  if (r == 0 && path && path[0] != '/')
    abort ();
  if (path)
    (void) hook_state_cgroup_within (path, "/");
  free (path);
  path = NULL;
  r = hook_state_parse_proc_cgroup (buf, &path, &err);
  fuzz_check_error (r, &err);
  free (path);
  free (buf);
  return 0;
}
