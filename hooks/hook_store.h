/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict directory (--dir, default /run/shim-oom-hook): one
 * directory per container id,
 *
 *   DIR/ID/meta.json     written when the watcher is armed: the cgroup, the
 *                        bundle, what was done to memory.oom.group, or why
 *                        arming failed
 *   DIR/ID/record.json   the watcher's record (shim/lib/watcher.h), rewritten
 *                        atomically on every change of the counters
 *   DIR/ID/watcher.lock  flock'ed by the watcher for as long as it runs, so
 *                        poststop can wait for its last record
 *   DIR/ID/verdict.json  written at poststop (see hook_verdict.h)
 *
 * and DIR/.lock, taken while a container directory is replaced or old ones
 * are removed.  Cleanup (hook_store_gc) runs at poststop, off the path that
 * starts containers. */
#ifndef SHIM_HOOK_STORE_H
#define SHIM_HOOK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define HOOK_DEFAULT_DIR "/run/shim-oom-hook"
#define HOOK_META "meta.json"
#define HOOK_RECORD "record.json"
#define HOOK_LOCK "watcher.lock"
#define HOOK_VERDICT "verdict.json"

/* Open DIR, creating it (and its parents, mode 0755) when create is set. */
int hook_store_open (const char *dir, bool create, int *dirfd, shim_error_t *err);

/* An empty DIR/ID for a new arming: a previous directory of that id is moved
 * aside and removed first (a watcher of an earlier container of that id
 * keeps writing to the moved copy, never to the new one). */
int hook_store_fresh (int dirfd, const char *id, int *cfd, shim_error_t *err);

/* The id of DIR/ID for what a user typed, as podman looks a container up:
 * the full id; else a name recorded at arming (meta.json's `name`; a name
 * reused by a later container finds the most recently armed, and *others
 * says how many older ones had it); else a prefix of exactly one stored id
 * (podman and docker print 12 characters).  *full is malloc'd.  None:
 * ENOENT; several ids with the prefix: EINVAL, naming how many. */
int hook_store_resolve_id (int dirfd, const char *typed, char **full, size_t *others,
                           shim_error_t *err);

/* Open DIR/ID; a missing one is an error with status ENOENT. */
int hook_store_open_container (int dirfd, const char *id, int *cfd, shim_error_t *err);

/* Whether a watcher holds DIR/ID/watcher.lock right now. */
bool hook_store_watcher_running (int cfd);

/* Wait up to timeout_ms for the watcher to finish (its lock to be free).
 * Returns true when it has finished or there never was one. */
bool hook_store_wait_watcher (int cfd, int timeout_ms);

/* What arming did (meta.json). */
struct hook_meta
{
  char *cgroup;    /* the container's cgroup v2 path, or NULL */
  char *bundle;    /* NULL when the state had none */
  char *name;      /* the engine's name for the container (hook_name.h), or NULL */
  int64_t pid;     /* init's pid at arming */
  char *armed_at;  /* UTC, RFC 3339 */
  char *oom_group; /* "set", "already set", "left as configured", "left (--no-oom-group)", "absent" */
  bool oom_file;   /* <bundle>/oom is maintained */
  char *error;     /* why the watcher could not be armed, or NULL */
};
int hook_store_meta_write (int cfd, const struct hook_meta *m, shim_error_t *err);
/* A missing meta.json is an error with status ENOENT. */
int hook_store_meta_read (int cfd, struct hook_meta *m, shim_error_t *err);
void hook_store_meta_release (struct hook_meta *m);


/* Remove the directories of containers that are done with (a verdict
 * written, or no watcher running) once they are older than keep_days, and
 * every finished one beyond the keep_count newest.  A directory whose
 * watcher still runs is never removed.  Returns how many were removed.
 * With no more than keep_count directories, and a scan in the last hour,
 * nothing is scanned: an old directory can outlive keep_days by an hour. */
struct hook_gc_policy
{
  int keep_days;
  int keep_count;
};
int hook_store_gc (int dirfd, const struct hook_gc_policy *p, shim_error_t *err);

#endif
