/* SPDX-License-Identifier: Apache-2.0 */
/* podman's <bundle>/oom marker, the one verdict output that is a file. */
#include "verdict/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int
verdict_mark_oom (int bundle_fd, const struct verdict *v, shim_error_t *err)
{
  int fd;

  if (v->oom_killed != VERDICT_TRUE)
    return 0;
  /* Empty, so that its creation is the whole write: podman may look at any
   * moment, and only asks whether it exists. */
  fd = openat (bundle_fd, VERDICT_OOM_MARKER, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return shim_error_errno (err, "create `<bundle>/" VERDICT_OOM_MARKER "`");
  close (fd);
  return 1;
}
