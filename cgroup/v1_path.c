/* SPDX-License-Identifier: Apache-2.0 */
/* A container's directory made in one cgroupfs hierarchy (a v1 one, or
 * the controller-less cgroup2 of a hybrid host), level by level, and
 * made again when another container's teardown takes a shared parent away
 * under the walk. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/util.h"

/* A try failed after making *CREATED directories, the last of them ending
 * at byte END of PATH: remove them, and pass RET on. */
static int
undo_made (int mountfd, const char *where, const char *path, ptrdiff_t end, size_t *created, int ret)
{
  cleanup_free char *made = strndup (path, (size_t) end);
  shim_error_t tmp = NULL;

  while (made && *created && strlen (made) > 1 && made[strlen (made) - 1] == '/')
    made[strlen (made) - 1] = '\0';
  if (made && *created && cgroup_remove_path (mountfd, where, made, *created, &tmp) < 0)
    log_error_release (&tmp);
  *created = 0;
  return ret;
}

/* Make PATH under MOUNTFD, component by component; *created: how many
 * trailing components are ours.  An existing leaf is adopted only when it
 * has no process (an engine may have made it for us); never a live one.
 * CPUSET: fill each level's cpus and mems from its parent's. */
static int
make_path_once (int mountfd, const char *where, const char *path, bool cpuset, size_t *created, int *leaf,
                shim_error_t *err)
{
  cleanup_free char *walk = strdup (path);
  cleanup_close int fd = fcntl (mountfd, F_DUPFD_CLOEXEC, 0);
  char *comp, *next;

  *created = 0;
  if (walk == NULL || fd < 0)
    return shim_error_errno (err, "cgroup `%s` in %s", path, where);
  for (comp = walk + (walk[0] == '/'); comp && *comp; comp = next)
    {
      int child;
      bool made;
      next = strchr (comp, '/');
      if (next)
        *next++ = '\0';
      if (*comp == '\0')
        continue;
      made = mkdirat (fd, comp, 0755) == 0;
      if (!made && errno != EEXIST)
        return undo_made (mountfd, where, path, comp - walk, created,
                          shim_error_errno (err, "create cgroup `%s` in %s", path, where));
      *created = made ? *created + 1 : 0; /* only a suffix of fresh directories is ours */
      child = openat (fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child < 0)
        return undo_made (mountfd, where, path, comp - walk + strlen (comp), created,
                          shim_error_errno (err, "open cgroup `%s` in %s", path, where));
      if (cpuset && v1_apply_cpuset_inherit (fd, child, err) < 0)
        {
          close (child);
          return undo_made (mountfd, where, path, comp - walk + strlen (comp), created,
                            shim_error_prefix (err, "cgroup `%s` in %s", path, where));
        }
      close (fd);
      fd = child;
      /* Where another container's teardown can take this level away. */
      if (next && *next)
        fault_point ("cgroup:after-parent");
    }
  if (*created == 0)
    {
      cleanup_free char *procs = NULL;
      if (util_read_file_at (fd, "cgroup.procs", &procs, NULL, err) < 0)
        return shim_error_prefix (err, "cgroup `%s` in %s", path, where);
      /* Adopted with runc's warning, as the v2 manager does: what happens
       * to those processes is then the container's.  Said once, for the
       * hierarchy that tracks the container (the unified one on a hybrid
       * host, memory on a pure v1 one). */
      if (procs[0] != '\0' && (strcmp (where, "cgroup2") == 0 || strcmp (where, "memory") == 0))
        {
          size_t n = 0;
          for (const char *p = procs; *p; p++)
            n += *p == '\n' || (p[1] == '\0' && *p != '\n');
          log_msg (LOG_WARNING, "container's cgroup is not empty: %zu process(es) found (cgroup `%s`)", n,
                   path);
        }
    }
  *leaf = steal_fd (&fd);
  return 0;
}

/* make_path_once, again when an ancestor vanished under the walk: another
 * container under the same parent (/shim) removed it, empty, between our
 * mkdir of it and of the next level (ENOENT, or ENODEV from a file of the
 * removed directory).  Each try undoes what it made; a few suffice, since
 * a remover takes a parent away only while it is empty. */
#define MAKE_PATH_TRIES 5
int
cgroup_v1_make_path (int mountfd, const char *where, const char *path, bool cpuset, size_t *created, int *leaf,
           shim_error_t *err)
{
  for (int i = 1;; i++)
    {
      shim_error_t tmp = NULL;
      if (make_path_once (mountfd, where, path, cpuset, created, leaf, &tmp) == 0)
        return 0;
      if (i == MAKE_PATH_TRIES || (tmp->status != ENOENT && tmp->status != ENODEV))
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
    }
}
