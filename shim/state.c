/* SPDX-License-Identifier: Apache-2.0 */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int
state_validate_id (const char *id, shim_error_t *err)
{
  const char *p;
  if (id[0] == '\0' || strlen (id) > 1024)
    return shim_error_plain (err, EINVAL, "container id `%s`: must be 1 to 1024 characters", id);
  if (strcmp (id, ".") == 0 || strcmp (id, "..") == 0)
    return shim_error_plain (err, EINVAL, "container id `%s`: invalid", id);
  for (p = id; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'
          || *p == '-' || *p == '.' || *p == '+'))
      return shim_error_plain (err, EINVAL, "container id `%s`: only letters, digits and `_-.+` are allowed", id);
  return 0;
}

int
state_create (const char *root, const char *id, shim_error_t *err)
{
  cleanup_close int rootfd = -1;
  int fd;

  if (mkdir (root, 0700) < 0 && errno != EEXIST)
    return shim_error_errno (err, "create the state root `%s`", root);
  rootfd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return shim_error_errno (err, "open the state root `%s`", root);
  if (mkdirat (rootfd, id, 0700) < 0)
    {
      if (errno == EEXIST)
        return shim_error_plain (err, EEXIST, "container `%s` already exists (state in `%s/%s`)", id, root, id);
      return shim_error_errno (err, "create the state dir `%s/%s`", root, id);
    }
  fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return shim_error_errno (err, "open the state dir `%s/%s`", root, id);
  return fd;
}

int
state_remove (const char *root, const char *id, shim_error_t *err)
{
  cleanup_close int rootfd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int dfd = -1;
  cleanup_dir DIR *d = NULL;
  struct dirent *de;

  if (rootfd < 0)
    return shim_error_errno (err, "open the state root `%s`", root);
  dfd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dfd < 0)
    {
      if (errno == ENOENT)
        return 0;
      return shim_error_errno (err, "open the state dir `%s/%s`", root, id);
    }
  d = fdopendir (steal_fd (&dfd));
  if (d == NULL)
    return shim_error_errno (err, "read the state dir `%s/%s`", root, id);
  while ((de = readdir (d)))
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd (d), de->d_name, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove `%s/%s/%s`", root, id, de->d_name);
    }
  if (unlinkat (rootfd, id, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return shim_error_errno (err, "remove the state dir `%s/%s`", root, id);
  return 0;
}
