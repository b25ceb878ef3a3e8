/* SPDX-License-Identifier: Apache-2.0 */
/* The pidfd ABI the headers of Debian 12 predate: the wait status of a
 * process that is not our child, which Linux 6.15 keeps for its pidfds
 * (PIDFD_GET_INFO with PIDFD_INFO_EXIT). */
#ifndef SHIM_PIDFD_H
#define SHIM_PIDFD_H

/* Through a pidfd opened while the process lived.
 * 1: *status is set; 0: not reaped yet; -1: this kernel cannot tell. */
int pidfd_exit_status (int pidfd, int *status);

#endif
