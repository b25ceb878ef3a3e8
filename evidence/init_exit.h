/* SPDX-License-Identifier: Apache-2.0 */
/* init followed through a pidfd by a watcher that is not its parent: when
 * it exits, and its wait status where a witness of it can be had: the
 * pidfd once reaped (6.15 and later, common/pidfd.h), the kernel's taskstats
 * record (evidence/taskstats.h), or the zombie's /proc/PID/stat read
 * before its reap.  Used by the detached watcher (evidence/watcher.c), for
 * the runtime and the hook alike. */
#ifndef SHIM_INIT_EXIT_H
#define SHIM_INIT_EXIT_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "evidence/taskstats.h"

struct init_exit
{
  int pidfd;          /* -1: not followed */
  int64_t pid;        /* init's, in the initial pid namespace; 0: none */
  bool follow_status; /* this kernel keeps a reaped process's status */
  bool exited;        /* POLLIN seen: init is a zombie or reaped */
  bool done;          /* nothing more to learn from the pidfd */
  bool known;         /* status is init's wait status */
  int status;
  /* Only its zombie could tell, and init was reaped before it was read. */
  bool reaped_first;
  /* Where the pidfd keeps no status: the kernel's taskstats record of
   * init's exit (ts.fd -1: not listening). */
  struct taskstats_watch ts;
};

/* PIDFD: init's, opened while it lived (not taken; -1 for none); PID: its
 * pid in the initial pid namespace (0: not known). */
void init_exit_init (struct init_exit *ie, int pidfd, int64_t pid);

/* Listen for the exit of init through taskstats: on a kernel whose pidfds
 * keep no status (before 6.15), and with BEFORE_REAP on every kernel.  A
 * pidfd gives the status only once init is reaped, and a subreaper writes
 * its own exit record the moment it reaps (conmon, for podman); taskstats
 * has the status at the exit, before the reaper can have it.  Before init
 * can exit; where this process cannot listen (taskstats.h), the status
 * comes from the pidfd, or from the zombie, or stays unknown. */
void init_exit_listen (struct init_exit *ie, bool before_reap);

/* The entry for the watcher's poll set, and the poll timeout to use: once
 * init is gone the cgroup is re-read every second, because the kernel can
 * drop cgroup.events' last notification (see init_exit.c). */
struct pollfd init_exit_pollfd (const struct init_exit *ie);
int init_exit_timeout (const struct init_exit *ie);

/* What poll said of the pidfd: INIT_EXIT_EXITED when init's exit has just
 * been seen, INIT_EXIT_STATUS_KNOWN when its status has just been learnt,
 * 0 else. */
enum
{
  INIT_EXIT_EXITED = 1,
  INIT_EXIT_STATUS_KNOWN = 2,
};
int init_exit_event (struct init_exit *ie, short revents);

/* With the cgroup empty: wait (bounded) for the reap and its status, or,
 * where only the zombie can tell, for init's exit.  STOP_FD readable and STOP(STOP_FD, ARG) true ends the wait early:
 * returns false then. */
bool init_exit_wait_reap (struct init_exit *ie, int stop_fd, bool (*stop) (int fd, void *arg),
                          void *arg);

/* Whether init is on its way out, from /proc before its pidfd says so:
 * exiting, or with a SIGKILL that it cannot survive pending. */
bool init_exit_going (const struct init_exit *ie);

/* STAT, the text of a zombie's /proc/PID/stat: 1 and *STATUS its wait
 * status, 0 when it cannot be told.  The kernel prints there (field 52)
 * what a reap returns: the group's exit code once a fatal signal or
 * exit_group(2) ended the group, else the leader's own.  A reader without
 * ptrace access is shown 0: PERMITTED says this one has it. */
int init_exit_zombie_status (const char *stat, bool permitted, int *status);

#endif
