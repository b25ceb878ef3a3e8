/* SPDX-License-Identifier: Apache-2.0 */
/* A child's own join of the cgroups its clone did not reach (cgroup.h,
 * cgroup_join_open): on cgroup v1, "0" into each hierarchy's `tasks`. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"

_Static_assert (CGROUP_V1_MAX <= CGROUP_JOIN_MAX, "a join fd for every v1 hierarchy");

/* The container's cgroup in hierarchy I of J's cgroup, for messages. */
static const char *
join_path (const struct cgroup_join *j, size_t i)
{
  return j->cg->v1->h[i].path ? j->cg->v1->h[i].path : j->cg->path;
}

int
cgroup_join_open (const struct cgroup *cg, struct cgroup_join *j, shim_error_t *err)
{
  size_t i;

  j->cg = cg;
  j->n = 0;
  if (cg == NULL || cg->manager != &cgroup_v1_manager || cg->v1 == NULL)
    return 0;
  for (i = 0; i < cg->v1->n; i++)
    {
      const struct cgroup_v1_dir *h = &cg->v1->h[i];
      j->fd[i] = -1;
      j->n = i + 1;
      if (h->dirfd < 0)
        continue;
      j->fd[i] = openat (h->dirfd, "tasks", O_WRONLY | O_CLOEXEC);
      if (j->fd[i] < 0)
        {
          int saved = errno;
          cgroup_join_close (j);
          errno = saved;
          return shim_error_errno (err, "cgroup `%s` in %s: open `tasks`", join_path (j, i), h->ctrls);
        }
    }
  return 0;
}

int
cgroup_join_self (struct cgroup_join *j, shim_error_t *err)
{
  size_t i;

  for (i = 0; i < j->n; i++)
    {
      if (j->fd[i] < 0)
        continue;
      if (write (j->fd[i], "0", 1) != 1)
        return shim_error_errno (err, "cgroup `%s` in %s: join (write 0 to `tasks`)", join_path (j, i),
                                 j->cg->v1->h[i].ctrls);
      close (j->fd[i]);
      j->fd[i] = -1;
    }
  return 0;
}

void
cgroup_join_close (struct cgroup_join *j)
{
  size_t i;

  for (i = 0; i < j->n; i++)
    if (j->fd[i] >= 0)
      {
        close (j->fd[i]);
        j->fd[i] = -1;
      }
  j->n = 0;
}

bool
cgroup_join_pending (const struct cgroup_join *j)
{
  return j->n > 0;
}
