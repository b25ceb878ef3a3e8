/* SPDX-License-Identifier: Apache-2.0 */
/* The detached watcher: when the runtime is not the parent of the container
 * (create/start under an engine, or the hook inside another runtime), a
 * small process waits on the container cgroup's memory.events.local and
 * cgroup.events and persists a record of every change, so the verdict can be
 * written after the engine or systemd has removed the cgroup.  It is not an
 * ancestor of init, idles in poll(2), and exits when the cgroup empties. */
#ifndef SHIM_WATCHER_H
#define SHIM_WATCHER_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cgroup/cgroup_files.h"
#include "common/error.h"
#include "verdict/monitor.h"
#include "verdict/verdict.h"

/* What the watcher persisted (the file is rewritten atomically). */
struct watch_record
{
  bool have_baseline, have_last, have_fullest;
  struct cg_snapshot baseline, last, fullest;
  bool ended; /* the watcher saw the cgroup empty (populated 0) or vanish */
  bool have_status;
  int status; /* init's wait status, from the kernel (pidfd_exit_status) */
};

/* STATUS: init's wait status, NULL while it is not known. */
int watch_record_write (int dirfd, const char *name, const struct monitor *m, bool ended, const int *status,
                        shim_error_t *err);
/* ENOENT (no record) is reported in err->status. */
int watch_record_read (int dirfd, const char *name, struct watch_record *out, shim_error_t *err);
void watch_record_fill_input (const struct watch_record *r, struct verdict_input *in);

/* Fork the watcher, fully detached (double fork, setsid, stdio on
 * /dev/null, no other fd but those it needs), with the baseline taken
 * before this returns.  It writes its record NAME in DIRFD, and ends when
 * the cgroup is empty or gone, or when END_FILE is removed from DIRFD
 * (`delete`).  cgroup_fd and dirfd are duplicated, not taken.
 * bundle_fd >= 0: create podman's <bundle>/oom marker there the moment the
 * counters prove the container was OOM-killed (id names it in messages).
 * init_pidfd: init's, for its exit and its status (-1: none). */
int watcher_spawn (int cgroup_fd, int dirfd, const char *name, const char *end_file, int bundle_fd,
                   const char *id, int init_pidfd, shim_error_t *err);

/* init followed through a pidfd by a watcher that is not its parent: when
 * it exits, and, where the kernel keeps it, its wait status once reaped. */
struct init_exit
{
  int pidfd;          /* -1: not followed */
  bool follow_status; /* this kernel keeps a reaped process's status */
  bool exited;        /* POLLIN seen: init is a zombie or reaped */
  bool done;          /* nothing more to learn from the pidfd */
  bool known;         /* status is init's wait status */
  int status;
};

/* PIDFD: init's, opened while it lived (not taken; -1 for none). */
void init_exit_init (struct init_exit *ie, int pidfd);
/* The entry for the watcher's poll set, and the poll timeout to use: once
 * init is gone the cgroup is re-read every second, because the kernel can
 * drop cgroup.events' last notification (see watcher.c). */
struct pollfd init_exit_pollfd (const struct init_exit *ie);
int init_exit_timeout (const struct init_exit *ie);
/* What poll said of the pidfd: INIT_EXITED when init's exit has just been
 * seen, INIT_STATUS_KNOWN when its status has just been learnt, 0 else. */
enum
{
  INIT_EXITED = 1,
  INIT_STATUS_KNOWN = 2,
};
int init_exit_event (struct init_exit *ie, short revents);
/* With the cgroup empty: wait (bounded) for the reap and its status.
 * STOP_FD readable and STOP(STOP_FD, ARG) true ends the wait early:
 * returns false then. */
bool init_exit_wait_reap (struct init_exit *ie, int stop_fd, bool (*stop) (int fd, const void *arg),
                          const void *arg);

/* In the child of a fork: become the detached watcher (setsid, a second
 * fork so that it is nobody's child but the subreaper's, stdio on
 * /dev/null, every fd closed but the N in KEEP, cwd /).  Returns in the
 * watcher; the intermediate process exits. */
void watcher_become_detached (const int *keep, size_t n);

/* The wait status of a process that is not our child, through a pidfd
 * opened while it lived (PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15).
 * 1: *status is set; 0: not reaped yet; -1: this kernel cannot tell. */
int pidfd_exit_status (int pidfd, int *status);

#endif
