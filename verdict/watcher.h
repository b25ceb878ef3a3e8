/* SPDX-License-Identifier: Apache-2.0 */
/* The detached watcher: when the runtime is not the parent of the container
 * (create/start under an engine, or the hook inside another runtime), a
 * small process waits on the container cgroup's memory.events.local and
 * cgroup.events and persists a record of every change, so the verdict can be
 * written after the engine or systemd has removed the cgroup.  It is not an
 * ancestor of init, idles in poll(2), and exits when the cgroup empties.
 * What is not the verdict's business (podman's marker, the runtime's state
 * dir) the caller adds through struct watcher_actions. */
#ifndef SHIM_WATCHER_H
#define SHIM_WATCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup/cgroup_files.h"
#include "common/error.h"
#include "verdict/monitor.h"
#include "verdict/verdict.h"

/* What the watcher persisted (the file is rewritten atomically). */
struct watcher_record
{
  bool have_baseline, have_last, have_fullest;
  struct cg_snapshot baseline, last, fullest;
  bool ended; /* the watcher saw the cgroup empty (populated 0) or vanish */
  bool have_status;
  int status; /* init's wait status, from the kernel (pidfd_exit_status) */
};

/* STATUS: init's wait status, NULL while it is not known. */
int watcher_record_write (int dirfd, const char *name, const struct monitor *m, bool ended,
                          const int *status, shim_error_t *err);
/* ENOENT (no record) is reported in err->status. */
int watcher_record_read (int dirfd, const char *name, struct watcher_record *out,
                         shim_error_t *err);
/* The record's part of a verdict input (with monitor_fill_input, the one
 * place snapshots become evidence). */
void watcher_record_fill_input (const struct watcher_record *r, struct verdict_input *in);

/* What the caller adds to the watcher, all optional.  The callbacks run in
 * the detached watcher, a child of the caller's: ARG may point into the
 * caller's frame (it never returns there), and of the caller's fds only
 * stop_fd and keep_fd stay open. */
struct watcher_actions
{
  /* Called once, the first time the counters prove the container itself
   * was OOM-killed (V's oom_killed is true), before the record that shows
   * it: podman's marker (verdict_mark_oom) cannot wait.  ID names the
   * container in V. */
  void (*on_oom_killed) (const struct verdict *v, void *arg);
  const char *id;
  /* The watcher ends at once, without a last record, when STOP_FD (-1:
   * none) is readable and STOP (stop_fd, ARG) says so (`delete` removed
   * the state: there is no one left to tell). */
  int stop_fd;
  bool (*stop) (int fd, void *arg);
  void *arg;
  /* One more fd the callbacks use (the bundle directory), or -1. */
  int keep_fd;
};

/* Fork the watcher, fully detached (watcher_become_detached), with the
 * baseline taken and the record NAME written in DIRFD before this returns.
 * It ends when the cgroup is empty or gone, or when ACT says so.
 * cgroup_fd and dirfd are not taken.  init_pidfd: init's, for its exit and
 * its status (-1: none).  ACT may be NULL. */
int watcher_spawn (int cgroup_fd, int dirfd, const char *name, int init_pidfd,
                   const struct watcher_actions *act, shim_error_t *err);

/* In the child of a fork: become the detached watcher (setsid, a second
 * fork so that it is nobody's child but the subreaper's, stdio on
 * /dev/null, every fd closed but the N in KEEP, cwd /).  Returns in the
 * watcher; the intermediate process exits. */
void watcher_become_detached (const int *keep, size_t n);

#endif
