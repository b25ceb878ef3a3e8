/* SPDX-License-Identifier: Apache-2.0 */
/* The per-container state directory under --root (default /run/shim):
 *
 *   ROOT/ID/             mode 0700; mkdir is the create lock, flock(2) on it
 *                        serialises every later command on the id
 *   ROOT/ID/state.json   what later commands need (written atomically)
 *   ROOT/ID/config.json  the bundle's config as it was at create (exec's
 *                        defaults, poststart/poststop hooks)
 *   ROOT/ID/exec.sock    init waits on it between create and start; its
 *                        presence is the "created" status
 *   ROOT/ID/record.json  the watcher's counters (watcher.h)
 *   ROOT/ID/signals      the signals `shim kill` delivered to a live init
 *   ROOT/ID/verdict.json the verdict, once the container has stopped
 *
 * A container's status is read from the process itself: its pid plus the
 * start time /proc/PID/stat gives, so a reused pid is never taken for it. */
#ifndef SHIM_STATE_H
#define SHIM_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "common/error.h"

#define STATE_FILE "state.json"
#define STATE_EXEC_SOCK "exec.sock"
#define STATE_RECORD "record.json"
#define STATE_VERDICT "verdict.json"
#define STATE_SIGNALS "signals"
/* Held (flock) by the watcher until its last record: `delete` waits. */
#define STATE_WATCHER_LOCK "watcher.lock"
#define STATE_CONFIG "config.json"

enum container_status
{
  STATUS_CREATING,
  STATUS_CREATED,
  STATUS_RUNNING,
  STATUS_PAUSED,
  STATUS_STOPPED,
};

struct shim_state
{
  char *id;
  pid_t pid;
  uint64_t pid_start; /* field 22 of /proc/PID/stat */
  char *bundle;
  char *rootfs;
  char *created;      /* RFC 3339, UTC */
  uid_t owner;
  char *cgroup_path;  /* from the cgroup2 mount, or NULL */
  size_t cgroup_created_depth; /* trailing components we made (0: adopted) */
  char *cgroup_v1_paths; /* cgroup.v1_paths: only written when there are some */
  bool memory_limit_enforced;
  bool foreground;    /* `shim run` is init's parent and writes the verdict */
  bool no_pivot;
  unsigned hook_stages; /* bit (1 << stage) for each hooks.<stage> given */
  struct util_kv *annotations;
  size_t n_annotations;
};

/* Container ids become directory and cgroup names: runc's alphabet. */
int state_validate_id (const char *id, shim_error_t *err);

/* Create ROOT/ID (mode 0700).  mkdir is the lock: of two callers with one id
 * exactly one succeeds, the other gets "already exists". Returns a dir fd. */
int state_create (const char *root, const char *id, shim_error_t *err);

/* Open ROOT/ID and take flock(2) on it (exclusive or shared); the lock goes
 * with the fd.  A missing container is ENOENT: "container `ID` does not
 * exist". */
int state_open (const char *root, const char *id, bool exclusive, shim_error_t *err);

/* Remove ROOT/ID and what is in it (regular files and sockets only). */
int state_remove (const char *root, const char *id, shim_error_t *err);

int state_write (int dirfd, const struct shim_state *st, shim_error_t *err);
/* A state dir without state.json is a create in progress: ENOENT. */
int state_read (int dirfd, struct shim_state *st, shim_error_t *err);
void state_free (struct shim_state *st);

/* The start time of PID (field 22 of /proc/PID/stat), and whether it is a
 * zombie.  ENOENT when there is no such process. */
int state_proc_start_time (pid_t pid, uint64_t *start, bool *zombie, shim_error_t *err);

/* From the process, exec.sock and whether the container's cgroup CG is
 * frozen (cgroup_frozen: cgroup.events, or a pure v1 host's freezer). */
struct cgroup;
enum container_status state_status (int dirfd, const struct cgroup *cg, const struct shim_state *st);
const char *state_status_name (enum container_status s);

/* The spec's state object (ociVersion, id, status, pid, bundle, annotations)
 * plus runc's rootfs, created and owner; extra annotations (the verdict)
 * are added after the container's own.  *out is malloc'd. */
int state_to_json (const struct shim_state *st, enum container_status status,
                   const struct util_kv *extra, size_t n_extra, char **out, shim_error_t *err);

/* Signals `shim kill` delivered to a live init, as VERDICT_SIGBIT bits:
 * recorded after pidfd_send_signal succeeded, under the state dir's
 * exclusive lock. */
int state_record_signal (int dirfd, int sig, shim_error_t *err);
/* The record of signals sent, as a whole (to take one back). */
int state_signals_write (int dirfd, uint64_t bits, shim_error_t *err);
uint64_t state_signals_sent (int dirfd);
/* The same, telling an unreadable record (-1, *bits 0: the verdict's
 * signals_unknown) from none sent (0, *bits 0).  LOCK: take a shared lock on
 * the state dir first, through a file of its own, so that a `kill` between
 * sending and recording finishes first; for a reader that holds no lock on
 * it (`shim run`).  Bounded: a lock not had within STATE_SIGNALS_LOCK_MS is
 * an unreadable record. */
#define STATE_SIGNALS_LOCK_MS 10000
int state_signals_read (int dirfd, bool lock, uint64_t *bits);

#endif
