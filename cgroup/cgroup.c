/* SPDX-License-Identifier: Apache-2.0 */
/* The manager of this host, chosen once, and the public entry points
 * dispatching to it.  What the managers share is in hierarchy.c. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/log.h"
#include "common/util.h"

const struct cgroup_manager *
cgroup_manager_detect (void)
{
  /* Controllers on cgroup v1 hierarchies (a hybrid host, whose cgroup2 at
   * /sys/fs/cgroup/unified has none, or a pure v1 one): the v1 manager,
   * which still tracks and kills the tree through the unified cgroup where
   * there is one.  Else the cgroup2 mount, wherever cgroup_mount_point found
   * it.  The systemd manager (a scope over cgroup2) replaces the v2 one
   * per container: --systemd-cgroup at create, a scope's path after. */
  if (cgroup_v1_present ())
    return &cgroup_v1_manager;
  if (cgroup_mount_point () != NULL)
    return &cgroup_v2_manager;
  return NULL;
}

enum cgroup_mode
cgroup_mode_detect (void)
{
  if (cgroup_v1_present ())
    return cgroup_mount_point () ? CGROUP_MODE_HYBRID : CGROUP_MODE_LEGACY;
  return cgroup_mount_point () ? CGROUP_MODE_UNIFIED : CGROUP_MODE_NONE;
}

int
cgroup_systemd_check (enum cgroup_mode mode, bool systemd_running, shim_error_t *err)
{
  static const char *const what[] = {
    [CGROUP_MODE_NONE] = "has no cgroup mounted",
    [CGROUP_MODE_HYBRID] = "is hybrid (controllers on cgroup v1, an empty cgroup2 at /sys/fs/cgroup/unified)",
    [CGROUP_MODE_LEGACY] = "is cgroup v1 only (legacy)",
  };

  /* Without systemd on the bus, runc's refusal (not a silent cgroupfs
   * fallback), whatever the mode. */
  if (!systemd_running)
    return shim_error_plain (err, ENOTSUP, "systemd not running on this host, cannot use systemd cgroups manager");
  if (mode == CGROUP_MODE_UNIFIED)
    return 0;
  if (mode == CGROUP_MODE_NONE)
    return shim_error_plain (err, ENOTSUP, "--systemd-cgroup: this host %s for systemd's scope", what[mode]);
  return shim_error_plain (err, ENOTSUP,
                           "--systemd-cgroup: this host %s: shim's systemd cgroup manager needs cgroup v2 "
                           "(systemd.unified_cgroup_hierarchy=1); without the flag the cgroupfs manager "
                           "makes the cgroups",
                           what[mode]);
}

/* Rootless, the scope is the user's manager's (user@UID.service), its
 * slices under the manager's own cgroup, as runc's rootless systemd
 * manager puts them: *PATH gets that cgroup in front. */
static int
under_user_manager (char **path, shim_error_t *err)
{
  cleanup_free char *base = NULL;
  char *full;

  if (cgroup_systemd_manager_cgroup (&base, err) < 0)
    return -1;
  if (asprintf (&full, "%s%s", base, *path) < 0)
    return shim_error_errno (err, "cgroup path");
  free (*path);
  *path = full;
  return 0;
}

