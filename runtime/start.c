/* SPDX-License-Identifier: Apache-2.0 */
/* start: release a created container's init (its startContainer hooks
 * run in it, with the state as `start` sees it), then the poststart
 * hooks. */
#include "runtime/runtime.h"

#include "common/log.h"
#include "common/fault.h"
#include "common/util.h"
#include "runtime/container_ref_internal.h"
#include "runtime/lifecycle_internal.h"
#include "runtime/sync_internal.h"

int
runtime_start (const struct runtime_ctx *ctx, const char *id, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  cleanup_free char *json = NULL;

  if (container_ref_open (ctx->root, id, true, &r, err) < 0
      || container_ref_need (&r, "start", ST (STATUS_CREATED), err) < 0)
    return -1;
  if (r.st.hook_stages & (1u << HOOK_START_CONTAINER))
    {
      shim_error_t tmp = NULL;
      if (lifecycle_state_json (&r.st, STATUS_CREATED, NULL, &json, &tmp) < 0)
        log_error_release (&tmp);
    }
  fault_point ("start:before-release");
  if (sync_release (r.dirfd, json, err) < 0)
    return -1;
  fault_point ("start:after-release");
  lifecycle_poststart (r.dirfd, NULL, &r.st);
  return 0;
}
