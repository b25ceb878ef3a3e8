/* SPDX-License-Identifier: Apache-2.0 */
/* Fault injection for the tests: fault_point ("create:after-cgroup") kills
 * the calling process with SIGKILL when the environment variable
 * SHIM_TEST_FAULT names that point, stops it with SIGSTOP when
 * SHIM_TEST_STOP does, and does nothing otherwise.  The fault tests
 * (tests/integration/fault_*.bats) kill the runtime at each named phase
 * this way and check what is left is recoverable; a stop holds the runtime
 * at a point while the test looks at what its child does meanwhile.
 * Inline and in a header so a point is one line in the file it marks. */
#ifndef SHIM_FAULT_H
#define SHIM_FAULT_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static inline void
fault_point (const char *name)
{
  const char *want = getenv ("SHIM_TEST_FAULT");

  if (want && strcmp (want, name) == 0)
    raise (SIGKILL);
  want = getenv ("SHIM_TEST_STOP");
  if (want && strcmp (want, name) == 0)
    raise (SIGSTOP);
}

#endif
