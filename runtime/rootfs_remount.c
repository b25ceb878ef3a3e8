/* SPDX-License-Identifier: Apache-2.0 */
/* A bind remount that keeps the flags the kernel locked.
 *
 * In a user namespace a mount copied from the host's namespace has its
 * nosuid, nodev, noexec and atime flags locked: a remount that leaves one
 * of them out is EPERM.  A rootfs or a bind source on a nosuid,nodev tmpfs
 * (a /tmp, as in tests/vm) then could never be made read-only.  runc's
 * remount asks again with the mount's own flags (statfs) added; so does
 * this, and only after that EPERM, so a remount that works as asked is
 * never changed. */
#include "runtime/rootfs.h"

#include <errno.h>
#include <sys/mount.h>
#include <sys/statfs.h>

int
rootfs_remount (const char *target, unsigned long flags)
{
  const unsigned long atime = MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME;
  struct statfs sfs;
  unsigned long kept;

  if (mount (NULL, target, NULL, flags, NULL) == 0)
    return 0;
  if (errno != EPERM)
    return -1;
  if (statfs (target, &sfs) < 0)
    {
      errno = EPERM;
      return -1;
    }
  /* statfs' ST_* flags are the MS_* ones for these bits. */
  kept = (unsigned long) sfs.f_flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC);
  /* An atime flag the config asked for is the config's. */
  if ((flags & atime) == 0)
    kept |= (unsigned long) sfs.f_flags & (MS_NOATIME | MS_NODIRATIME | MS_RELATIME);
  if ((flags | kept) == flags)
    {
      errno = EPERM;
      return -1;
    }
  return mount (NULL, target, NULL, flags | kept, NULL);
}
