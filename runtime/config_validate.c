/* SPDX-License-Identifier: Apache-2.0 */
/* The checks across sections of config.json, once the whole document is
 * walked: the fields shim cannot run without, and the namespaces other
 * fields need (mount for the rootfs, uts for hostname, user for the id
 * mappings). */
#include <errno.h>
#include <sched.h>

#include "runtime/config_internal.h"

/* A new user namespace needs both maps, with the container's root and the
 * process's ids in them (setresuid to an unmapped id fails with a bare
 * EINVAL inside the container); mappings without one are a mistake. */
static int
check_user_namespace (struct config_ctx *c, const struct shim_config *cfg)
{
  const struct shim_namespace *u = config_namespace (cfg, CLONE_NEWUSER);
  const struct shim_process *p = &cfg->process;
  uint32_t h;
  size_t i;

  if (u == NULL)
    {
      if (cfg->n_uid_mappings || cfg->n_gid_mappings)
        return shim_error_plain (c->err, EINVAL, "linux.%s: given without a `user` entry in linux.namespaces",
                                 cfg->n_uid_mappings ? "uidMappings" : "gidMappings");
      return 0;
    }
  if (u->path)
    {
      /* unshare() would not make init pid 1 of a new pid namespace, and
       * clone3 would make it the host's. */
      const struct shim_namespace *pid = config_namespace (cfg, CLONE_NEWPID);
      if (pid && pid->path == NULL)
        return shim_error_plain (c->err, ENOTSUP, "linux.namespaces: a new `pid` namespace inside a `user` "
                                 "namespace joined by path is not supported: join a pid namespace by path too");
      /* containerd and CRI-O send both; the namespace's own maps rule. */
      if (cfg->n_uid_mappings || cfg->n_gid_mappings)
        config_warn (c, cfg->n_uid_mappings ? "linux.uidMappings" : "linux.gidMappings",
                     "ignored: the user namespace joined by path has its own mappings");
      return 0;
    }
  if (cfg->n_uid_mappings == 0)
    return shim_error_plain (c->err, EINVAL, "linux.uidMappings: required with a new `user` namespace");
  if (cfg->n_gid_mappings == 0)
    return shim_error_plain (c->err, EINVAL, "linux.gidMappings: required with a new `user` namespace");
  if (config_idmap_to_host (cfg->uid_mappings, cfg->n_uid_mappings, 0, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "linux.uidMappings: the container's root (uid 0) is not mapped");
  if (config_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, 0, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "linux.gidMappings: the container's root group (gid 0) is not mapped");
  if (config_idmap_to_host (cfg->uid_mappings, cfg->n_uid_mappings, p->uid, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "process.user.uid: %u is not mapped by linux.uidMappings",
                             (unsigned) p->uid);
  if (config_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, p->gid, &h) < 0)
    return shim_error_plain (c->err, EINVAL, "process.user.gid: %u is not mapped by linux.gidMappings",
                             (unsigned) p->gid);
  for (i = 0; i < p->n_additional_gids; i++)
    if (config_idmap_to_host (cfg->gid_mappings, cfg->n_gid_mappings, p->additional_gids[i], &h) < 0)
      return shim_error_plain (c->err, EINVAL, "process.user.additionalGids[%zu]: %u is not mapped by "
                               "linux.gidMappings", i, (unsigned) p->additional_gids[i]);
  return 0;
}

int
config_validate (struct config_ctx *c, const struct shim_config *cfg)
{
  if (cfg->oci_version == NULL)
    return shim_error_plain (c->err, EINVAL, "ociVersion: required");
  if (cfg->root_path == NULL)
    return shim_error_plain (c->err, EINVAL, "root.path: required");
  if (cfg->process.args == NULL)
    return shim_error_plain (c->err, EINVAL, "process: required (shim has nothing to run without it)");
  /* The rootfs is set up by mounting: without a mount namespace of its own
   * that would be done to the host. */
  if (config_namespace (cfg, CLONE_NEWNS) == NULL)
    return shim_error_plain (c->err, EINVAL, "linux.namespaces: a `mount` namespace is required");
  if (cfg->hostname && config_namespace (cfg, CLONE_NEWUTS) == NULL)
    return shim_error_plain (c->err, EINVAL, "hostname: needs a `uts` entry in linux.namespaces");
  return check_user_namespace (c, cfg);
}
