/* SPDX-License-Identifier: Apache-2.0 */
#include "common/pidfd.h"

#include <stdint.h>
#include <sys/ioctl.h>

/* linux/pidfd.h of 6.15, which Debian 12's headers predate: the first
 * version of struct pidfd_info, up to exit_code. */
struct shim_pidfd_info
{
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;
};
#define SHIM_PIDFD_GET_INFO _IOWR (0xFF, 11, struct shim_pidfd_info)
#define SHIM_PIDFD_INFO_EXIT (1ULL << 3)

int
pidfd_exit_status (int pidfd, int *status)
{
  struct shim_pidfd_info info = { .mask = SHIM_PIDFD_INFO_EXIT };

  if (ioctl (pidfd, SHIM_PIDFD_GET_INFO, &info) < 0)
    /* ESRCH: reaped, and this kernel keeps no exit information (6.14);
     * ENOTTY: no PIDFD_GET_INFO at all (before 6.13). */
    return -1;
  /* Measured on 6.18: the exit status appears once the parent reaped, not
   * at exit; the mask has no PIDFD_INFO_EXIT for a zombie. */
  if (!(info.mask & SHIM_PIDFD_INFO_EXIT))
    return 0;
  *status = info.exit_code;
  return 1;
}
