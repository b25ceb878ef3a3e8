/* SPDX-License-Identifier: Apache-2.0 */
/* create: init is left waiting on exec.sock and we return, so it is
 * inherited by the caller's subreaper (conmon, containerd-shim); `start`
 * releases it. */
#include "runtime/runtime.h"

#include "runtime/launch_internal.h"

int
runtime_create (const struct runtime_ctx *ctx, const struct runtime_create_opts *o, shim_error_t *err)
{
  cleanup_launch struct launch l = LAUNCH_INIT;
  struct launch_opts lo = { .c = *o, .detach = true, .wait_start = true };

  if (launch_prepare (ctx, &lo, &l, err) < 0 || launch_spawn (&lo, &l, err) < 0)
    {
      launch_abort (ctx, &l);
      return -1;
    }
  return 0;
}