int
cgroup_create (const struct cgroup_spec *spec, struct cgroup *out, shim_error_t *err)
{
  const struct cgroup_manager *m = cgroup_manager_detect ();
  const struct cgroup_resources *r = spec->resources;
  unsigned required = cgroup_required_controllers (r);
  cleanup_free char *path = NULL;

  *out = (struct cgroup){ .dirfd = -1, .mountfd = -1 };
  /* --systemd-cgroup: the cgroup is systemd's to make, as runc and crun
   * ask it; never cgroupfs directories in systemd's tree instead (a v1 or
   * hybrid host took the v1 manager silently), nor no cgroup at all. */
  if (spec->systemd && cgroup_systemd_check (cgroup_mode_detect (), cgroup_systemd_running (), err) < 0)
    return -1;
  if (m == NULL)
    {
      if (required && !spec->allow_unenforced)
        return shim_error_plain (err, ENOTSUP,
                                 "invalid configuration: linux.resources: cannot enforce the %s limit: no cgroup2 "
                                 "is mounted (at /sys/fs/cgroup or /sys/fs/cgroup/unified); "
                                 "--allow-unenforced-limits runs without it",
                                 cgroup_first_ctrl (required));
      if (r->has_devices && !spec->allow_unenforced)
        return shim_error_plain (err, ENOTSUP,
                                 "invalid configuration: linux.resources.devices: cannot enforce the device rules: "
                                 "no cgroup2 is mounted to attach them to; --allow-unenforced-limits runs without "
                                 "them");
      return 0;
    }
  if (cgroup_path_for (spec->cgroups_path, spec->systemd, spec->id, &path, err) < 0)
    return -1;
  if (spec->systemd && cgroup_systemd_user_manager () && under_user_manager (&path, err) < 0)
    return -1;
  if (spec->systemd)
    m = &cgroup_systemd_manager;
  out->manager = m;
  if (m->create (spec, path, out, err) < 0)
    {
      int e = *err ? (*err)->status : 0;
      /* Device rules are no reason to fail: in a user namespace no device
       * node can be made, only bind-mounted ones used (runc's rule too). */
      if (!spec->rootless || (e != EACCES && e != EPERM && e != EROFS))
        return -1;
      if (required)
        {
          shim_error_t why = steal_pointer (err);
          shim_error_plain (err, e,
                            "linux.resources: the %s limit needs a cgroup this user may not make (%s); "
                            "a rootless container gets limits where cgroup v2 controllers are "
                            "delegated to its user (systemd's user@UID.service)",
                            cgroup_first_ctrl (required), why->msg);
          shim_error_release (&why);
          return -1;
        }
      log_msg (LOG_DEBUG, "no cgroup for this rootless container (%s): it runs without one",
               (*err)->msg);
      shim_error_release (err);
      cgroup_release (out);
      *out = (struct cgroup){ .dirfd = -1, .mountfd = -1 };
      return 0;
    }
  /* /shim is shared by every container on the default path: whichever one
   * made it, the last to go removes it (rmdir fails while others remain). */
  if (out->created_depth && cgroup_default_path (spec->cgroups_path) && !spec->systemd)
    out->created_depth = 2;
  return 0;
}

int
cgroup_open (const char *path, size_t created_depth, struct cgroup *out, shim_error_t *err)
{
  return cgroup_open_paths (path, NULL, created_depth, out, err);
}

int
cgroup_open_paths (const char *path, const char *v1_paths, size_t created_depth, struct cgroup *out,
                   shim_error_t *err)
{
  const struct cgroup_manager *m = cgroup_manager_detect ();

  *out = (struct cgroup){ .dirfd = -1, .mountfd = -1 };
  if (path == NULL || m == NULL)
    return 0;
  /* A scope on a systemd host: the unit is stopped at delete, and updates
   * go through systemd too.  From the path alone, since engines do not
   * pass --systemd-cgroup to every command. */
  if (m == &cgroup_v2_manager && cgroup_systemd_is_scope (path) && cgroup_systemd_running ())
    m = &cgroup_systemd_manager;
  out->manager = m;
  out->path = strdup (path);
  if (out->path == NULL || (v1_paths && (out->v1_paths = strdup (v1_paths)) == NULL))
    return shim_error_errno (err, "cgroup `%s`", path);
  out->created = created_depth > 0;
  out->created_depth = created_depth;
  return m->open (out, err);
}

int
cgroup_v1_paths_for (const struct cgroup_spec *spec, const char *path, char **v1_paths, shim_error_t *err)
{
  struct cgroup cg = { .dirfd = -1, .mountfd = -1 };
  int ret;

  *v1_paths = NULL;
  if (path == NULL || cgroup_manager_detect () != &cgroup_v1_manager)
    return 0;
  ret = cgroup_v1_resolve (spec, path, &cg, err);
  if (ret == 0)
    *v1_paths = steal_pointer (&cg.v1_paths);
  cgroup_release (&cg);
  return ret;
}

void
cgroup_release (struct cgroup *cg)
{
  if (cg->dirfd >= 0)
    close (cg->dirfd);
  if (cg->mountfd >= 0)
    close (cg->mountfd);
  free (cg->path);
  free (cg->unenforced_reason);
  free (cg->v1_paths);
  cgroup_v1_free (cg->v1);
  cgroup_systemd_free (cg->sd);
  *cg = (struct cgroup){ .dirfd = -1, .mountfd = -1 };
}

/* No cgroup at all, or one already removed (by an engine, or systemd). */
static bool
absent (const struct cgroup *cg)
{
  return cg->manager == NULL || cg->dirfd < 0;
}

