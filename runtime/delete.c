/* SPDX-License-Identifier: Apache-2.0 */
/* delete: kill what is left (--force), take the verdict, remove the cgroup,
 * run the poststop hooks, remove the state dir. */
#include "runtime/runtime.h"

#include <errno.h>
#include <signal.h>

#include "common/log.h"
#include "common/fault.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "runtime/container_ref_internal.h"
#include "runtime/lifecycle_internal.h"

/* delete --force of a container whose create died before it wrote
 * state.json: its init may be waiting in its cgroup already.  The cgroup
 * is found as create found it, from the config it saved, in every
 * hierarchy (on v1 a relative cgroupsPath is under the runtime's own
 * cgroup in each, as create resolved it); everything in it is killed and
 * its directory removed.  Only the container's own directory: the
 * default /shim/ID is always ours, and one named by cgroupsPath is the
 * container's (runc removes it at delete too), but its parents may have
 * been there before. */
static int
destroy_creating (const struct runtime_ctx *ctx, struct container_ref *r, shim_error_t *err)
{
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *path = NULL, *v1_paths = NULL;
  struct cgroup_spec spec = { .id = r->st.id, .systemd = ctx->systemd_cgroup };
  struct cgroup cg;
  shim_error_t tmp = NULL;
  int ret;

  if (lifecycle_saved_config (r->dirfd, &r->st, false, &cfg, &tmp) < 0)
    {
      /* Died before it saved the config: before it made the cgroup. */
      shim_error_release (&tmp);
      return 0;
    }
  spec.cgroups_path = cfg->cgroups_path;
  if (cgroup_path_for (cfg->cgroups_path, ctx->systemd_cgroup, r->st.id, &path, err) < 0
      || cgroup_v1_paths_for (&spec, path, &v1_paths, err) < 0
      || cgroup_open_paths (path, v1_paths, 1, &cg, err) < 0)
    return -1;
  ret = cg.dirfd < 0 ? 0 : cgroup_destroy (&cg, err);
  cgroup_release (&cg);
  return ret;
}

/* How long `delete` waits for the watcher's last record: it comes within
 * milliseconds of init's reap, which an engine's subreaper does before it
 * calls `delete`. */
#define DELETE_WATCHER_WAIT_MS 2000

int
runtime_delete (const struct runtime_ctx *ctx, const char *id, bool force, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  cleanup_free char *vjson = NULL;
  shim_error_t tmp = NULL;
  struct verdict v;

  if (container_ref_open (ctx->root, id, true, &r, &tmp) < 0)
    {
      /* runc: deleting what is not there is no error with --force. */
      if (force && tmp->status == ENOENT)
        {
          shim_error_release (&tmp);
          return 0;
        }
      return shim_error_take (err, &tmp);
    }
  if (r.status == STATUS_CREATING)
    {
      if (!force)
        return container_ref_need (&r, "delete", 0, err);
      if (destroy_creating (ctx, &r, err) < 0)
        return -1;
      return state_remove (ctx->root, id, err);
    }
  /* A created container has run nothing yet: runc deletes it without
   * --force, and so do we. */
  if (!force && !(ST (r.status) & (ST (STATUS_STOPPED) | ST (STATUS_CREATED))))
    return shim_error_plain (err, EBUSY, "cannot delete container `%s`: it is %s (stop it first, or use delete --force)",
                             id, state_status_name (r.status));
  if (r.status != STATUS_STOPPED)
    {
      if (container_ref_signal (&r, SIGKILL, r.cg.dirfd >= 0, err) < 0 || container_ref_wait_gone (&r, err) < 0)
        return -1;
    }
  fault_point ("delete:after-kill");
  /* The verdict before anything is removed, kept in the log. */
  if (!r.st.foreground)
    {
      lifecycle_verdict (r.dirfd, &r.st, &r.cg, DELETE_WATCHER_WAIT_MS, NULL, &v, &tmp);
      lifecycle_mark_oom (r.dirfd, NULL, &r.st, true, &v);
      lifecycle_tell (ctx->history, r.dirfd, NULL, &r.st, "delete", &v);
      if (verdict_to_json (&v, &vjson, &tmp) == 0)
        log_msg (LOG_INFO, "container %s: %s; verdict %s", id, v.message, vjson);
      shim_error_release (&tmp);
    }
  if (cgroup_destroy (&r.cg, err) < 0)
    return -1;
  fault_point ("delete:after-cgroup");
  lifecycle_poststop (r.dirfd, NULL, &r.st, r.st.foreground ? NULL : &v);
  return state_remove (ctx->root, id, err);
}
