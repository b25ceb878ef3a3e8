/* SPDX-License-Identifier: Apache-2.0 */
/* init's wait status where the kernel keeps none for a pidfd (before 6.15):
 * the kernel's taskstats interface (generic netlink, kernel/taskstats.c)
 * sends every exiting task's accounting record, with its exit code, to
 * listeners registered for the CPU it exits on.  A socket filter passes
 * only init's records (and a thread group's last one), so the listener
 * costs nothing per exit of anyone else.
 *
 * Listening needs CAP_NET_ADMIN, the initial user and pid namespaces and
 * the initial network namespace (the family is not per-namespace);
 * without them there is no listener and the status stays unknown. */
#ifndef SHIM_TASKSTATS_H
#define SHIM_TASKSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "common/error.h"

struct taskstats_watch
{
  int fd; /* -1: not listening */
  uint32_t pid; /* init's, in the initial pid namespace */
  uint16_t family;
  /* init's own record: its exit code, and whether it left last (the
   * record then carries its thread group's total). */
  bool leader_seen, leader_last;
  uint32_t leader_code;
  /* The record of the thread that left its group last, when not init. */
  bool last_seen;
  uint32_t last_code;
  bool lost; /* records dropped (ENOBUFS) or unreadable */
};

/* Listen for the exit of PID (in the initial pid namespace).  -1 and ERR
 * when this process cannot; the caller goes on without a status. */
int taskstats_watch_open (struct taskstats_watch *t, uint32_t pid, shim_error_t *err);

/* Read what has arrived (never blocks). */
void taskstats_watch_collect (struct taskstats_watch *t);

/* Once init's whole thread group has exited (its pidfd readable), after a
 * last collect: 1 and *STATUS its wait status, 0 not known (no record,
 * records lost, or a thread group whose leader left first with another
 * code than its last thread's: the group's status is one of the two). */
int taskstats_watch_status (const struct taskstats_watch *t, int *status);

/* One netlink message as the kernel sends it (collect calls it for each;
 * the unit tests feed built ones). */
void taskstats_watch_feed (struct taskstats_watch *t, const void *msg, size_t len);

void taskstats_watch_close (struct taskstats_watch *t);

#endif