int
cgroup_destroy (struct cgroup *cg, shim_error_t *err)
{
  if (absent (cg))
    return 0;
  /* Every manager removes only what it made: made by nobody, it is
   * emptied and left, in every hierarchy. */
  if (cg->keep && cg->manager != &cgroup_systemd_manager)
    {
      bool created = cg->created;
      int ret;
      cg->created = false;
      ret = cg->manager->destroy (cg, err);
      cg->created = created;
      return ret;
    }
  return cg->manager->destroy (cg, err);
}

int
cgroup_freeze (struct cgroup *cg, bool frozen, shim_error_t *err)
{
  if (absent (cg))
    return shim_error_plain (err, ENOENT, "the container has no cgroup to %s", frozen ? "freeze" : "thaw");
  return cg->manager->freeze (cg, frozen, err);
}

bool
cgroup_frozen (const struct cgroup *cg)
{
  cleanup_free char *buf = NULL;
  shim_error_t tmp = NULL;
  struct cg_cgroup_events ev;
  bool frozen = false;

  if (absent (cg))
    return false;
  /* A pure v1 host has no cgroup.events: its freezer says. */
  if (cg->manager == &cgroup_v1_manager && cg->mountfd < 0)
    {
      int fd = cgroup_v1_dirfd (cg->v1, "freezer");
      frozen = fd >= 0 && util_read_file_at (fd, "freezer.state", &buf, NULL, &tmp) == 0
               && strncmp (buf, "FROZEN", 6) == 0;
    }
  else
    frozen = util_read_file_at (cg->dirfd, "cgroup.events", &buf, NULL, &tmp) == 0
             && cg_parse_cgroup_events ("cgroup.events", buf, &ev, &tmp) == 0 && (ev.have & CG_CEV_FROZEN)
             && ev.frozen;
  shim_error_release (&tmp);
  return frozen;
}

int
cgroup_update (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err)
{
  /* A shallow copy, its pointers borrowed: only the flag is ours. */
  struct cgroup_resources u = *r;

  if (absent (cg))
    return shim_error_plain (err, ENOENT, "the container has no cgroup to update");
  u.update = true;
  return cg->manager->update (cg, &u, err);
}

int
cgroup_signal_all (struct cgroup *cg, int sig, shim_error_t *err)
{
  if (absent (cg))
    return 0;
  return cg->manager->signal_all (cg, sig, err);
}

int
cgroup_snapshot (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err)
{
  if (absent (cg))
    {
      memset (out, 0, sizeof *out);
      return 0;
    }
  return cg->manager->snapshot (cg, out, err);
}

int
cgroup_clone_fd (const struct cgroup *cg)
{
  /* CLONE_INTO_CGROUP takes a cgroup2 directory only: on a pure v1 host
   * dirfd is a v1 one, and cgroup_enter does all the work. */
  if (cg->manager == &cgroup_v1_manager && cg->mountfd < 0)
    return -1;
  return cg->dirfd;
}

int
cgroup_enter (const struct cgroup *cg, pid_t pid, shim_error_t *err)
{
  /* The caller's cgroup is its own (the launch's), not a constant: the
   * scope systemd just made gets its dirfd here. */
  if (!cgroup_enter_needed (cg))
    return 0;
  return cgroup_systemd_enter ((struct cgroup *) cg, pid, err);
}

bool
cgroup_enter_needed (const struct cgroup *cg)
{
  /* systemd: until the scope is started with init's pid (an exec is
   * cloned into a started one). */
  return cg->manager == &cgroup_systemd_manager && cg->sd != NULL && !cg->sd->started;
}

const char *
cgroup_memory_path (const struct cgroup *cg)
{
  const struct cgroup_v1_dir *h;

  if (cg->manager == &cgroup_v1_manager && (h = cgroup_v1_find (cg->v1, "memory")) != NULL && h->path)
    return h->path;
  return cg->path;
}

int
cgroup_memory_dirfd (const struct cgroup *cg)
{
  if (cg->manager == &cgroup_v1_manager)
    return cgroup_v1_dirfd (cg->v1, "memory");
  return cg->manager ? cg->dirfd : -1;
}

int
cgroup_pids_dirfd (const struct cgroup *cg)
{
  if (cg->manager == &cgroup_v1_manager)
    return cgroup_v1_dirfd (cg->v1, "pids");
  return cg->manager ? cg->dirfd : -1;
}
