/* SPDX-License-Identifier: Apache-2.0 */
/* What the lifecycle commands share: the state JSON hooks and `state` get,
 * the poststart and poststop hooks, the verdict when the runtime is not
 * init's parent (state, delete, events) from the watcher's record, the
 * cgroup if it is still there and the signals `kill` sent, and the small
 * files and sockets create, run and exec are given. */
#ifndef SHIM_LIFECYCLE_INTERNAL_H
#define SHIM_LIFECYCLE_INTERNAL_H

#include <stdbool.h>

#include "cgroup/cgroup.h"
#include "runtime/config.h"
#include "runtime/state.h"
#include "verdict/verdict.h"

/* Annotations the verdict adds to the state of a stopped container and to
 * the poststop hooks' state. */
#define ANNOTATION_VERDICT "io.github.shim.verdict"       /* the verdict JSON */
#define ANNOTATION_OOM_KILLED "io.github.shim.oom-killed" /* true|false|null */
#define ANNOTATION_REASON "io.github.shim.reason"         /* OOMKilled|Killed|... */

/* The state JSON for hooks and `state`, with the verdict's annotations when
 * v is given. */
int lifecycle_state_json (const struct shim_state *st, enum container_status status, const struct verdict *v,
                          char **out, shim_error_t *err);

/* The poststart hooks (start, run), once init has exec'd, and the poststop
 * hooks (delete, run), once it and its cgroup are gone, with the verdict
 * v (NULL: none).  cfg is the container's config, or NULL for the one
 * saved at create in the state dir dirfd.  Failures are warnings, as the
 * spec says. */
void lifecycle_poststart (int dirfd, const struct shim_config *cfg, const struct shim_state *st);
void lifecycle_poststop (int dirfd, const struct shim_config *cfg, const struct shim_state *st,
                         const struct verdict *v);

/* The signals `shim kill` sent, from the state dir's log, into the
 * verdict's input (the one place the runtime reads that log for a verdict).
 * LOCK: take the state dir's shared lock first (`run`, which does not hold
 * the exclusive one); an unreadable log is "unknown", never "none sent". */
struct evidence_sources;
void lifecycle_signals (int dirfd, bool lock, struct evidence_sources *src);

/* The verdict of a stopped container whose parent was not us.  WAIT_MS >
 * 0: while the watcher may still write its last record (init reaped, its
 * status on its way to the watcher's pidfd), wait for it that long.  A
 * watcher still running then makes the verdict provisional. */
/* STATUS, when not NULL: init's wait status, known to a caller that reaped
 * it (a containerd shim). */
int lifecycle_verdict (int dirfd, const struct shim_state *st, const struct cgroup *cg, int wait_ms,
                       const int *status, struct verdict *v, shim_error_t *err);

/* What an OOM kill leaves in files, when, and only when, the container's
 * own cgroup had it: podman 4 reads <bundle>/oom for State.OOMKilled;
 * Kubernetes shows the termination-log's text (written if the workload
 * left it empty: mark_termination_log).  CFG is the container's
 * config, or NULL for the one saved at create in the state dir DIRFD.
 * BUNDLE_MARKER: also podman's <bundle>/oom.  Only for a container made
 * by `create` (the path podman's conmon drives): a foreground `shim run` is
 * a person's, in the person's bundle, and never podman's (docs/DESIGN.md,
 * "podman's oom marker"). */
void lifecycle_mark_oom (int dirfd, const struct shim_config *cfg, const struct shim_state *st, bool bundle_marker,
                         const struct verdict *v);

/* Tell the final verdict V of the container (history_tell: the journal,
 * the verdict history, the metrics) with the engine's names from its
 * annotations; SOURCE is "run" or "delete".  CFG as above.  Never fails. */
struct history_config;
void lifecycle_tell (const struct history_config *h, int dirfd, const struct shim_config *cfg,
                     const struct shim_state *st, const char *source, const struct verdict *v);

/* Where Kubernetes mounts the file whose text it shows as the container's
 * termination message (the mount's source is a host file kubelet made). */
#define TERMINATION_LOG "/dev/termination-log"
/* That source, open for writing (O_APPEND, O_CLOEXEC) when the config has
 * the mount and its source is a regular file, not a symlink; else -1 (a
 * missing source is no error: there is nothing to write to). */
int lifecycle_termination_log_open (const struct shim_config *cfg);

/* --console-socket: connected, for the pty master. */
int lifecycle_connect_console (const char *path, shim_error_t *err);
/* --pid-file, written atomically (engines read it the moment we return). */
int lifecycle_write_pid_file (const char *path, pid_t pid, shim_error_t *err);

void lifecycle_config_warning (void *opaque, const char *path, const char *why);

/* Load the config saved at create (hooks, exec's defaults).  With
 * or_bundle, a container that saved none (a foreground `run`, whose bundle
 * is in use while it runs) gets its bundle's; never for delete, where a
 * missing copy means create died before it made anything. */
int lifecycle_saved_config (int dirfd, const struct shim_state *st, bool or_bundle, struct shim_config **out,
                            shim_error_t *err);

#endif
