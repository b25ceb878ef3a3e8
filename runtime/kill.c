/* SPDX-License-Identifier: Apache-2.0 */
/* kill: a signal to init, or to every process of the cgroup. */
#include "runtime/runtime.h"

#include <errno.h>

#include "runtime/container_ref_internal.h"

int
runtime_kill (const struct runtime_ctx *ctx, const char *id, int sig, bool all, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;

  if (container_ref_open (ctx->root, id, true, &r, err) < 0)
    return -1;
  /* runc: a stopped container takes no signal, except with --all (what is
   * left in its cgroup; recorded for the verdict only when init was alive:
   * container_ref_signal). */
  if (!all && container_ref_need (&r, "kill", ST (STATUS_CREATED) | ST (STATUS_RUNNING) | ST (STATUS_PAUSED), err) < 0)
    return -1;
  if (r.status == STATUS_CREATING)
    return shim_error_plain (err, EBUSY, "container `%s` is still being created", id);
  return container_ref_signal (&r, sig, all, err);
}
