/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict's outputs that are files: podman's <bundle>/oom marker and
 * Kubernetes' termination-log. */
#include "evidence/mark.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int
mark_oom_file (int bundle_fd, shim_error_t *err)
{
  /* Empty, so that its creation is the whole write: podman may look at any
   * moment, and only asks whether it exists. */
  int fd = openat (bundle_fd, MARK_OOM_FILE, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

  if (fd < 0)
    return shim_error_errno (err, "create `<bundle>/" MARK_OOM_FILE "`");
  close (fd);
  return 0;
}

int
mark_oom (int bundle_fd, const struct verdict *v, shim_error_t *err)
{
  if (v->oom_killed != VERDICT_TRUE)
    return 0;
  return mark_oom_file (bundle_fd, err) < 0 ? -1 : 1;
}

int
mark_oom_remove (int bundle_fd, shim_error_t *err)
{
  if (unlinkat (bundle_fd, MARK_OOM_FILE, 0) < 0 && errno != ENOENT)
    return shim_error_errno (err, "remove `<bundle>/" MARK_OOM_FILE "`");
  return 0;
}

/* The workload writes the same file through its bind mount, perhaps at
 * the very moment we look.  Never pwrite at 0: bytes it wrote after our
 * fstat would be overwritten.  O_APPEND instead: at worst its text and our
 * line are both there, its own intact.  Our own writers (the watcher,
 * `state`, `delete`, `run`) may race each other too: the size check and
 * the write are made under flock, without waiting (a workload that holds
 * the lock itself keeps the file to itself; nothing of ours may hang on
 * it), so only one of them finds it empty. */
int
mark_termination_log (int fd, const struct verdict *v, shim_error_t *err)
{
  char line[sizeof v->message + 1];
  struct stat sb;
  ssize_t w;
  int n, fl, r = 0;

  if (fd < 0 || v->oom_killed != VERDICT_TRUE)
    return 0;
  /* Its type first: a symlink (opened as itself), a fifo or a device is
   * left alone. */
  if (fstat (fd, &sb) < 0)
    return shim_error_errno (err, "termination-log: fstat");
  if (!S_ISREG (sb.st_mode))
    return 0;
  fl = fcntl (fd, F_GETFL);
  if (fl < 0 || fcntl (fd, F_SETFL, fl | O_APPEND) < 0)
    return shim_error_errno (err, "termination-log: set O_APPEND");
  if (flock (fd, LOCK_EX | LOCK_NB) < 0)
    return errno == EWOULDBLOCK ? 0 : shim_error_errno (err, "termination-log: flock");
  if (fstat (fd, &sb) < 0)
    r = shim_error_errno (err, "termination-log: fstat");
  else if (sb.st_size == 0)
    {
      n = snprintf (line, sizeof line, "%s\n", v->message);
      w = write (fd, line, (size_t) n);
      if (w < 0)
        r = shim_error_errno (err, "termination-log: write");
      else if (w != n)
        r = shim_error_plain (err, EIO, "termination-log: short write (%zd of %d bytes)", w, n);
      else
        r = 1;
    }
  flock (fd, LOCK_UN);
  return r;
}
