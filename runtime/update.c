/* SPDX-License-Identifier: Apache-2.0 */
/* pause, resume, update: changing a running container's cgroup. */
#include "runtime/runtime.h"

#include <fcntl.h>
#include <string.h>

#include "common/util.h"
#include "runtime/config.h"
#include "runtime/container_ref_internal.h"

static int
freeze (const struct runtime_ctx *ctx, const char *id, bool frozen, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  const char *what = frozen ? "pause" : "resume";

  if (container_ref_open (ctx->root, id, true, &r, err) < 0
      || container_ref_need (&r, what, frozen ? ST (STATUS_RUNNING) : ST (STATUS_PAUSED), err) < 0)
    return -1;
  return cgroup_freeze (&r.cg, frozen, err);
}

int
runtime_pause (const struct runtime_ctx *ctx, const char *id, shim_error_t *err)
{
  return freeze (ctx, id, true, err);
}

int
runtime_resume (const struct runtime_ctx *ctx, const char *id, shim_error_t *err)
{
  return freeze (ctx, id, false, err);
}

void
runtime_resources_release (struct cgroup_resources *res)
{
  config_resources_free (res);
}

int
runtime_update (const struct runtime_ctx *ctx, const char *id, struct cgroup_resources *res,
                const char *resources_file, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;

  if (resources_file)
    {
      bool std_in = strcmp (resources_file, "-") == 0;
      cleanup_free char *json = NULL;
      size_t len;
      /* containerd passes the resources on stdin ("-"). */
      if (util_read_file_at (AT_FDCWD, std_in ? "/dev/stdin" : resources_file, &json, &len, err) < 0)
        return -1;
      config_resources_free (res);
      if (config_resources_parse (json, len, res, err) < 0)
        return shim_error_prefix (err, "update: %s", std_in ? "stdin" : resources_file);
    }
  if (container_ref_open (ctx->root, id, true, &r, err) < 0
      || container_ref_need (&r, "update", ST (STATUS_CREATED) | ST (STATUS_RUNNING) | ST (STATUS_PAUSED), err) < 0)
    return -1;
  return cgroup_update (&r.cg, res, err);
}
